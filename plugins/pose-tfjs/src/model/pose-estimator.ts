import type { CsiWindow, PoseFrame, Provenance } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import { SLOT_SIZE } from './contract.js';
import type { EnvironmentGeometry } from './environment.js';
import { linkIndexOf, sampleSizes, validateWindow, writeGeometryFeatures, writeLinkFeatures } from './features.js';
import { toPersons, type DensePoseMode } from './persons.js';
import type { PoseModel } from './pose-model.js';
import { decodeSlots } from './targets.js';

/** The windows of every link of one environment at one instant, ready for the model. */
export interface AssembledSample {
  environment: EnvironmentGeometry;
  /** Windows in the environment's link order. */
  windows: CsiWindow[];
}

/** Options of a pose estimator. */
export interface PoseEstimatorOptions {
  /** Windows of different links belong to one instant when their end times differ by at most this (ms). */
  syncToleranceMs?: number;
  densePose?: DensePoseMode;
  /** Override the model's presence threshold. */
  presenceThreshold?: number;
  /** 'realtime', 'job', 'batch'... written into PoseFrame metadata. */
  processingMode?: string;
}

/**
 * Framework-free core of the `pose.estimate` node: gathers one window per link of an
 * environment into a sample, runs samples through the model in batches, and turns the
 * output into PoseFrames with model id, weights hash and provenance.
 */
export class PoseEstimator {
  private readonly environments = new Map<string, EnvironmentGeometry>();
  /** Per environment, the instants still waiting for windows, oldest first. */
  private readonly pending = new Map<string, PendingInstant[]>();
  private readonly frameIds = new Map<string, number>();
  /** Windows dropped because their partner links never arrived in time. */
  staleWindows = 0;

  constructor(readonly model: PoseModel, environments: readonly EnvironmentGeometry[], private readonly options: PoseEstimatorOptions = {}) {
    for (const e of environments) this.environments.set(e.id, e);
  }

  /** Add or replace an environment's geometry. */
  setEnvironment(environment: EnvironmentGeometry): void {
    this.environments.set(environment.id, environment);
    this.pending.delete(environment.id);
  }

  /**
   * Take one window; returns a complete sample when this window completes its instant's set.
   * Windows join the pending instant whose time is within `syncToleranceMs` of theirs (windows cut
   * on a time grid share it exactly), so a link's late window still completes its own instant
   * rather than a later one. Up to `MAX_PENDING_INSTANTS` instants wait; when one completes, the
   * older incomplete ones are dropped (their windows counted stale), so frames come out in order.
   */
  push(window: CsiWindow): AssembledSample | null {
    const environment = this.environments.get(window.environmentId);
    if (!environment) throw PoseErrors.environmentUnknown(window.environmentId);
    validateWindow(window, this.model.spec);
    const index = linkIndexOf(environment, window);
    if (index < 0) throw PoseErrors.windowInvalid(`link ${window.link.tx}→${window.link.rx} is not a link of environment ${environment.id}`);
    let instants = this.pending.get(environment.id);
    if (!instants) this.pending.set(environment.id, (instants = []));
    const tolerance = this.options.syncToleranceMs ?? 100;
    let instant = instants.find((p) => Math.abs(p.time - window.time) <= tolerance);
    if (!instant) {
      instant = { time: window.time, slots: new Array(environment.links.length).fill(undefined) };
      instants.push(instant);
      instants.sort((x, y) => x.time - y.time);
      while (instants.length > MAX_PENDING_INSTANTS) {
        const oldest = instants.shift()!;
        this.staleWindows += countWindows(oldest);
        if (oldest === instant) {
          this.staleWindows++;
          return null;
        }
      }
    }
    if (instant.slots[index]) this.staleWindows++;
    instant.slots[index] = window;
    if (instant.slots.some((w) => !w)) return null;
    const at = instants.indexOf(instant);
    for (const older of instants.splice(0, at + 1).slice(0, at)) this.staleWindows += countWindows(older);
    return { environment, windows: instant.slots as CsiWindow[] };
  }

  /** Run the model on samples in one batch; one PoseFrame per sample. */
  estimate(samples: readonly AssembledSample[]): PoseFrame[] {
    if (samples.length === 0) return [];
    const started = performance.now();
    const spec = this.model.spec;
    const sizes = sampleSizes(spec);
    const csi = new Float32Array(samples.length * sizes.csi);
    const geometry = new Float32Array(samples.length * sizes.geometry);
    samples.forEach((s, i) => {
      s.windows.forEach((w, link) => writeLinkFeatures(w, link, spec, csi, i * sizes.csi));
      writeGeometryFeatures(s.environment, spec, geometry, i * sizes.geometry);
    });
    const output = this.model.predict(csi, geometry, samples.length, Math.max(1, samples.length));
    const elapsed = performance.now() - started;
    const threshold = this.options.presenceThreshold ?? spec.output.presenceThreshold;
    return samples.map((s, i) => {
      const decoded = decodeSlots(output, i * spec.output.maxPersons * SLOT_SIZE, spec.output.maxPersons, s.environment);
      const frameId = (this.frameIds.get(s.environment.id) ?? 0) + 1;
      this.frameIds.set(s.environment.id, frameId);
      const last = s.windows.reduce((a, b) => (b.time > a.time ? b : a));
      const provenance = worstProvenance(s.windows.map((w) => w.provenance));
      const frame: PoseFrame = {
        timestamp: last.time,
        frameId,
        environmentId: s.environment.id,
        processingTimeMs: elapsed / samples.length,
        persons: toPersons(decoded, s.environment, threshold, this.options.densePose ?? 'parts'),
        metadata: {
          modelId: spec.modelId,
          modelHash: this.model.hash,
          modelVersion: spec.version,
          processingMode: this.options.processingMode ?? 'realtime',
          provenance,
          csiQuality: null,
          linkCount: s.windows.length,
          pipeline: `${[...new Set(s.windows.flatMap((w) => w.features))].join(' → ')} → ${spec.modelId}@${this.model.hash.slice(0, 12)}${this.options.densePose === 'none' ? '' : ' → dense pose derived from skeleton'}`,
        },
      };
      const truth = s.windows.find((w) => w.truth)?.truth;
      if (truth) frame.truth = truth;
      return frame;
    });
  }
}

/** Instants of one environment that may wait for their windows at once. */
const MAX_PENDING_INSTANTS = 4;

/** One instant of an environment waiting for the windows of all its links. */
interface PendingInstant {
  time: number;
  /** Windows in the environment's link order. */
  slots: (CsiWindow | undefined)[];
}

function countWindows(instant: PendingInstant): number {
  return instant.slots.filter(Boolean).length;
}

/** A frame built from mixed inputs carries the least "live" provenance among them (simulated > replay > live). */
export function worstProvenance(values: Iterable<Provenance>): Provenance {
  const seen = new Set(values);
  if (seen.has('simulated')) return 'simulated';
  if (seen.has('replay')) return 'replay';
  return 'live';
}
