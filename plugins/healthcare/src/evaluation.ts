import type { AnalyticsEvent, GroundTruthFrame } from '@wiflow/core';
import { PoseObserver, SCENE_FALL_TYPES, SeededRandom, sceneFrames, type ObservationNoise, type SceneFallType, type ScenePerson, type SceneSpec, type SceneStep } from '@wiflow/analytics-common';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import { MultiPersonTracker, type TrackerOptionsInput } from '@wiflow/plugin-tracker';
import { HealthcareErrors } from './errors.js';
import { HealthcareMonitor } from './monitor.js';
import type { HealthcareOptionsInput } from './options.js';

const ROOM: [number, number] = [8, 6];

/**
 * The starting rule of the sensing notes, as a baseline: hips drop by more than 0.5 m within
 * 1.5 s with a peak downward speed above 1.2 m/s, then stay low (no landing-speed check).
 */
export const BASELINE_FALL_OPTIONS: HealthcareOptionsInput = { fall_drop_m: 0.5, fall_window_seconds: 1.5, fall_min_speed: 1.2, fall_impact_speed: 0 };

/** Options of the fall evaluation. */
export interface FallEvaluationOptions {
  /** Fall trials per fall type (default 10). */
  trialsPerType?: number;
  /** Simulated hours of daily activity without falls (default 24). */
  dayHours?: number;
  rateHz?: number;
  noise?: Partial<ObservationNoise>;
  tracker?: TrackerOptionsInput;
  monitor?: HealthcareOptionsInput;
  seed?: number;
  /** Where ground truth comes from: 'simulator' (@wiflow/plugin-sim's people, default) or 'kinematic' (the small generator of analytics-common). */
  truth?: 'simulator' | 'kinematic';
}

/** Result of the fall evaluation. */
export interface FallEvaluation {
  perType: { type: SceneFallType; trials: number; detected: number; sensitivity: number; meanLatencySeconds: number | null }[];
  trials: number;
  detected: number;
  sensitivity: number;
  /** Fall detections with no fall in the truth (fall trials and daily activity). */
  falseAlarms: number;
  dayHours: number;
  dayFalseAlarms: number;
  falseAlarmsPer24h: number;
  /** Deliberate lie-downs on the floor (the hardest non-fall): trials and how many raised a fall. */
  lieDowns: { trials: number; falseAlarms: number };
  rateHz: number;
  noise: ObservationNoise;
  truth: 'simulator' | 'kinematic';
}

/** One fall trial: a person walks about (sometimes with a second person present), then falls at a known time. */
export function fallTrialScene(type: SceneFallType, seed: number, rateHz: number): SceneSpec {
  const rng = new SeededRandom(seed * 104729 + SCENE_FALL_TYPES.indexOf(type));
  const p = (): [number, number] => [rng.uniform(1, ROOM[0] - 1), rng.uniform(1, ROOM[1] - 1)];
  const before: SceneStep[] = [{ action: 'walk', path: [p(), p()], speed: rng.uniform(0.6, 1.2) }];
  if (rng.next() < 0.5) before.push({ action: 'sit', duration: rng.uniform(3, 10) });
  before.push({ action: 'stand', duration: rng.uniform(1, 3) });
  if (type === 'slump') before.push({ action: 'sit', duration: rng.uniform(5, 15) });
  const getUp = rng.next() < 0.6;
  const people: ScenePerson[] = [{ id: 1, start: { x: p()[0], y: p()[1] }, script: [...before, { action: 'fall', type, lieDuration: rng.uniform(20, 90), getUp }, { action: 'stand', duration: 10 }] }];
  if (rng.next() < 0.4) {
    const script: SceneStep[] = [];
    for (let k = 0; k < 8; k++) script.push({ action: 'walk', path: [p()], speed: rng.uniform(0.6, 1.3) }, { action: 'stand', duration: rng.uniform(1, 5) });
    people.push({ id: 2, start: { x: p()[0], y: p()[1] }, script });
  }
  return { durationS: 150, rateHz, people };
}

/**
 * A simulated day of an older person living alone (plus a visitor in the afternoon):
 * walking between rooms, meals and TV sitting (including quick sit-downs), bending to
 * pick things up, an afternoon nap on the sofa, lying down on the floor for exercises, a
 * night in bed with turns. Nothing in it is a fall.
 */
