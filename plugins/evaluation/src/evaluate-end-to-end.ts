import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { PoseFrame, Runtime } from '@wiflow/core';
import { DatasetRecipeSchema, loadLocatorModel, readModelSpec, SHIPPED_MODEL_DIR, TWIN_COUNT } from '@wiflow/plugin-pose-tfjs';
import { applyEvaluationProfile, loadScenario, parseProfile, planDataset, type Scenario } from '@wiflow/plugin-sim';
import { combineScores, scoreTracking } from '@wiflow/plugin-tracker';
import { DEFAULT_ESTIMATOR, runEndToEnd } from './end-to-end-flow.js';
import { EvaluationErrors } from './errors.js';
import { threePeopleCrossing } from './crossing-scenario.js';
import { RoomTwinLocators, type RoomTwinLocator } from './room-twin-locators.js';
import { BucketScorer, confirmedTracks, trueVisits, type BucketFigures } from './scoring.js';

/** The example scenarios folder of the repository (the shop). */
export const EXAMPLE_SCENARIOS_DIR = fileURLToPath(new URL('../../../examples/scenarios/', import.meta.url));

/** How much one evaluation simulates. */
export interface EvaluationSize {
  rooms: number;
  crossingRooms: number;
  crossingSeconds: number;
  shopSeconds: number;
  emptyRooms: number;
  /** Seconds simulated per test room and per emptied room; absent: the recipe's session length. */
  roomSeconds?: number;
}

/**
 * How much is simulated: full, `--small` (what CI runs), and `tiny`, seconds of each part
 * only, which checks that the chain runs and the report is shaped (its figures mean nothing:
 * scoring starts after WARM_UP_SECONDS of track).
 */
export const EVALUATION_SIZES = {
  full: { rooms: Infinity, crossingRooms: 3, crossingSeconds: 60, shopSeconds: 150, emptyRooms: Infinity },
  small: { rooms: 4, crossingRooms: 1, crossingSeconds: 30, shopSeconds: 150, emptyRooms: 2 },
  tiny: { rooms: 1, crossingRooms: 1, crossingSeconds: 3, shopSeconds: 3, emptyRooms: 1, roomSeconds: 3 },
} as const satisfies Record<string, EvaluationSize>;

/** A size's name (`EVALUATION_SIZES`). */
export type EvaluationSizeName = keyof typeof EVALUATION_SIZES;

/** Options of an end-to-end evaluation. */
export interface EndToEndOptions {
  small?: boolean;
  /** Overrides `small`: `tiny` checks the chain runs (figures mean nothing). */
  size?: EvaluationSizeName;
  /** `--profile`: hardware and placement (default `recipe`: the test rooms as drawn). */
  profile?: string;
  /** Split of the recipe's rooms: `test` (default; reported) or `val` (for choosing settings). */
  split?: 'test' | 'val';
  /** `--model`: a locator directory for the estimator instead of the shipped wiflow-locate-v2 (the frames name which ran). */
  model?: string;
  /**
   * `--twin-fit`: give each room (test rooms, their crossing and emptied runs, the shop) its own
   * locator, fitted on the room's simulated twin as `wiflow locate twin-fit` fits it, correcting
   * `model` (default: the shipped locator). Off by default.
   */
  twinFit?: boolean;
  /** `--twin-sessions`: twin sessions per room (default `TWIN_COUNT.sessions`). */
  twinSessions?: number;
  /** Folder holding shop-monitored.yaml. */
  scenariosDir?: string;
  onProgress?(line: string): void;
}

/** The JSON report of `wiflow eval-e2e --json` (keys documented in docs/model.md). */
export interface EndToEndReport {
  estimator: string;
  hash: string;
  profile: string;
  split: string;
  small: boolean;
  /** Present for the `tiny` size only, whose figures mean nothing. */
  size?: 'tiny';
  rooms: number;
  seconds: number;
  people: Record<'1' | '2' | '3' | 'all', BucketFigures>;
  tracking: { idf1: number; mota: number; idSwitches: number; trackIds: number; rooms: number; simulatedSeconds: number };
  retail: { visitorsTrue: number; visitorsCounted: number; scenario: string; simulatedSeconds: number };
  emptyRoom: { falsePeoplePerHour: number; falseTracks: number; simulatedSeconds: number };
  /** Present with `twinFit` only: the base corrected, and per environment the locator its runs used and what its twin cost. */
  twinFit?: {
    base: string;
    sessions: number;
    cpuSeconds: number;
    wallSeconds: number;
    rooms: Array<RoomTwinLocator & { framesCarried: string }>;
  };
}

