import type { GroundTruthFrame, PoseFrame } from '@wiflow/core';
import { PoseObserver, SeededRandom, sceneFrames, type ObservationNoise, type ScenePerson, type SceneSpec } from '@wiflow/analytics-common';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import { TrackerErrors } from './errors.js';
import type { TrackerOptionsInput } from './options.js';
import { combineScores, scoreTracking, type TrackingScore } from './metrics.js';
import { MultiPersonTracker } from './tracker.js';
import { NearestNeighbourTracker } from './baseline.js';

/** A multi-person scene for tracking evaluation, built per seed (speeds and timings vary). */
export interface TrackingScene {
  name: string;
  description: string;
  build(seed: number, rateHz: number): SceneSpec;
}

const ROOM: [number, number] = [8, 6];

/** The evaluation scenes: three people crossing, two people passing close, four people moving about a room. */
export const TRACKING_SCENES: readonly TrackingScene[] = [
  {
    name: 'crossing-3',
    description: 'three people cross the room on paths that meet near the centre at about the same time, then walk back and cross again',
    build(seed, rateHz) {
      const rng = new SeededRandom(seed);
      const speed = () => rng.uniform(0.9, 1.3);
      const wait = () => rng.uniform(0, 0.8);
      const person = (id: number, a: [number, number], b: [number, number]): ScenePerson => ({
        id,
        start: { x: a[0], y: a[1] },
        script: [{ action: 'stand', duration: 1 + wait() }, { action: 'walk', path: [b], speed: speed() }, { action: 'stand', duration: 1 + wait() }, { action: 'walk', path: [a], speed: speed() }, { action: 'stand', duration: 5 }],
      });
      return {
        durationS: 22,
        rateHz,
        people: [person(1, [0.6, 0.6], [7.4, 5.4]), person(2, [0.6, 5.4], [7.4, 0.6]), person(3, [0.4, 3.4], [7.6, 3.4])],
      };
    },
  },
  {
    name: 'passing-2',
    description: 'two people walk towards each other 0.7 m apart, pass, turn and pass again',
    build(seed, rateHz) {
      const rng = new SeededRandom(seed);
      const s = () => rng.uniform(0.9, 1.4);
      return {
        durationS: 20,
        rateHz,
        people: [
          { id: 1, start: { x: 0.5, y: 2.65 }, script: [{ action: 'walk', path: [[7.5, 2.65]], speed: s() }, { action: 'walk', path: [[0.5, 2.65]], speed: s() }] },
          { id: 2, start: { x: 7.5, y: 3.35 }, script: [{ action: 'walk', path: [[0.5, 3.35]], speed: s() }, { action: 'walk', path: [[7.5, 3.35]], speed: s() }] },
        ],
      };
    },
  },
  {
    name: 'room-4',
    description: 'four people walk between random points of the room, stand and sit, for a minute',
    build(seed, rateHz) {
      const rng = new SeededRandom(seed * 7919 + 1);
      const point = (): [number, number] => [rng.uniform(0.5, ROOM[0] - 0.5), rng.uniform(0.5, ROOM[1] - 0.5)];
      const people: ScenePerson[] = [1, 2, 3, 4].map((id) => {
        const [x, y] = point();
        const script: ScenePerson['script'] = [];
        for (let k = 0; k < 6; k++) {
          script.push({ action: 'walk', path: [point()], speed: rng.uniform(0.7, 1.4) });
          const r = rng.next();
          if (r < 0.3) script.push({ action: 'sit', duration: rng.uniform(2, 6) });
          else script.push({ action: 'stand', duration: rng.uniform(0.5, 4) });
        }
        return { id, start: { x, y }, script };
      });
      return { durationS: 60, rateHz, people };
    },
  },
];

/** Options of a tracking evaluation run. */
export interface TrackingEvaluationOptions {
  /** Scene names (default all). */
  scenes?: string[];
  /** Seeds per scene (default 5). */
  seeds?: number;
  rateHz?: number;
  noise?: Partial<ObservationNoise>;
  tracker?: TrackerOptionsInput;
  matchDistance?: number;
  /** 'kalman' (this package's tracker, default) or 'nearest' (the greedy nearest-neighbour baseline). */
  method?: 'kalman' | 'nearest';
  /** Where ground truth comes from: 'simulator' (@wiflow/plugin-sim's people, default) or 'kinematic' (analytics-common's small generator). */
  truth?: 'simulator' | 'kinematic';
}

/** Result of a tracking evaluation. */
export interface TrackingEvaluation {
  scenes: { name: string; description: string; seeds: number; score: TrackingScore }[];
  overall: TrackingScore;
  rateHz: number;
  noise: ObservationNoise;
  truth: 'simulator' | 'kinematic';
  method: 'kalman' | 'nearest';
}

/** Track a sequence of truth frames observed through the noise model; returns tracked frames. */
export function trackObserved(truth: Iterable<GroundTruthFrame>, options: { seed?: number; noise?: Partial<ObservationNoise>; tracker?: TrackerOptionsInput } = {}): { tracked: PoseFrame[]; tracker: MultiPersonTracker } {
  const tracker = new MultiPersonTracker(options.tracker);
  return { tracked: runTracker(truth, tracker, options), tracker };
}

function runTracker(truth: Iterable<GroundTruthFrame>, tracker: { update(frame: PoseFrame): PoseFrame }, options: { seed?: number; noise?: Partial<ObservationNoise> }): PoseFrame[] {
  const observer = new PoseObserver({ seed: options.seed, noise: options.noise });
  const tracked: PoseFrame[] = [];
  for (const f of truth) tracked.push(tracker.update(observer.observe(f)));
  return tracked;
}

/** Run the tracker on the evaluation scenes and score MOTA / IDF1 against ground truth. */
export function evaluateTracking(options: TrackingEvaluationOptions = {}): TrackingEvaluation {
  const names = options.scenes ?? TRACKING_SCENES.map((s) => s.name);
  const seeds = options.seeds ?? 5;
  const rateHz = options.rateHz ?? 10;
  if (!Number.isInteger(seeds) || seeds < 1) throw TrackerErrors.evaluationInvalid(`seeds must be a positive integer, got ${seeds}`);
  const source = options.truth ?? 'simulator';
  const truthOf = (scene: TrackingScene, seed: number, rate: number): Iterable<GroundTruthFrame> =>
    source === 'simulator' ? simulatorTruth(scene.build(seed, rate), ROOM) : sceneFrames(scene.build(seed, rate));
  const results: TrackingEvaluation['scenes'] = [];
  let noise: ObservationNoise | undefined;
  for (const name of names) {
    const scene = TRACKING_SCENES.find((s) => s.name === name);
    if (!scene) throw TrackerErrors.evaluationInvalid(`unknown scene ${JSON.stringify(name)} (known: ${TRACKING_SCENES.map((s) => s.name).join(', ')})`);
    const scores: TrackingScore[] = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const tracker = options.method === 'nearest' ? new NearestNeighbourTracker() : new MultiPersonTracker(options.tracker);
      const tracked = runTracker(truthOf(scene, seed, rateHz), tracker, { seed, noise: { room: ROOM, ...(options.noise ?? {}) } });
      noise ??= new PoseObserver({ noise: options.noise }).noise;
      scores.push(scoreTracking(tracked, undefined, { matchDistance: options.matchDistance }));
    }
    results.push({ name, description: scene.description, seeds, score: combineScores(scores) });
  }
  return { scenes: results, overall: combineScores(results.map((r) => r.score)), rateHz, noise: noise ?? new PoseObserver({ noise: options.noise }).noise, truth: source, method: options.method ?? 'kalman' };
}
