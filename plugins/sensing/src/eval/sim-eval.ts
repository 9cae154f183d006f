import type { SensingFrame } from '@wiflow/core';
import { Simulator } from '@wiflow/plugin-sim';
import { SensingConfigSchema, sensingConfigHash, type SensingConfig, type SensingModels } from '../config.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';
import { fitLogistic, predictLogistic, type LogisticModel } from '../model/logistic.js';
import { combineRoomSecond } from '../room.js';
import { FALL_FEATURES, LinkSensor, MOTION_FEATURES, motionInputs, type FallCandidate } from '../signal/link-sensor.js';
import { median } from '../median.js';
import { EmptyRoomReferenceRecorder, type LinkReference } from '../signal/empty-room-reference.js';
import { SIM_SIZES, simSessions, type SimSession, type SimSplit } from './sim-sessions.js';

/** A truth fall (or fall-like movement) of a session, in seconds from its start. */
interface TruthWindow {
  start: number;
  end: number;
  kind: string;
}

/** What one session gave: the room's seconds, the truth per second, and (when fitting) the links' features. */
export interface SimSessionRun {
  session: SimSession;
  room: SensingFrame[];
  /** Every link's frames (pilots read which link gave which line). */
  links: SensingFrame[];
  /** Per second from the start: someone present, someone moving (mean keypoint speed ≥ 0.2 m/s). */
  present: boolean[];
  moving: boolean[];
  falls: TruthWindow[];
  fallLike: TruthWindow[];
  /**
   * Per second from the start: the person's true breathing rate, the mean instantaneous rate over the estimator's
   * window (the `breathingWindowSeconds` ending with the second), from the breaths the simulator drew; null when
   * nobody is present.
   */
  breathingTruth: (number | null)[];
  /** Per link and second: the motion inputs (`MOTION_FEATURES` order). */
  motionRows: { second: number; row: number[] }[];
  candidates: FallCandidate[];
}

const MOVING_SPEED = 0.2;

/**
 * Seconds of the installer's empty-room capture the simulated evaluation records before a session (`--reference`
 * rows): "leave the room for half a minute", as long as the floor's warm-up it stands in for.
 */
export const SIM_REFERENCE_SECONDS = 30;

/**
 * The installer's empty-room reference of a session's links: the simulator's reference phase of the session's
 * scenario (nobody in the room; with realism v2's drift the room as installed, with the reference capture's own
 * noise and hardware statistics, as the locator's evaluation records it: `simulateReference` in plugin-pose-tfjs),
 * `seconds` long, sensed per link.
 */
export function simulateSensingReference(session: SimSession, seconds = SIM_REFERENCE_SECONDS, config: SensingConfig = SensingConfigSchema.parse({}), models: SensingModels = DEFAULT_SENSING_MODELS): Map<string, LinkReference> {
  const recorder = new EmptyRoomReferenceRecorder(config, models);
  for (const tick of new Simulator(session.scenario, { phase: 'reference' }).run(seconds)) for (const frame of tick.frames) recorder.push(frame);
  return recorder.build();
}

/** Options of `runSimSession` beyond the models and config. */
export interface SimSessionOptions {
  /** Record the installer's empty-room reference first (`simulateSensingReference`) and sense the session with it. */
  reference?: boolean;
}

/**
 * The scripted falls and fall-like movements of one simulated session, as windows in seconds since `startMs`,
 * read from the simulator's truth events (`fall_start`/`fall_end`, `fall_like_start`/`fall_like_end`).
 */
export class FallTruth {
  readonly falls: TruthWindow[] = [];
  readonly fallLike: TruthWindow[] = [];
  #open = new Map<string, number>();
  constructor(readonly startMs: number) {}