export function dailyActivityScene(seed: number, hours: number, rateHz: number): SceneSpec {
  const rng = new SeededRandom(seed * 7 + 3);
  const p = (): [number, number] => [rng.uniform(0.8, ROOM[0] - 0.8), rng.uniform(0.8, ROOM[1] - 0.8)];
  const bed: [number, number] = [1.2, 1.2];
  const sofa: [number, number] = [6, 4.5];
  const script: SceneStep[] = [];
  let t = 0;
  const add = (step: SceneStep, seconds: number) => {
    script.push(step);
    t += seconds;
  };
  const total = hours * 3600;
  // Night first (midnight to about 07:00), then the day, repeated for more than 24 h.
  while (t < total) {
    add({ action: 'walk', path: [bed], speed: 0.8 }, 8);
    const night = rng.uniform(6, 7.5) * 3600;
    let slept = 0;
    add({ action: 'lie', duration: 1, surfaceHeight: 0.5 }, 4);
    while (slept < night) {
      const chunk = rng.uniform(1200, 4800);
      add({ action: 'lie', duration: chunk, surfaceHeight: 0.5 }, chunk + 6);
      slept += chunk;
      if (rng.next() < 0.6) add({ action: 'roll', duration: 3 }, 3);
    }
    let day = 0;
    const dayLength = 16.5 * 3600;
    while (day < dayLength && t < total) {
      const r = rng.next();
      let d = 0;
      if (r < 0.3) {
        d = rng.uniform(20, 90);
        add({ action: 'walk', path: [p(), p()], speed: rng.uniform(0.5, 1.1) }, d);
      } else if (r < 0.55) {
        d = rng.uniform(300, 2400);
        add({ action: 'sit', duration: d }, d + 3);
      } else if (r < 0.7) {
        d = rng.uniform(20, 300);
        add({ action: 'stand', duration: d }, d);
      } else if (r < 0.82) {
        d = rng.uniform(2, 8);
        add({ action: 'bend', duration: d }, d + 2);
      } else if (r < 0.9) {
        d = rng.uniform(30, 600);
        add({ action: 'sit', duration: d }, d + 3);
        add({ action: 'stand', duration: 2 }, 4);
      } else if (r < 0.95) {
        add({ action: 'walk', path: [sofa], speed: 0.8 }, 8);
        d = rng.uniform(600, 2400);
        add({ action: 'lie', duration: d, surfaceHeight: 0.45 }, d + 8);
      } else if (r < 0.97) {
        d = rng.uniform(60, 600);
        add({ action: 'lie', duration: d, surfaceHeight: 0 }, d + 8);
      } else {
        d = rng.uniform(60, 300);
        add({ action: 'walk', path: [p()], speed: rng.uniform(0.9, 1.3) }, 8);
        add({ action: 'stand', duration: d }, d);
      }
      day += d;
    }
  }
  const visitor: ScenePerson = {
    id: 2,
    script: [{ action: 'absent', duration: Math.min(14 * 3600, total * 0.6) }, { action: 'enter', at: [7.5, 3] }],
  };
  for (let k = 0; k < 40; k++) visitor.script.push({ action: 'walk', path: [p()], speed: rng.uniform(0.7, 1.3) }, { action: 'sit', duration: rng.uniform(30, 300) });
  visitor.script.push({ action: 'leave', path: [[7.5, 3]] });
  return { durationS: total, rateHz, people: [{ id: 1, start: { x: bed[0], y: bed[1] }, script }, visitor] };
}

function runScene(frames: Iterable<GroundTruthFrame>, seed: number, options: FallEvaluationOptions): { events: AnalyticsEvent[]; truthFalls: { time: number; x: number; y: number }[] } {
  const observer = new PoseObserver({ seed, noise: { room: ROOM, ...(options.noise ?? {}) } });
  const tracker = new MultiPersonTracker(options.tracker);
  const monitor = new HealthcareMonitor({ inactivity_enabled: false, ...(options.monitor ?? {}) });
  const events = new Map<string, AnalyticsEvent>();
  const truthFalls: { time: number; x: number; y: number }[] = [];
  for (const truth of frames) {
    for (const e of truth.events) {
      if (e.type !== 'fall_start') continue;
      const p = truth.persons.find((q) => q.id === e.personId);
      truthFalls.push({ time: e.time, x: p?.position.x ?? NaN, y: p?.position.y ?? NaN });
    }
    const out = monitor.update(tracker.update(observer.observe(truth)));
    for (const e of out.events) if (e.type === 'fall_detection') events.set(e.eventId, e);
  }
  return { events: [...events.values()], truthFalls };
}