/** The estimator id and hash the frames themselves carry (never taken from anywhere else). */
function labelOf(frames: readonly PoseFrame[]): { estimator: string; hash: string } | null {
  const f = frames.find((x) => x.metadata?.modelId);
  return f ? { estimator: `${f.metadata.modelId}`, hash: `${f.metadata.modelHash ?? ''}` } : null;
}

/**
 * Simulated CSI of rooms the estimator never saw → the default estimator → tracker.track →
 * retail.analytics, each run as a job of `runtime` (the flow a user would draw), scored
 * against the simulator's truth: count and floor error per true person count after 5 s of
 * track in the recipe's test rooms, IDF1 and MOTA (0.5 m) of three people crossing the first
 * of those rooms, visitors of the shop scenario, and tracks confirmed in the rooms emptied.
 */
export async function evaluateEndToEnd(runtime: Runtime, options: EndToEndOptions = {}): Promise<EndToEndReport> {
  const started = Date.now();
  const sizeName: EvaluationSizeName = options.size ?? (options.small ? 'small' : 'full');
  parseProfile(options.profile ?? 'recipe'); // an unknown profile fails before any twin is fitted
  const split = options.split ?? 'test';
  if (split !== 'test' && split !== 'val') throw EvaluationErrors.optionsInvalid(`split must be test or val, got ${JSON.stringify(split)}`);
  // A model directory that cannot be loaded fails here, naming it, before any room is simulated.
  const model = options.model === undefined ? undefined : loadLocatorModel(path.resolve(options.model)).directory;
  const twinSessions = options.twinSessions ?? TWIN_COUNT.sessions;
  if (options.twinFit && (!Number.isInteger(twinSessions) || twinSessions < 1)) throw EvaluationErrors.optionsInvalid(`twin sessions must be a whole number ≥ 1, got ${String(twinSessions)}`);
  const twins = options.twinFit ? new RoomTwinLocators(model, twinSessions) : null;
  try {
    return await evaluateWith(runtime, options, sizeName, started, twins, model);
  } finally {
    twins?.dispose();
  }
}