  /** Read one tick's truth events. */
  add(events: readonly { time: number; type: string; detail?: Record<string, unknown> }[]): void {
    for (const e of events) {
      const at = (e.time - this.startMs) / 1000;
      if (e.type === 'fall_start' || e.type === 'fall_like_start') this.#open.set(e.type, at);
      if (e.type === 'fall_end') this.falls.push({ start: this.#open.get('fall_start') ?? at, end: at, kind: String(e.detail?.fallType ?? '') });
      if (e.type === 'fall_like_end') this.fallLike.push({ start: this.#open.get('fall_like_start') ?? at, end: at, kind: String(e.detail?.kind ?? '') });
    }
  }
}

/** Simulate one session and sense it end to end (CSI frames in, room sensing frames out); `config` overrides the default sensing settings (pilots). */
export function runSimSession(session: SimSession, models: SensingModels = DEFAULT_SENSING_MODELS, config: SensingConfig = SensingConfigSchema.parse({}), options: SimSessionOptions = {}): SimSessionRun {
  const configHash = sensingConfigHash(config, models);
  const references = options.reference ? simulateSensingReference(session, SIM_REFERENCE_SECONDS, config, models) : null;
  const sim = new Simulator(session.scenario);
  const start = sim.startTimeMs;
  const sensors = new Map<string, LinkSensor>();
  const links: SensingFrame[] = [];
  const motionRows: SimSessionRun['motionRows'] = [];
  const candidates: FallCandidate[] = [];
  const speed: number[] = [];
  const present: boolean[] = [];
  const fallTruth = new FallTruth(start);
  const { falls, fallLike } = fallTruth;
  let previous: number[][] | null = null;
  let previousT = 0;
  for (const tick of sim.run(session.seconds)) {
    const t = (tick.truth.time - start) / 1000;
    const second = Math.floor(t);
    const person = tick.truth.persons[0];
    if (person) {
      present[second] = true;
      if (previous && t > previousT) {
        let sum = 0;
        for (let k = 0; k < person.keypoints3d.length; k++) sum += Math.hypot(person.keypoints3d[k][0] - previous[k][0], person.keypoints3d[k][1] - previous[k][1], person.keypoints3d[k][2] - previous[k][2]);
        speed[second] = Math.max(speed[second] ?? 0, sum / person.keypoints3d.length / (t - previousT));
      }
      previous = person.keypoints3d;
    } else {
      present[second] ||= false;
      previous = null;
    }
    previousT = t;
    fallTruth.add(tick.truth.events);
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, {
          environmentId: session.scenario.environmentId, config, models, configHash, reference: references?.get(key) ?? null,
          onMotionFeatures: (s, f) => motionRows.push({ second: s, row: motionInputs(f) }),
          onFallCandidate: (c) => candidates.push(c),
        });
        sensors.set(key, sensor);
      }
      for (const f of sensor.push(frame)) links.push(f);
    }
  }
  for (const sensor of sensors.values()) for (const f of sensor.finish()) links.push(f);
  const bySecond = new Map<number, SensingFrame[]>();
  for (const f of links) bySecond.set(f.second, [...(bySecond.get(f.second) ?? []), f]);
  const room = [...bySecond.keys()].sort((a, b) => a - b).map((s) => combineRoomSecond(bySecond.get(s)!));
  for (const c of candidates) c.second = (c.time - start) / 1000;
  const seconds = Math.ceil(session.seconds);
  const moving = Array.from({ length: seconds }, (_, s) => (speed[s] ?? 0) >= MOVING_SPEED);
  const personId = session.scenario.people[0]?.id;
  const window = config.breathingWindowSeconds;
  const breathingTruth = Array.from({ length: seconds }, (_, s) => (present[s] && personId !== undefined ? sim.breathingRateBetween(personId, Math.max(0, s + 1 - window), s + 1) : null));
  return { session, room, links, present: Array.from({ length: seconds }, (_, s) => present[s] ?? false), moving, falls, fallLike, breathingTruth, motionRows, candidates };
}

/** A fall found by the sensing matches a truth fall when its peak is within this window around the truth (s). */
const FALL_MATCH = { before: 2, after: 3 };

const matches = (t: number, w: TruthWindow) => t >= w.start - FALL_MATCH.before && t <= w.end + FALL_MATCH.after;

/** One figure of the simulated evaluation. */
export interface SimResult {
  name: string;
  value: number | null;
  goal: string;
  met: boolean | null;
  detail: string;
}

/** What `evaluateSim` measured. */
export interface SimEvaluation {
  split: SimSplit;
  small: boolean;
  rooms: number;
  sessions: number;
  simulatedSeconds: number;
  results: SimResult[];
  /** The models that were scored (the shipped ones, or with `fit` the ones fitted on the training rooms). */
  models: SensingModels;
  /** Whether the sessions were sensed with the installer's empty-room reference. */
  reference: boolean;
}

const DAY = 86_400;

/** A rate further than this from the truth is a wrong line (the issue's tolerance on real takes). */
const WRONG_LINE_BPM = 2;

/** Score runs of one split against the simulator's truth. */
export function scoreSimRuns(runs: SimSessionRun[]): SimResult[] {
  const startOf = (run: SimSessionRun) => (run.room.length ? run.room[0].time - (run.room[0].second + 1) * 1000 : 0);
  // Still person present: every second of a still session from 10 s on (the link locks its packet kind first).
  let stillSeconds = 0;
  let stillFound = 0;
  const stillMisses: string[] = [];
  const bpmErrors: number[] = [];
  let rated = 0;
  let stillOnly = 0;
  let wrong = 0;
  for (const run of runs.filter((r) => r.session.kind === 'still')) {
    let missed = 0;
    const errors: number[] = [];
    for (const f of run.room) {
      if (f.second < 10 || !run.present[f.second]) continue;
      stillSeconds++;
      if (f.presence) stillFound++;
      else missed++;
      if (!run.moving[f.second] && f.second >= 30) {
        stillOnly++;
        if (f.breathingBpm !== null) {
          rated++;
          const error = Math.abs(f.breathingBpm - (run.breathingTruth[f.second] ?? NaN));
          errors.push(error);
          if (!(error <= WRONG_LINE_BPM)) wrong++;
        }
      }
    }
    if (missed) stillMisses.push(`room ${run.session.room} ${run.session.detail}: ${missed} s missed`);
    if (errors.length) bpmErrors.push(median(errors)!);
  }
  // Empty room with distractors: episodes of presence (a run of present seconds counts once).
  let emptySeconds = 0;
  let episodes = 0;
  let presentSeconds = 0;
  for (const run of runs.filter((r) => r.session.kind === 'empty')) {
    let was = false;
    for (const f of run.room) {
      if (f.second < 10) continue;
      emptySeconds++;
      if (f.presence) presentSeconds++;
      if (f.presence && !was) episodes++;
      was = f.presence;
    }
  }
  // Leaving: seconds still read present after the person has gone (from 5 s after, the motion window), per session.
  const afterLeaving: number[] = [];
  for (const run of runs.filter((r) => r.session.kind === 'leave')) {
    const left = run.present.findLastIndex((p) => p) + 1;
    afterLeaving.push(run.room.filter((f) => f.second >= left + 5 && f.presence).length);
  }
  afterLeaving.sort((a, b) => a - b);
  const walkIn = scoreWalkIns(runs.filter((r) => r.session.kind === 'walk-in'));
  // Falls: a truth fall is found when a room fall lies within its window; every other room fall is a false alarm
  // (the leaving and walk-in sessions, added for presence, are left out so the falls figures keep their sessions).
  let fallsTotal = 0;
  let fallsFound = 0;
  let falseAlarms = 0;
  let totalSeconds = 0;
  const missedFalls: string[] = [];
  const alarmsBy = new Map<string, number>();
  for (const run of runs.filter((r) => r.session.kind !== 'leave' && r.session.kind !== 'walk-in')) {
    totalSeconds += run.room.length;
    const start = startOf(run);
    const raised = run.room.flatMap((f) => f.falls.map((x) => (x.time - start) / 1000));
    for (const w of run.falls) {
      fallsTotal++;
      if (raised.some((t) => matches(t, w))) fallsFound++;
      else missedFalls.push(`room ${run.session.room} ${w.kind}`);
    }
    for (const t of raised) {
      if (run.falls.some((w) => matches(t, w))) continue;
      falseAlarms++;
      const label = run.session.kind === 'fall-like' ? run.session.detail : run.session.kind;
      alarmsBy.set(label, (alarmsBy.get(label) ?? 0) + 1);
    }
  }
  const recall = stillSeconds ? stillFound / stillSeconds : null;
  const perDay = emptySeconds ? (episodes / emptySeconds) * DAY : null;
  const sensitivity = fallsTotal ? fallsFound / fallsTotal : null;
  const alarmsPerDay = totalSeconds ? (falseAlarms / totalSeconds) * DAY : null;
  const bpmError = median(bpmErrors);
  const stillRuns = runs.filter((r) => r.session.kind === 'still').length;
  const r3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
  return [
    { name: 'still person present: recall', value: r3(recall), goal: '≥ 0.99', met: recall === null ? null : recall >= 0.99, detail: `${stillFound}/${stillSeconds} s; ${stillMisses.join('; ') || 'no miss'}` },
    { name: 'empty room with distractors: false presence per day', value: r3(perDay), goal: '≤ 1', met: perDay === null ? null : perDay <= 1, detail: `${episodes} episodes (${presentSeconds} present s) in ${emptySeconds} s` },
    { name: 'after leaving: present seconds per session (median)', value: median(afterLeaving), goal: 'none set', met: null, detail: `from 5 s after the person left, ${afterLeaving.length} sessions: ${afterLeaving.join(', ')} s` },
    { name: 'walk-in after the warm-up: recall from arrival', value: r3(walkIn.recall), goal: '≥ 0.99', met: walkIn.recall === null ? null : walkIn.recall >= 0.99, detail: `${walkIn.found}/${walkIn.seconds} s the person is in the room, from ${WALK_IN_GRACE_SECONDS} s after arrival; ${walkIn.sessions} sessions; ${walkIn.missDetail.join('; ') || 'no miss'}` },
    { name: 'walk-in after the warm-up: people never found (share)', value: walkIn.sessions ? r3(walkIn.neverFound.length / walkIn.sessions) : null, goal: 'none set', met: null, detail: `${walkIn.neverFound.length}/${walkIn.sessions} sessions with no present second from arrival on${walkIn.neverFound.length ? `: ${walkIn.neverFound.join(', ')}` : ''}` },
    { name: 'walk-in after the warm-up: seconds from arrival to presence (median)', value: median(walkIn.latencies), goal: 'none set', met: null, detail: `first present second at or after arrival, over the ${walkIn.latencies.length} sessions where the person is found: ${walkIn.latencies.join(', ') || 'none'} s${walkIn.presentAtArrival ? `; ${walkIn.presentAtArrival} already present at arrival (a false presence held over)` : ''}` },
    { name: 'walk-in: empty lead-in before arrival: false presence per day', value: r3(walkIn.emptyPerDay), goal: '≤ 1', met: walkIn.emptyPerDay === null ? null : walkIn.emptyPerDay <= 1, detail: `${walkIn.episodes} episodes (${walkIn.emptyPresent} present s) in ${walkIn.emptySeconds} s of empty room (from 10 s to arrival, the room's fan in every other room); not counted into the empty-room row` },
    { name: 'falls: sensitivity', value: r3(sensitivity), goal: '≥ 0.90', met: sensitivity === null ? null : sensitivity >= 0.9, detail: `${fallsFound}/${fallsTotal}; missed ${missedFalls.join(', ') || 'none'}` },
    { name: 'falls: false alarms per day', value: r3(alarmsPerDay), goal: '≤ 1', met: alarmsPerDay === null ? null : alarmsPerDay <= 1, detail: `${falseAlarms} in ${totalSeconds} s (${[...alarmsBy].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'})` },
    { name: 'breathing of a still person: median error (bpm)', value: r3(bpmError), goal: '≤ 1', met: bpmError === null ? null : bpmError <= 1, detail: `against the true mean rate over the estimator's window; median over ${bpmErrors.length}/${stillRuns} still sessions of each one's median error; a rate in ${rated}/${stillOnly} still seconds from 30 s on` },
    { name: 'breathing: rated still seconds more than 2 bpm off (share)', value: rated ? r3(wrong / rated) : null, goal: 'none set', met: null, detail: `${wrong}/${rated} still seconds with a rate, from 30 s on` },
  ];
}

/** Seconds after a walk-in's arrival before its seconds count toward recall: an entry needs 4 moving seconds (`presenceEntryMovingSeconds`) and the motion window is 2 s. */
export const WALK_IN_GRACE_SECONDS = 5;

/** What the walk-in sessions gave: recall from arrival, people never found, time to presence, false presence before arrival. */
interface WalkInScore {
  sessions: number;
  seconds: number;
  found: number;
  recall: number | null;
  missDetail: string[];
  neverFound: string[];
  latencies: number[];
  presentAtArrival: number;
  emptySeconds: number;
  emptyPresent: number;
  episodes: number;
  emptyPerDay: number | null;
}

/**
 * Score walk-in sessions: the person arrives at the first second the truth has them present. Recall counts the
 * room's present seconds over the seconds the person is in the room from `WALK_IN_GRACE_SECONDS` after arrival;
 * a person is never found when no second from arrival on is present; the time to presence is the first present
 * second at or after arrival minus arrival. Before arrival (from 10 s on, as the empty room) presence episodes
 * are false presence, kept apart from the empty-room sessions' figure.
 */
function scoreWalkIns(runs: SimSessionRun[]): WalkInScore {
  const score: WalkInScore = { sessions: runs.length, seconds: 0, found: 0, recall: null, missDetail: [], neverFound: [], latencies: [], presentAtArrival: 0, emptySeconds: 0, emptyPresent: 0, episodes: 0, emptyPerDay: null };
  for (const run of runs) {
    const arrival = run.present.indexOf(true);
    const label = `room ${run.session.room} ${run.session.detail}`;
    if (arrival < 0) continue;
    let was = false;
    let missed = 0;
    let first: number | null = null;
    for (const f of run.room) {
      if (f.second < arrival) {
        if (f.second < 10) continue;
        score.emptySeconds++;
        if (f.presence) score.emptyPresent++;
        if (f.presence && !was) score.episodes++;
        was = f.presence;
        continue;
      }
      if (f.presence && first === null) first = f.second;
      if (f.second < arrival + WALK_IN_GRACE_SECONDS || !run.present[f.second]) continue;
      score.seconds++;
      if (f.presence) score.found++;
      else missed++;
    }
    if (first === null) score.neverFound.push(label);
    else {
      score.latencies.push(first - arrival);
      if (first === arrival && was) score.presentAtArrival++;
    }
    if (missed) score.missDetail.push(`${label}: ${missed} s missed`);
  }
  score.latencies.sort((a, b) => a - b);
  score.recall = score.seconds ? score.found / score.seconds : null;
  score.emptyPerDay = score.emptySeconds ? (score.episodes / score.emptySeconds) * DAY : null;
  return score;
}

/** Motion feature sets the validation rooms choose from for the simulated radios. */
const [SPREAD, , SPREAD_OVER_NOISE, , , , PAIR_SPREAD, PAIR_OVER_NOISE, PAIR_OVER_FLOOR] = MOTION_FEATURES;
const SIM_MOTION_SETS = [[PAIR_OVER_FLOOR], [PAIR_OVER_FLOOR, PAIR_OVER_NOISE], [PAIR_OVER_FLOOR, PAIR_SPREAD], [PAIR_OVER_NOISE], [PAIR_SPREAD, PAIR_OVER_NOISE], [SPREAD, SPREAD_OVER_NOISE], MOTION_FEATURES];

function motionData(runs: SimSessionRun[], names: string[]): { rows: number[][]; labels: number[] } {
  const idx = names.map((n) => MOTION_FEATURES.indexOf(n));
  const rows: number[][] = [];
  const labels: number[] = [];
  for (const run of runs) for (const m of run.motionRows) {
    if (m.second < 3 || m.second >= run.moving.length) continue;
    // Label a second by the truth over the motion window (the second and the one before).
    const moving = run.moving[m.second] || run.moving[m.second - 1];
    const still = !run.moving[m.second] && !run.moving[m.second - 1] && !run.moving[m.second - 2];
    if (!moving && !still) continue;
    rows.push(idx.map((i) => m.row[i]));
    labels.push(moving ? 1 : 0);
  }
  return { rows, labels };
}

const balancedAccuracy = (model: LogisticModel, data: { rows: number[][]; labels: number[] }) => {
  const right = [0, 0];
  const count = [0, 0];
  data.rows.forEach((r, i) => {
    count[data.labels[i]]++;
    if ((predictLogistic(model, r) >= model.threshold ? 1 : 0) === data.labels[i]) right[data.labels[i]]++;
  });
  return (right[0] / Math.max(1, count[0]) + right[1] / Math.max(1, count[1])) / 2;
};

/** A candidate is a fall when its peak lies in a truth fall's window; candidates near fall-like movements and elsewhere are negatives. */
function fallData(runs: SimSessionRun[]): { rows: number[][]; labels: number[] } {
  const rows: number[][] = [];
  const labels: number[] = [];
  for (const run of runs) for (const c of run.candidates) {
    rows.push(c.features);
    labels.push(run.falls.some((w) => matches(c.second, w)) ? 1 : 0);
  }
  return { rows, labels };
}

const FALL_THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99];

