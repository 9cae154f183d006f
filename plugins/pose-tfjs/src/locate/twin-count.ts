import type { CsiFrame } from '@wiflow/core';
import type * as SimPackage from '@wiflow/plugin-sim';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { twinFromEnvironment } from '../room-pose/calibrate-room.js';
import { sessionScenario, type RoomPair } from '../room-pose/protocol.js';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import { hypothesesFromEvidence, PoseLocator, type PeakEvidence } from './locator.js';
import { countProbabilities, type LocatorModel, type LocatorModelSpec } from './locator-model.js';
import { PeopleTracker } from './people-tracker.js';
import type { EmptyRoomReference } from './reference.js';
import { simulateReference } from './simulated.js';

type Sim = typeof SimPackage;

/**
 * How a room's twin is simulated and the correction fitted (twincount-protocol.md, chosen on
 * validation rooms): sessions of `seconds`, session k with k mod 4 people; a logit bias fitted
 * with an L2 penalty; then the birth margin with the best count on the twin.
 */
export const TWIN_COUNT = {
  sessions: 8,
  seconds: 16,
  biasL2: 0.01,
  biasSteps: 1000,
  biasRate: 0.5,
  birthMargins: [0.05, 0.1, 0.15, 0.2, 0.3],
} as const;

/** One estimate of a twin session: what the estimator saw (peaks, count features) and how many people were there. */
export interface TwinEstimate {
  timeS: number;
  peaks: PeakEvidence[];
  features: number[];
  people: number;
}

/**
 * The estimator's evidence on `sessions` simulated sessions of the room's twin (declared room box
 * and radios, guessed materials, no furniture, default radio impairments: `twinFromEnvironment`),
 * each imaged against the twin's own simulated empty room. The evidence does not depend on the
 * count head or the tracker, so corrections of either are fitted on it without re-imaging.
 */
export function twinEvidence(sim: Sim, environment: EnvironmentGeometry, reference: EmptyRoomReference, locator: LocatorModel, options: { sessions?: number; seconds?: number; onSession?: (done: number, total: number) => void } = {}): TwinEstimate[][] {
  const sessions = options.sessions ?? TWIN_COUNT.sessions, seconds = options.seconds ?? TWIN_COUNT.seconds;
  const twin = twinFromEnvironment(environment, reference);
  const pair: RoomPair = { environmentId: environment.id, real: twin, twin, environment };
  const untracked: LocatorModel = { ...locator, spec: { ...locator.spec, tracker: undefined } };
  const out: TwinEstimate[][] = [];
  for (let k = 0; k < sessions; k++) {
    const people = k % 4;
    const scenario = sessionScenario(sim, pair, { role: 'twin', seed: `count${k}`, seconds, people: [people, people], personHeight: [1.5, 1.95] });
    const estimator = new PoseLocator(untracked, [environmentFromScenario(scenario as never)], [simulateReference(sim as never, scenario as never)], { densePose: 'none', processingMode: 'job' });
    const list: TwinEstimate[] = [];
    for (const tick of new sim.Simulator(scenario).run(seconds)) {
      for (const frame of tick.frames as CsiFrame[]) {
        const e = estimator.locate(frame);
        if (e) list.push({ timeS: e.time / 1000, peaks: e.peaks, features: e.features, people: e.truth?.persons.length ?? 0 });
      }
    }
    out.push(list);
    options.onSession?.(k + 1, sessions);
  }
  return out;
}

/** The count head with `bias` added to its softmax logits (its last layer's bias). */
export function withCountBias(spec: LocatorModelSpec, bias: readonly number[]): LocatorModelSpec {
  const layers = spec.countHead.layers.map((layer, i, all) => (i === all.length - 1 ? { ...layer, bias: layer.bias.map((v, k) => v + bias[k]) } : layer));
  return { ...spec, countHead: { ...spec.countHead, layers } };
}

/** The tracker with another birth margin (`birthAboveNoise`). */
export function withBirthMargin(spec: LocatorModelSpec, margin: number): LocatorModelSpec {
  if (!spec.tracker) return spec;
  return { ...spec, tracker: { ...spec.tracker, birthAboveNoise: margin } };
}

/** The logit bias minimising the mean cross-entropy of the estimates' true counts + `biasL2`·|b|² (gradient descent from 0). */
export function fitCountBias(spec: LocatorModelSpec, estimates: readonly TwinEstimate[]): number[] {
  const classes = spec.imaging.maxPersons + 1;
  const rows = estimates.map((e) => ({ logp: countProbabilities(spec.countHead, e.features).map((p) => Math.log(Math.max(p, 1e-12))), y: Math.min(e.people, classes - 1) }));
  const b = new Array<number>(classes).fill(0);
  if (rows.length === 0) return b;
  for (let step = 0; step < TWIN_COUNT.biasSteps; step++) {
    const grad = b.map((v) => 2 * TWIN_COUNT.biasL2 * v);
    for (const r of rows) {
      const z = r.logp.map((v, k) => v + b[k]);
      const m = Math.max(...z);
      const ex = z.map((v) => Math.exp(v - m));
      const s = ex.reduce((a, c) => a + c, 0);
      for (let k = 0; k < classes; k++) grad[k] += (ex[k] / s - (k === r.y ? 1 : 0)) / rows.length;
    }
    for (let k = 0; k < classes; k++) b[k] -= TWIN_COUNT.biasRate * grad[k];
  }
  return b;
}

