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
import { BucketScorer, trueVisits, type BucketFigures } from './scoring.js';
import { EMPTY_ROOM_CONDITIONS, emptiedScenario, EmptyRoomTally, type EmptyRoomCondition, type EmptyRoomRow } from './empty-rooms.js';

/** The example scenarios folder of the repository (the shop). */
export const EXAMPLE_SCENARIOS_DIR = fileURLToPath(new URL('../../../examples/scenarios/', import.meta.url));

/** How much one evaluation simulates. */
export interface EvaluationSize {
  rooms: number;
  crossingRooms: number;
  crossingSeconds: number;
  shopSeconds: number;
  emptyRooms: number;
  /** Seconds simulated per test room (and per emptied room unless `emptySeconds`); absent: the recipe's session length. */
  roomSeconds?: number;
  /** Seconds each emptied room is simulated; absent: `roomSeconds`. */
  emptySeconds?: number;
}

/**
 * How much is simulated: full, `--small` (what CI runs), and `tiny`, seconds of each part
 * only, which checks that the chain runs and the report is shaped (its figures mean nothing:
 * scoring starts after WARM_UP_SECONDS of track).
 */
export const EVALUATION_SIZES = {
  // 23 test rooms × 480 s = 3.07 simulated hours per condition: 0 phantoms would bound the rate at ≤ 0.98 per hour (95 %).
  full: { rooms: Infinity, crossingRooms: 3, crossingSeconds: 60, shopSeconds: 150, emptyRooms: Infinity, emptySeconds: 480 },
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
  /** `--tracker`: `tracker.track` options for every run (default: its defaults), e.g. `{ upstream_min_evidence: 0.5 }`, the opt-in held evidence; the report names them. */
  tracker?: Record<string, unknown>;
  /** `--twin-sessions`: twin sessions per room (default `TWIN_COUNT.sessions`). */
  twinSessions?: number;
  /** `--empty-seconds`: seconds each emptied room is simulated (default the size's: 480 full, 16 small). */
  emptySeconds?: number;
  /** `--installer-seconds`: seconds each room is simulated under the installer's conditions (default `emptySeconds`). */
  installerSeconds?: number;
  /** `--empty-rooms`: how many of the test rooms are emptied (default the size's: all 23 full, 2 small). */
  emptyRooms?: number;
  /** `--empty-conditions`: the conditions measured (default all of `EMPTY_ROOM_CONDITIONS`); a row not measured reports 0 rooms and a null bound. */
  emptyConditions?: readonly EmptyRoomCondition[];
  /** Folder holding shop-monitored.yaml. */
  scenariosDir?: string;
  onProgress?(line: string): void;
  /**
   * Told once, before any room is simulated, how much simulated time the run holds (the empty-room
   * part of a full run is hours): the CLI writes it to stderr, with `--json` too.
   */
  onPlan?(line: string): void;
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
  emptyRoom: EmptyRoomReport;
  /** Present with `--tracker` only: the `tracker.track` options every run used. */
  tracker?: Record<string, unknown>;
  /** Present with `twinFit` only: the base corrected, and per environment the locator its runs used and what its twin cost. */
  twinFit?: {
    base: string;
    sessions: number;
    cpuSeconds: number;
    wallSeconds: number;
    rooms: Array<RoomTwinLocator & { framesCarried: string }>;
  };
}

/**
 * Phantoms of the emptied test rooms (docs/model.md): the rooms `as-drawn` (the row issue 21's
 * goal is read on), and in `installer` the same rooms with the installer's conditions.
 */
export type EmptyRoomReport = EmptyRoomRow & { installer: EmptyRoomRow[] };