/** Progress lines while simulating (the full evaluation takes minutes). */
export type SimLog = (line: string) => void;

function runAll(sessions: SimSession[], models: SensingModels, log?: SimLog, options: SimSessionOptions = {}): SimSessionRun[] {
  const runs: SimSessionRun[] = [];
  for (const s of sessions) {
    runs.push(runSimSession(s, models, SensingConfigSchema.parse({}), options));
    log?.(`  ${s.split} room ${s.room} ${s.kind} ${s.detail}: ${s.seconds} s`);
  }
  return runs;
}

/**
 * Fit the simulated radios' motion and fall models on the training rooms and choose the motion feature set
 * and the fall threshold on the validation rooms (balanced per-second accuracy; the lowest threshold
 * whose false alarms stay within 1 per simulated day, else the highest tried). The test rooms are not seen.
 * `whatIf`, when given, changes every session before it is simulated (a pilot's simulator what-if, e.g. a propagation option).
 */
export function fitSimModels(log?: SimLog, small = false, whatIf: (session: SimSession) => SimSession = (s) => s): SensingModels {
  const sizes = small ? SIM_SIZES.small : SIM_SIZES.full;
  // Fall candidates of the simulated radios come from the phase between chains (see `fallSignalByFamily`).
  const gather: SensingModels = { ...DEFAULT_SENSING_MODELS, fallSignalByFamily: { ...(DEFAULT_SENSING_MODELS.fallSignalByFamily ?? {}), sim: 'pairSpread' } };
  // The walk-in sessions (added after the models were fitted, for presence) are left out, so a refit sees the same data.
  const fitting = (s: SimSession) => s.kind !== 'walk-in';
  const train = runAll(simSessions('train', sizes).filter(fitting).map(whatIf), gather, log);
  const validation = runAll(simSessions('validation', { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) }).filter(fitting).map(whatIf), gather, log);
  let motion: LogisticModel | null = null;
  let best = -1;
  for (const names of SIM_MOTION_SETS) {
    const model = fitLogistic(names, ...Object.values(motionData(train, names)) as [number[][], number[]]);
    const score = balancedAccuracy(model, motionData(validation, names));
    log?.(`  motion ${names.join(' + ')}: validation balanced accuracy ${score.toFixed(3)}`);
    if (score > best) [motion, best] = [model, score];
  }
  const trainFalls = fallData(train);
  const fall = fitLogistic(FALL_FEATURES, trainFalls.rows, trainFalls.labels);
  const validationSeconds = validation.reduce((s, r) => s + r.session.seconds, 0);
  let threshold = FALL_THRESHOLDS[FALL_THRESHOLDS.length - 1];
  for (const t of FALL_THRESHOLDS) {
    let alarms = 0;
    let found = 0;
    let total = 0;
    for (const run of validation) {
      const kept = run.candidates.filter((c) => predictLogistic(fall, c.features) >= t);
      alarms += kept.filter((c) => !run.falls.some((w) => matches(c.second, w))).length;
      for (const w of run.falls) {
        total++;
        if (kept.some((c) => matches(c.second, w))) found++;
      }
    }
    const perDay = (alarms / validationSeconds) * DAY;
    log?.(`  fall threshold ${t}: validation sensitivity ${found}/${total}, ${perDay.toFixed(1)} false alarms per day`);
    if (perDay <= 1) {
      threshold = t;
      break;
    }
  }
  return { ...gather, motion: { ...DEFAULT_SENSING_MODELS.motion, sim: motion! }, fallByFamily: { ...(DEFAULT_SENSING_MODELS.fallByFamily ?? {}), sim: { ...fall, threshold } } };
}