/** Share of the twin's estimates whose people (tracked, above the presence threshold) number the truth: `wiflow locate eval`'s count accuracy. */
export function twinCountAccuracy(spec: LocatorModelSpec, sessions: readonly TwinEstimate[][], room: { width: number; depth: number }): number {
  let right = 0, all = 0;
  for (const session of sessions) {
    const tracker = spec.tracker ? new PeopleTracker(spec.tracker, spec.imaging.maxPersons) : null;
    for (const e of session) {
      const { hypotheses } = hypothesesFromEvidence(spec, tracker, e.timeS, e.peaks, e.features, room);
      if (hypotheses.filter((h) => h.presence > spec.presenceThreshold).length === e.people) right++;
      all++;
    }
  }
  return all ? right / all : 0;
}

/** The birth margin of `TWIN_COUNT.birthMargins` with the best twin count accuracy; a tie goes to the one nearest the model's own. */
export function chooseBirthMargin(spec: LocatorModelSpec, sessions: readonly TwinEstimate[][], room: { width: number; depth: number }): { margin: number; accuracy: number } {
  const own = spec.tracker?.birthAboveNoise ?? 0.1;
  let best: { margin: number; accuracy: number } | null = null;
  for (const margin of TWIN_COUNT.birthMargins) {
    const accuracy = twinCountAccuracy(withBirthMargin(spec, margin), sessions, room);
    if (!best || accuracy > best.accuracy + 1e-12 || (Math.abs(accuracy - best.accuracy) <= 1e-12 && Math.abs(margin - own) < Math.abs(best.margin - own))) best = { margin, accuracy };
  }
  return best!;
}

/** What `fitTwinCount` did, recorded in the locator it writes (`training.twinCount`). */
export interface TwinCountRecord {
  environmentId: string;
  /** The locator the correction was fitted on: model id @ sha256 of its locator.json. */
  base: string;
  sessions: number;
  seconds: number;
  /** Added to the count head's softmax logits, 0 … maxPersons people. */
  countBias: number[];
  birthAboveNoise: number;
  /** Count accuracy on the twin's own sessions, before → after (what was fitted; not a measurement of the room). */
  twinCountAccuracy: { before: number; after: number };
  /** CPU time of the fit; returned, not written into the locator (its hash must name the fit, not the machine's speed). */
  cpuSeconds: number;
}

/**
 * An installer step (`wiflow locate twin-fit`): simulate the room's twin from its declared
 * environment and recorded empty-room reference, fit the per-room count correction chosen on
 * validation rooms (twincount-protocol.md, candidate BM: a logit bias of the count head, then
 * the birth margin), and return a locator for that environment only.
 */
export function fitTwinCount(sim: Sim, environment: EnvironmentGeometry, reference: EmptyRoomReference, base: LocatorModel, options: { sessions?: number; seconds?: number; onSession?: (done: number, total: number) => void } = {}): { spec: LocatorModelSpec; record: TwinCountRecord } {
  if (base.spec.environmentId) throw PoseErrors.modelInvalid(base.directory, `it is already fitted for environment ${base.spec.environmentId}: fit the twin on a general locator (the shipped one)`);
  const cpu = process.cpuUsage();
  const sessions = twinEvidence(sim, environment, reference, base, options);
  const room = { width: environment.room.width, depth: environment.room.depth };
  const countBias = fitCountBias(base.spec, sessions.flat());
  const { margin } = chooseBirthMargin(withCountBias(base.spec, countBias), sessions, room);
  const corrected = withBirthMargin(withCountBias(base.spec, countBias), margin);
  const used = process.cpuUsage(cpu);
  const record: TwinCountRecord = {
    environmentId: environment.id,
    base: `${base.spec.modelId}@${base.hash}`,
    sessions: sessions.length,
    seconds: options.seconds ?? TWIN_COUNT.seconds,
    countBias,
    birthAboveNoise: margin,
    twinCountAccuracy: { before: twinCountAccuracy(base.spec, sessions, room), after: twinCountAccuracy(corrected, sessions, room) },
    cpuSeconds: (used.user + used.system) / 1e6,
  };
  const spec: LocatorModelSpec = {
    ...corrected,
    modelId: `${base.spec.modelId}+twin`,
    version: `${base.spec.version}+twin`,
    description: `${base.spec.description} Count head and birth margin corrected for environment ${environment.id} on its simulated twin (wiflow locate twin-fit).`,
    environmentId: environment.id,
    // Everything but the CPU time: two fits of the same room and reference write the same bytes, so the same hash.
    training: { ...base.spec.training, twinCount: { ...record, cpuSeconds: undefined } },
  };
  return { spec, record };
}