/** The JSON report of `wiflow eval-e2e --empty-only`: the empty-room part alone. */
export interface EmptyRoomsOnlyReport {
  estimator: string;
  hash: string;
  profile: string;
  split: string;
  size: EvaluationSizeName;
  seconds: number;
  emptyRoom: EmptyRoomReport;
  /** Present with `--tracker` only: the `tracker.track` options every run used. */
  tracker?: Record<string, unknown>;
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
  return withContext(runtime, options, async (context) => {
    options.onPlan?.(describeEvaluationPlan(context, false));
    const { size, profile, split, sessions, progress, runIn } = context;
    const dir = options.scenariosDir ?? EXAMPLE_SCENARIOS_DIR;
    const roomSeconds = size.roomSeconds ?? context.recipeSeconds;
    const scorer = new BucketScorer();
    const rooms = new Set<string>();
    for (const [i, session] of sessions.entries()) {
      progress(`room ${i + 1}/${sessions.length}: ${session.sessionId}`);
      const scenario = applyEvaluationProfile(session.scenario, profile);
      const run = await runIn(scenario, roomSeconds);
      scorer.addSession(run.frames);
      rooms.add(scenario.environmentId);
    }

    const scores = [];
    for (const [i, session] of sessions.slice(0, size.crossingRooms).entries()) {
      progress(`three people crossing, room ${i + 1}/${Math.min(size.crossingRooms, sessions.length)} (${size.crossingSeconds} s)`);
      const crossing = applyEvaluationProfile(threePeopleCrossing(session.scenario), profile);
      const run = await runIn(crossing, size.crossingSeconds);
      scores.push(scoreTracking(run.frames.filter((f) => f.truth)));
    }
    const tracking = combineScores(scores);

    progress(`shop (${size.shopSeconds} s)`);
    const shop = applyEvaluationProfile(loadScenario(path.join(dir, 'shop-monitored.yaml')), profile);
    const shopRun = await runIn(shop, size.shopSeconds, shop.zones);

    const emptyRoom = await measureEmptyRooms(context);
    const found = context.label();
    const round = (v: number) => Math.round(v * 1e4) / 1e4;
    return {
      estimator: found.estimator,
      hash: found.hash,
      profile: profile.name,
      split,
      small: context.sizeName === 'small',
      ...(context.sizeName === 'tiny' ? { size: 'tiny' as const } : {}),
      rooms: rooms.size,
      seconds: context.elapsed(),
      people: scorer.figures(),
      tracking: { idf1: round(tracking.idf1), mota: round(tracking.mota), idSwitches: tracking.idSwitches, trackIds: tracking.trackIds, rooms: scores.length, simulatedSeconds: scores.length * size.crossingSeconds },
      retail: { visitorsTrue: trueVisits(shopRun.frames, 300), visitorsCounted: shopRun.retail?.metrics.traffic.total_visitors ?? 0, scenario: 'shop-monitored', simulatedSeconds: size.shopSeconds },
      emptyRoom,
      ...(context.twins ? { twinFit: twinReport(context.twins, context.carried) } : {}),
      ...(options.tracker ? { tracker: options.tracker } : {}),
    };
  });
}

/**
 * The empty-room part of `evaluateEndToEnd` alone (`wiflow eval-e2e --empty-only`): the same
 * test rooms emptied for `emptySeconds` each, as drawn and under the installer's conditions, for
 * measuring the phantom rate over simulated hours without the rest of the evaluation.
 */
export async function evaluateEmptyRooms(runtime: Runtime, options: EndToEndOptions = {}): Promise<EmptyRoomsOnlyReport> {
  return withContext(runtime, options, async (context) => {
    options.onPlan?.(describeEvaluationPlan(context, true));
    const emptyRoom = await measureEmptyRooms(context);
    const found = context.label();
    return { estimator: found.estimator, hash: found.hash, profile: context.profile.name, split: context.split, size: context.sizeName, seconds: context.elapsed(), emptyRoom, ...(options.tracker ? { tracker: options.tracker } : {}) };
  });
}

/** The empty-room part's rooms, conditions and seconds per room, from the options and the size. */
function emptyRoomPlan(context: Pick<EvaluationContext, 'options' | 'size' | 'sessions' | 'recipeSeconds'>) {
  const { options, size } = context;
  const emptySeconds = options.emptySeconds ?? size.emptySeconds ?? size.roomSeconds ?? context.recipeSeconds;
  const installerSeconds = options.installerSeconds ?? emptySeconds;
  const chosen = new Set(options.emptyConditions ?? EMPTY_ROOM_CONDITIONS);
  const sessions = context.sessions.slice(0, options.emptyRooms ?? size.emptyRooms);
  const seconds = sessions.length * [...chosen].reduce((sum, c) => sum + (c === 'as-drawn' ? emptySeconds : installerSeconds), 0);
  return { emptySeconds, installerSeconds, chosen, sessions, seconds };
}