/**
 * Measure fall detection against simulated ground truth: sensitivity over fall trials of
 * every type, and false alarms over simulated days of daily activity. A detection matches a
 * true fall when its fall start lies within 3 s of the true start and within 1.5 m of it.
 */
export function evaluateFalls(options: FallEvaluationOptions = {}): FallEvaluation {
  const trials = options.trialsPerType ?? 10;
  const hours = options.dayHours ?? 24;
  const rateHz = options.rateHz ?? 10;
  const seed0 = options.seed ?? 1;
  if (!Number.isInteger(trials) || trials < 0) throw HealthcareErrors.evaluationInvalid(`trialsPerType must be a non-negative integer, got ${trials}`);
  if (!(hours >= 0)) throw HealthcareErrors.evaluationInvalid(`dayHours must be non-negative, got ${hours}`);
  const truthOf = (options.truth ?? 'simulator') === 'simulator' ? (spec: SceneSpec) => simulatorTruth(spec, ROOM) : sceneFrames;
  const perType: FallEvaluation['perType'] = [];
  let falseAlarms = 0;
  for (const type of SCENE_FALL_TYPES) {
    let detected = 0;
    let latency = 0;
    for (let k = 0; k < trials; k++) {
      const seed = seed0 * 1000 + k;
      const { events, truthFalls } = runScene(truthOf(fallTrialScene(type, seed, rateHz)), seed, options);
      const used = new Set<string>();
      for (const f of truthFalls) {
        const hit = events.find((e) => !used.has(e.eventId) && Math.abs(e.timestamp - f.time) <= 3000 && e.location && Math.hypot(e.location.x - f.x, e.location.y - f.y) <= 1.5);
        if (hit) {
          used.add(hit.eventId);
          detected++;
          latency += Number(hit.metadata.response_time_seconds ?? 0) + (hit.timestamp - f.time) / 1000;
        }
      }
      falseAlarms += events.length - used.size;
    }
    perType.push({ type, trials, detected, sensitivity: trials ? detected / trials : 0, meanLatencySeconds: detected ? Math.round((latency / detected) * 100) / 100 : null });
  }
  let dayFalseAlarms = 0;
  if (hours > 0) {
    const { events } = runScene(truthOf(dailyActivityScene(seed0, hours, rateHz)), seed0, options);
    dayFalseAlarms = events.length;
  }
  // Deliberate lie-downs on the floor from standing, the motion most like a fall.
  let lieDownAlarms = 0;
  for (let k = 0; k < trials; k++) {
    const seed = seed0 * 1000 + 500 + k;
    const rng = new SeededRandom(seed);
    const spec: SceneSpec = { durationS: 40, rateHz, people: [{ id: 1, start: { x: rng.uniform(1, 7), y: rng.uniform(1, 5) }, script: [{ action: 'stand', duration: rng.uniform(2, 5) }, { action: 'lie', duration: 20, surfaceHeight: 0 }, { action: 'stand', duration: 10 }] }] };
    lieDownAlarms += runScene(truthOf(spec), seed, options).events.length;
  }
  const total = perType.reduce((s, p) => s + p.trials, 0);
  const detected = perType.reduce((s, p) => s + p.detected, 0);
  return {
    perType, trials: total, detected, sensitivity: total ? detected / total : 0, falseAlarms: falseAlarms + dayFalseAlarms + lieDownAlarms, lieDowns: { trials, falseAlarms: lieDownAlarms },
    dayHours: hours, dayFalseAlarms, falseAlarmsPer24h: hours > 0 ? (dayFalseAlarms * 24) / hours : 0, rateHz, truth: options.truth ?? 'simulator',
    noise: new PoseObserver({ noise: options.noise }).noise,
  };
}