/** `evaluateEndToEnd` once its options are checked, with each room's locator from `twins` when given, else `general`. */
async function evaluateWith(runtime: Runtime, options: EndToEndOptions, sizeName: EvaluationSizeName, started: number, twins: RoomTwinLocators | null, general: string | undefined): Promise<EndToEndReport> {
  const size: EvaluationSize = EVALUATION_SIZES[sizeName];
  const profile = parseProfile(options.profile ?? 'recipe');
  const split = options.split ?? 'test';
  const progress = options.onProgress ?? (() => {});
  // Each room's own twin-fitted locator with --twin-fit, else the one general locator.
  const modelFor = (scenario: Scenario) => {
    if (!twins) return general;
    if (!twins.has(scenario.environmentId)) progress(`fitting the twin of ${scenario.environmentId} (once per room)`);
    return twins.directoryFor(scenario);
  };
  // The locator each environment's frames carried (id@hash), to report which one ran.
  const carried = new Map<string, string>();
  const dir = options.scenariosDir ?? EXAMPLE_SCENARIOS_DIR;
  let label: { estimator: string; hash: string } | null = null;
  const note = (frames: readonly PoseFrame[], environmentId: string) => {
    const found = labelOf(frames);
    label ??= found;
    if (found && !carried.has(environmentId)) carried.set(environmentId, `${found.estimator}@${found.hash}`);
  };

  // The rooms the pose network and the locator hold out: the shipped network's recipe (the locator was fitted on its training rooms).
  const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
  const plan = planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
  const roomSeconds = size.roomSeconds ?? recipe.secondsPerSession;
  const sessions = plan.sessions.filter((s) => s.split === split).slice(0, size.rooms);
  const scorer = new BucketScorer();
  const rooms = new Set<string>();
  for (const [i, session] of sessions.entries()) {
    progress(`room ${i + 1}/${sessions.length}: ${session.sessionId}`);
    const scenario = applyEvaluationProfile(session.scenario, profile);
    const run = await runEndToEnd(runtime, scenario, roomSeconds, undefined, modelFor(scenario));
    note(run.frames, scenario.environmentId);
    scorer.addSession(run.frames);
    rooms.add(scenario.environmentId);
  }

  const scores = [];
  for (const [i, session] of sessions.slice(0, size.crossingRooms).entries()) {
    progress(`three people crossing, room ${i + 1}/${Math.min(size.crossingRooms, sessions.length)} (${size.crossingSeconds} s)`);
    const crossing = applyEvaluationProfile(threePeopleCrossing(session.scenario), profile);
    const run = await runEndToEnd(runtime, crossing, size.crossingSeconds, undefined, modelFor(crossing));
    note(run.frames, crossing.environmentId);
    scores.push(scoreTracking(run.frames.filter((f) => f.truth)));
  }
  const tracking = combineScores(scores);

  progress(`shop (${size.shopSeconds} s)`);
  const shop = applyEvaluationProfile(loadScenario(path.join(dir, 'shop-monitored.yaml')), profile);
  const shopRun = await runEndToEnd(runtime, shop, size.shopSeconds, shop.zones, modelFor(shop));
  note(shopRun.frames, shop.environmentId);

  const emptySessions = sessions.slice(0, size.emptyRooms);
  let falseTracks = 0;
  let emptySeconds = 0;
  for (const [i, session] of emptySessions.entries()) {
    progress(`empty room ${i + 1}/${emptySessions.length}`);
    const empty: Scenario = applyEvaluationProfile({ ...session.scenario, people: [] }, profile);
    const run = await runEndToEnd(runtime, empty, roomSeconds, undefined, modelFor(empty));
    note(run.frames, empty.environmentId);
    falseTracks += confirmedTracks(run.frames);
    emptySeconds += roomSeconds;
  }

  const found = label as { estimator: string; hash: string } | null;
  if (!found) throw EvaluationErrors.runFailed('every scenario', `${DEFAULT_ESTIMATOR} emitted no frame`);
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return {
    estimator: found.estimator,
    hash: found.hash,
    profile: profile.name,
    split,
    small: sizeName === 'small',
    ...(sizeName === 'tiny' ? { size: 'tiny' as const } : {}),
    rooms: rooms.size,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    people: scorer.figures(),
    tracking: { idf1: round(tracking.idf1), mota: round(tracking.mota), idSwitches: tracking.idSwitches, trackIds: tracking.trackIds, rooms: scores.length, simulatedSeconds: scores.length * size.crossingSeconds },
    retail: { visitorsTrue: trueVisits(shopRun.frames, 300), visitorsCounted: shopRun.retail?.metrics.traffic.total_visitors ?? 0, scenario: 'shop-monitored', simulatedSeconds: size.shopSeconds },
    emptyRoom: { falsePeoplePerHour: emptySeconds ? round((falseTracks * 3600) / emptySeconds) : 0, falseTracks, simulatedSeconds: emptySeconds },
    ...(twins ? { twinFit: twinReport(twins, carried) } : {}),
  };
}

/** What `--twin-fit` fitted: per environment, the locator written and the one its frames carried (they must agree). */
function twinReport(twins: RoomTwinLocators, carried: ReadonlyMap<string, string>): NonNullable<EndToEndReport['twinFit']> {
  const rooms = twins.rooms().map((room) => ({ ...room, framesCarried: carried.get(room.environmentId) ?? '' }));
  const sum = (values: number[]) => Math.round(values.reduce((a, v) => a + v, 0) * 10) / 10;
  return { base: twins.baseLabel, sessions: twins.sessions, cpuSeconds: sum(rooms.map((r) => r.cpuSeconds)), wallSeconds: sum(rooms.map((r) => r.wallSeconds)), rooms };
}