/** One line: the simulated time a run holds, people and empty rooms apart, and how to shorten the empty part. */
export function describeEvaluationPlan(context: Pick<EvaluationContext, 'options' | 'size' | 'sessions' | 'recipeSeconds'>, emptyOnly: boolean): string {
  const { size } = context;
  const empty = emptyRoomPlan(context);
  const hours = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${Math.round(s / 60)} min` : `${s} s`);
  const roomSeconds = size.roomSeconds ?? context.recipeSeconds;
  const crossing = Math.min(size.crossingRooms, context.sessions.length);
  const people = context.sessions.length * roomSeconds + crossing * size.crossingSeconds + size.shopSeconds;
  const emptyPart = `${empty.sessions.length} emptied room(s) × ${[...empty.chosen].join(', ')} (${empty.emptySeconds} s as drawn${empty.chosen.size > (empty.chosen.has('as-drawn') ? 1 : 0) ? `, ${empty.installerSeconds} s per installer condition` : ''}): ${hours(empty.seconds)} of simulated empty room`;
  const shorten = empty.seconds > 3600 ? '; for the people figures alone pass --empty-seconds 16 --empty-conditions as-drawn' : '';
  return emptyOnly ? `eval-e2e plan: ${emptyPart}` : `eval-e2e plan: ${context.sessions.length} room(s) with people, ${crossing} crossing and the shop: ${hours(people)} simulated; then ${emptyPart}${shorten}`;
}

/** What every part of an evaluation shares: its size, profile and test sessions, and the runner that notes which locator ran. */
interface EvaluationContext {
  options: EndToEndOptions;
  sizeName: EvaluationSizeName;
  size: EvaluationSize;
  profile: ReturnType<typeof parseProfile>;
  split: 'test' | 'val';
  /** The recipe's sessions of `split`, as many as the size takes. */
  sessions: ReturnType<typeof planDataset>['sessions'];
  recipeSeconds: number;
  twins: RoomTwinLocators | null;
  /** The locator each environment's frames carried (id@hash), to report which one ran. */
  carried: Map<string, string>;
  progress(line: string): void;
  /** Run the end-to-end flow over a scenario with the environment's locator, noting the label its frames carry. */
  runIn(scenario: Scenario, seconds: number, zones?: Scenario['zones']): ReturnType<typeof runEndToEnd>;
  /** The estimator id and hash the frames carried; an error if no run emitted a frame. */
  label(): { estimator: string; hash: string };
  /** Seconds since the evaluation started, to a tenth. */
  elapsed(): number;
}

/** Check the options, set up the context (fitting room twins with `twinFit`), run `body`, and release the twins. */
async function withContext<T>(runtime: Runtime, options: EndToEndOptions, body: (context: EvaluationContext) => Promise<T>): Promise<T> {
  const started = Date.now();
  const sizeName: EvaluationSizeName = options.size ?? (options.small ? 'small' : 'full');
  const profile = parseProfile(options.profile ?? 'recipe'); // an unknown profile fails before any twin is fitted
  const split = options.split ?? 'test';
  if (split !== 'test' && split !== 'val') throw EvaluationErrors.optionsInvalid(`split must be test or val, got ${JSON.stringify(split)}`);
  for (const [what, value] of [['empty', options.emptySeconds], ['installer', options.installerSeconds]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw EvaluationErrors.optionsInvalid(`${what} seconds must be a number > 0, got ${String(value)}`);
  }
  const unknown = (options.emptyConditions ?? []).filter((c) => !EMPTY_ROOM_CONDITIONS.includes(c));
  if (unknown.length || options.emptyConditions?.length === 0) throw EvaluationErrors.optionsInvalid(`empty-room conditions must be among ${EMPTY_ROOM_CONDITIONS.join(', ')}, got ${JSON.stringify(options.emptyConditions)}`);
  if (options.emptyRooms !== undefined && !(Number.isInteger(options.emptyRooms) && options.emptyRooms > 0)) throw EvaluationErrors.optionsInvalid(`empty rooms must be a whole number > 0, got ${String(options.emptyRooms)}`);
  // A model directory that cannot be loaded fails here, naming it, before any room is simulated.
  const general = options.model === undefined ? undefined : loadLocatorModel(path.resolve(options.model)).directory;
  const twinSessions = options.twinSessions ?? TWIN_COUNT.sessions;
  if (options.twinFit && (!Number.isInteger(twinSessions) || twinSessions < 1)) throw EvaluationErrors.optionsInvalid(`twin sessions must be a whole number ≥ 1, got ${String(twinSessions)}`);
  const twins = options.twinFit ? new RoomTwinLocators(general, twinSessions) : null;
  try {
    const size: EvaluationSize = EVALUATION_SIZES[sizeName];
    const progress = options.onProgress ?? (() => {});
    // Each room's own twin-fitted locator with --twin-fit, else the one general locator.
    const modelFor = (scenario: Scenario) => {
      if (!twins) return general;
      if (!twins.has(scenario.environmentId)) progress(`fitting the twin of ${scenario.environmentId} (once per room)`);
      return twins.directoryFor(scenario);
    };
    const carried = new Map<string, string>();
    let label: { estimator: string; hash: string } | null = null;
    // The rooms the pose network and the locator hold out: the shipped network's recipe (the locator was fitted on its training rooms).
    const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
    const plan = planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
    return await body({
      options,
      sizeName,
      size,
      profile,
      split,
      sessions: plan.sessions.filter((s) => s.split === split).slice(0, size.rooms),
      recipeSeconds: recipe.secondsPerSession,
      twins,
      carried,
      progress,
      async runIn(scenario, seconds, zones) {
        const run = await runEndToEnd(runtime, scenario, seconds, zones, modelFor(scenario), options.tracker);
        const found = labelOf(run.frames);
        label ??= found;
        if (found && !carried.has(scenario.environmentId)) carried.set(scenario.environmentId, `${found.estimator}@${found.hash}`);
        return run;
      },
      label() {
        const found = label as { estimator: string; hash: string } | null;
        if (!found) throw EvaluationErrors.runFailed('every scenario', `${DEFAULT_ESTIMATOR} emitted no frame`);
        return found;
      },
      elapsed: () => Math.round((Date.now() - started) / 100) / 10,
    });
  } finally {
    twins?.dispose();
  }
}

/**
 * The test rooms emptied for the size's (or the options') seconds each, under each installer's
 * condition and as drawn. The installer's rows run first: where their phantoms come from is
 * known after a few minutes, while the rooms as drawn take the hours (a run stopped early keeps
 * its per-room progress lines).
 */
async function measureEmptyRooms(context: EvaluationContext): Promise<EmptyRoomReport> {
  const { profile, progress } = context;
  const { emptySeconds, installerSeconds, chosen, sessions } = emptyRoomPlan(context);
  const rows = new Map<EmptyRoomCondition, EmptyRoomRow>();
  for (const condition of [...EMPTY_ROOM_CONDITIONS.slice(1), 'as-drawn'] as const) {
    if (!chosen.has(condition)) continue;
    const seconds = condition === 'as-drawn' ? emptySeconds : installerSeconds;
    const tally = new EmptyRoomTally(condition, seconds);
    for (const [i, session] of sessions.entries()) {
      const empty = applyEvaluationProfile(emptiedScenario(session.scenario, condition, seconds), profile);
      const run = await context.runIn(empty, seconds);
      const phantoms = tally.addRoom(run.frames, session.sessionId, empty.environmentId);
      const where = phantoms.map((p) => `track ${p.trackId} at ${p.atSeconds} s for ${p.shownSeconds} s, (${p.position.x}, ${p.position.y})${p.distractors.length ? `, nearest ${p.distractors[0].id} ${p.distractors[0].distanceM} m${p.distractors[0].active ? ' moving' : ''}` : ''}`);
      const row = tally.row();
      progress(`empty room ${i + 1}/${sessions.length} (${condition}, ${seconds} s): ${session.sessionId}: ${phantoms.length} phantom(s)${where.length ? ` [${where.join('; ')}]` : ''}; so far ${row.falseTracks} in ${row.simulatedSeconds} s`);
    }
    rows.set(condition, tally.row());
  }
  const asDrawn = rows.get('as-drawn') ?? new EmptyRoomTally('as-drawn', emptySeconds).row();
  return { ...asDrawn, installer: EMPTY_ROOM_CONDITIONS.slice(1).flatMap((c) => rows.get(c) ?? []) };
}

/** What `--twin-fit` fitted: per environment, the locator written and the one its frames carried (they must agree). */
function twinReport(twins: RoomTwinLocators, carried: ReadonlyMap<string, string>): NonNullable<EndToEndReport['twinFit']> {
  const rooms = twins.rooms().map((room) => ({ ...room, framesCarried: carried.get(room.environmentId) ?? '' }));
  const sum = (values: number[]) => Math.round(values.reduce((a, v) => a + v, 0) * 10) / 10;
  return { base: twins.baseLabel, sessions: twins.sessions, cpuSeconds: sum(rooms.map((r) => r.cpuSeconds)), wallSeconds: sum(rooms.map((r) => r.wallSeconds)), rooms };
}
