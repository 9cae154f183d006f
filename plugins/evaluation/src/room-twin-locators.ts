import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import type { Scenario } from '@wiflow/plugin-sim';
import { environmentFromScenario, fitTwinCount, loadLocatorModel, referenceForEnvironment, simulateReference, SHIPPED_LOCATOR_DIR, TWIN_COUNT, writeLocatorModel, type LocatorModel, type TwinCountRecord } from '@wiflow/plugin-pose-tfjs';

/** One environment's twin-fitted locator, as `eval-e2e --twin-fit` reports it. */
export interface RoomTwinLocator {
  environmentId: string;
  /** The written locator: model id and sha256 of its locator.json (what its frames carry). */
  modelId: string;
  hash: string;
  countBias: number[];
  birthAboveNoise: number;
  /** Count on the twin's own sessions, before → after the fit (what was fitted, not a measurement of the room). */
  twinCountAccuracy: { before: number; after: number };
  /** CPU seconds of the twin (simulation, imaging and fit), as `fitTwinCount` measured them. */
  cpuSeconds: number;
  wallSeconds: number;
}

/**
 * Per-environment locators fitted on each room's simulated twin, exactly as `wiflow locate
 * twin-fit` fits them (`fitTwinCount`), from what an installer has: the room's declared
 * environment (taken from its scenario, as `pose.locate`'s `scenario` config takes it) and its
 * empty-room reference (simulated, as that config simulates it). Each environment is fitted once,
 * when first asked for, and written to a folder of its own that `dispose` removes.
 */
export class RoomTwinLocators {
  private readonly folder = mkdtempSync(path.join(tmpdir(), 'wiflow-e2e-twin-'));
  private readonly fitted = new Map<string, { directory: string; room: RoomTwinLocator }>();
  private readonly base: LocatorModel;

  /** `model`: the general locator to correct (default: the shipped one); `sessions`: twin sessions per room. */
  constructor(model: string | undefined, readonly sessions: number = TWIN_COUNT.sessions) {
    this.base = loadLocatorModel(path.resolve(model ?? SHIPPED_LOCATOR_DIR));
  }

  /** The base locator, `modelId@hash` (what every room's fit corrects). */
  get baseLabel(): string {
    return `${this.base.spec.modelId}@${this.base.hash}`;
  }

  /** Whether `environmentId`'s twin is fitted already. */
  has(environmentId: string): boolean {
    return this.fitted.has(environmentId);
  }

  /** The locator directory for `scenario`'s environment, fitting its twin the first time. */
  directoryFor(scenario: Scenario): string {
    const known = this.fitted.get(scenario.environmentId);
    if (known) return known.directory;
    const started = Date.now();
    const environment = environmentFromScenario(scenario as never);
    const reference = referenceForEnvironment(environment, [simulateReference(sim as never, scenario as never)]);
    const { spec, record } = fitTwinCount(sim, environment, reference, this.base, { sessions: this.sessions });
    const directory = path.join(this.folder, environment.id);
    mkdirSync(directory, { recursive: true });
    writeLocatorModel(directory, spec);
    const written = loadLocatorModel(directory);
    this.fitted.set(environment.id, { directory, room: describe(record, written, (Date.now() - started) / 1000) });
    return directory;
  }

  /** Every environment fitted so far, in the order they were fitted. */
  rooms(): RoomTwinLocator[] {
    return [...this.fitted.values()].map((f) => f.room);
  }

  /** Remove the written locators. */
  dispose(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

function describe(record: TwinCountRecord, written: LocatorModel, wallSeconds: number): RoomTwinLocator {
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return {
    environmentId: record.environmentId,
    modelId: written.spec.modelId,
    hash: written.hash,
    countBias: record.countBias.map(round),
    birthAboveNoise: record.birthAboveNoise,
    twinCountAccuracy: { before: round(record.twinCountAccuracy.before), after: round(record.twinCountAccuracy.after) },
    cpuSeconds: Math.round(record.cpuSeconds * 10) / 10,
    wallSeconds: Math.round(wallSeconds * 10) / 10,
  };
}