/** Options of `evaluateSim`. */
export interface SimEvalOptions {
  /** The CI subset: 3 test rooms with shorter sessions. */
  small?: boolean;
  /** Which rooms to score: 'test' (the default, scored once) or 'validation' (half as many rooms, the ones `fit` chooses on; for choosing). */
  split?: 'test' | 'validation';
  /** Fit the simulated radios' models on the training rooms first (choices on validation rooms) and score those. */
  fit?: boolean;
  /** Sense every session with the installer's empty-room reference of its links (`simulateSensingReference`): the "with reference" rows. */
  reference?: boolean;
  log?: SimLog;
}

/** The sensing scored end to end on unseen simulated rooms (the test split), against the simulator's truth. */
export function evaluateSim(options: SimEvalOptions = {}): SimEvaluation {
  const sizes = options.small ? SIM_SIZES.small : SIM_SIZES.full;
  const models = options.fit ? fitSimModels(options.log, options.small) : DEFAULT_SENSING_MODELS;
  const split = options.split ?? 'test';
  const sessions = simSessions(split, split === 'validation' ? { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) } : sizes);
  const runs = runAll(sessions, models, options.log, { reference: options.reference });
  return { split, small: Boolean(options.small), reference: Boolean(options.reference), rooms: new Set(sessions.map((s) => s.room)).size, sessions: sessions.length, simulatedSeconds: sessions.reduce((s, x) => s + x.seconds, 0), results: scoreSimRuns(runs), models };
}

/** The simulated evaluation as a markdown table. */
export function formatSimEvaluation(evaluation: SimEvaluation): string[] {
  const lines = ['| measure | result | goal | met | detail |', '|---|---|---|---|---|'];
  for (const r of evaluation.results) lines.push(`| ${r.name} | ${r.value ?? 'n/a'} | ${r.goal} | ${r.met === null ? '—' : r.met ? 'yes' : '**no**'} | ${r.detail.replace(/\|/g, '/')} |`);
  return lines;
}

