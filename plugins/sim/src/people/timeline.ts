import type { Activity } from '@wiflow/core';
import { SimErrors } from '../errors.js';
import type { PersonSpec, ScriptStep } from '../scenario/schema.js';
import type { BodyDimensions, PoseParams } from './skeleton.js';
import { Prng } from '../random/prng.js';
import { BreathingPattern } from './breathing.js';
import { PosturalSway, SITTING_SWAY, STANDING_SWAY } from './sway.js';
import { bodyDimensions, standingPose } from './skeleton.js';
import { blendPose } from './skeleton.js';
import {
  crouching, FALL_DURATION, fallEndPose, falling, kneeling, lying, sitting, smooth, standing, standingPelvisHeight, strideLength, viaPose, walking,
  type FallType, type LyingSide,
} from './motions.js';

/** Posture a person is in between scripted steps. */
export type Posture = 'standing' | 'sitting' | 'lying' | 'absent';

/** A scripted event in simulation seconds. */
export interface ScriptEvent {
  t: number;
  type: 'fall_start' | 'fall_end' | 'fall_like_start' | 'fall_like_end' | 'person_enter' | 'person_leave';
  detail?: Record<string, unknown>;
}

/** A person's posture and label at one instant. */
export interface PersonSample {
  /** Joint angles, or null while absent. */
  pose: PoseParams | null;
  activity: Activity;
}

interface Segment {
  t0: number;
  t1: number;
  activity: Activity;
  pose(t: number): PoseParams | null;
}

interface State {
  posture: Posture;
  x: number;
  y: number;
  yaw: number;
  /** The posture's resting pose (for blends out of it). */
  rest: PoseParams | null;
}

const SIT_DOWN_S = 1.6;
const GET_UP_CHAIR_S = 1.6;
const LIE_DOWN_S = 3;
const SIT_HARD_S = 0.5;
const FIDGET_S = 1.6;
const GET_UP_FLOOR_S = 3.5;
const TURN_RATE = Math.PI; // rad/s
/** Sway grows in over the first seconds of a still period and dies out over its last (the transitions around it start and end unswayed). */
const SWAY_FADE_S = 2;
const deg = (d: number) => (d * Math.PI) / 180;
const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));

/**
 * A person's script turned into a timeline of motion segments, compiled lazily as time
 * advances (so a looping script runs forever in bounded memory). Transitions the script
 * implies are inserted: getting up before walking, sitting down before a slump, turning
 * toward the first waypoint.
 */
export class PersonTimeline {
  readonly spec: PersonSpec;
  readonly dim: BodyDimensions;
  readonly #segments: Segment[] = [];
  readonly #events: ScriptEvent[] = [];
  #state: State;
  #stepIndex = 0;
  #passStart = 0;
  #end = 0;
  #exhausted = false;
  readonly #phase: number;
  /** The person's breathing, breath by breath. */
  readonly breathing: BreathingPattern;
  readonly #sway: PosturalSway;

  /** `seed`: the scenario's seed (breathing and sway are drawn from it and the person's id). */
  constructor(spec: PersonSpec, seed: number | string = 0) {
    this.spec = spec;
    this.dim = bodyDimensions({ height: spec.height, girth: spec.girth });
    this.#phase = (spec.id * 2.399963) % (2 * Math.PI);
    this.breathing = personBreathing(spec, seed);
    this.#sway = new PosturalSway(`sway:${seed}:${spec.id}`);
    validateScript(spec);
    if (spec.start) {
      const yaw = deg(spec.start.yawDeg);
      this.#state = { posture: 'standing', x: spec.start.x, y: spec.start.y, yaw, rest: standingPose(this.dim, spec.start.x, spec.start.y, yaw) };
    } else {
      this.#state = { posture: 'absent', x: 0, y: 0, yaw: 0, rest: null };
    }
  }

  /** Posture and activity at time t (s). */
  sample(t: number): PersonSample {
    this.#extendTo(t);
    const seg = this.#find(t);
    const pose = seg.pose(t);
    if (!pose) return { pose: null, activity: 'absent' };
    pose.breath = this.breathing.displacementAt(t);
    return { pose, activity: seg.activity };
  }

  /** Script events with t0 < t ≤ t1. */
  eventsBetween(t0: number, t1: number): ScriptEvent[] {
    this.#extendTo(t1);
    return this.#events.filter((e) => e.t > t0 && e.t <= t1);
  }

  /** Forget segments and events that end before t (bounded memory on endless runs). */
  prune(t: number): void {
    this.breathing.prune(t);
    while (this.#segments.length > 1 && this.#segments[0].t1 < t) this.#segments.shift();
    while (this.#events.length && this.#events[0].t < t) this.#events.shift();
  }

  #find(t: number): Segment {
    const segs = this.#segments;
    for (let i = segs.length - 1; i >= 0; i--) if (t >= segs[i].t0) return segs[i];
    return segs[0];
  }

  #extendTo(t: number): void {
    if (this.#segments.length === 0) this.#compileNext();
    while (this.#end <= t && !this.#exhausted) this.#compileNext();
  }

  #push(duration: number, activity: Activity, pose: (u: number, t: number) => PoseParams | null): void {
    const t0 = this.#end;
    const t1 = t0 + duration;
    this.#segments.push({ t0, t1, activity, pose: (t) => pose(duration > 0 ? Math.min(1, Math.max(0, (t - t0) / duration)) : 1, t) });
    this.#end = t1;
  }

  #idleForever(): void {
    const s = { ...this.#state };
    const t0 = this.#end;
    this.#push(Number.POSITIVE_INFINITY, this.#restActivity(s), (_u, t) => this.#restPose(s, t, t0, Number.POSITIVE_INFINITY));
    this.#exhausted = true;
  }

  #restActivity(s: State): Activity {
    return s.posture === 'absent' ? 'absent' : s.posture;
  }

  /** The resting pose of a still period [t0, t1) at time t: swaying, the sway faded in and out at its ends. */
  #restPose(s: State, t: number, t0: number, t1: number): PoseParams | null {
    const fade = Math.min(smooth((t - t0) / SWAY_FADE_S), smooth((t1 - t) / SWAY_FADE_S));
    const sway = (scale: typeof STANDING_SWAY) => this.#sway.at(t, { x: scale.x * fade, y: scale.y * fade, trunkFlex: scale.trunkFlex * fade });
    switch (s.posture) {
      case 'absent':
        return null;
      case 'standing':
        return standing(this.dim, s.x, s.y, s.yaw, sway(STANDING_SWAY));
      case 'sitting':
        return sitting(this.dim, s.x, s.y, s.yaw, sway(SITTING_SWAY));
      case 'lying':
        return s.rest ? { ...s.rest } : null;
    }
  }

  #compileNext(): void {
    const steps = this.spec.script;
    if (this.#stepIndex >= steps.length) {
      if (this.spec.loop && steps.length > 0 && this.#end > this.#passStart) {
        this.#stepIndex = 0;
        this.#passStart = this.#end;
      } else {
        this.#idleForever();
        return;
      }
    }
    const before = this.#segments.length;
    this.#compileStep(steps[this.#stepIndex++]);
    if (this.#segments.length === before && this.#segments.length === 0) this.#push(0, this.#restActivity(this.#state), (_u, t) => this.#restPose(this.#state, t, t, t));
  }

  #hold(duration: number, fidgetEveryS?: number): void {
    const s = { ...this.#state };
    const t0 = this.#end;
    const t1 = t0 + duration;
    if (!fidgetEveryS || s.posture === 'absent') {
      this.#push(duration, this.#restActivity(s), (_u, t) => this.#restPose(s, t, t0, t1));
      return;
    }
    const fidgets = fidgetTimes(new Prng(`fidget:${this.spec.id}:${t0}`), duration, fidgetEveryS);
    this.#push(duration, this.#restActivity(s), (_u, t) => {
      const pose = this.#restPose(s, t, t0, t1);
      if (pose) applyFidgets(pose, fidgets, t - t0);
      return pose;
    });
  }

  /** A fall-like movement that is not a fall: events around its transition, then the posture held. */
  #fallLike(kind: 'sit-hard' | 'lie-down' | 'into-bed', duration: number, surfaceHeight: number, fidgetEveryS?: number): void {
    if (kind === 'sit-hard') {
      this.#ensureStanding();
      const s = this.#state;
      const fwd = { x: Math.cos(s.yaw), y: Math.sin(s.yaw) };
      const sx = s.x - fwd.x * 0.12;
      const sy = s.y - fwd.y * 0.12;
      const from = standingPose(this.dim, s.x, s.y, s.yaw);
      const to = sitting(this.dim, sx, sy, s.yaw);
      const start = this.#end;
      // Dropping into the chair: the pelvis falls freely (∝ u²) for 0.5 s, hitting the seat at ~1.5 m/s.
      this.#push(SIT_HARD_S, 'sitting', (u) => blendPose(from, to, u * u));
      this.#events.push({ t: start, type: 'fall_like_start', detail: { kind } });
      this.#events.push({ t: start + SIT_HARD_S, type: 'fall_like_end', detail: { kind } });
      this.#state = { posture: 'sitting', x: sx, y: sy, yaw: s.yaw, rest: to };
      this.#hold(duration, fidgetEveryS);
      return;
    }
    if (this.#state.posture !== 'standing') this.#ensureStanding();
    const start = this.#end;
    this.#lie(duration, kind === 'into-bed' ? surfaceHeight : 0, 'back', fidgetEveryS);
    this.#events.push({ t: start, type: 'fall_like_start', detail: { kind } });
    this.#events.push({ t: start + LIE_DOWN_S, type: 'fall_like_end', detail: { kind } });
    this.#events.sort((a, b) => a.t - b.t);
  }

  #ensureStanding(): void {
    const s = this.#state;
    if (s.posture === 'sitting') {
      const fwd = { x: Math.cos(s.yaw), y: Math.sin(s.yaw) };
      const nx = s.x + fwd.x * 0.12;
      const ny = s.y + fwd.y * 0.12;
      const from = sitting(this.dim, s.x, s.y, s.yaw);
      const mid = crouching(this.dim, s.x + fwd.x * 0.08, s.y + fwd.y * 0.08, s.yaw);
      const to = standingPose(this.dim, nx, ny, s.yaw);
      this.#push(GET_UP_CHAIR_S, 'standing', (u) => viaPose(from, mid, to, u));
      this.#state = { posture: 'standing', x: nx, y: ny, yaw: s.yaw, rest: to };
    } else if (s.posture === 'lying') {
      const from = s.rest ?? lying(this.dim, s.x, s.y, s.yaw, 0, 'back');
      const x = from.pelvis.x;
      const y = from.pelvis.y;
      const mid = kneeling(this.dim, x, y, s.yaw);
      const to = standingPose(this.dim, x, y, s.yaw);
      this.#push(GET_UP_FLOOR_S, 'standing', (u) => viaPose({ ...from, breath: 0 }, mid, to, u));
      this.#state = { posture: 'standing', x, y, yaw: s.yaw, rest: to };
    }
  }

  #ensureSitting(): void {
    if (this.#state.posture === 'lying') this.#ensureStanding();
    const s = this.#state;
    if (s.posture !== 'standing') return;
    const fwd = { x: Math.cos(s.yaw), y: Math.sin(s.yaw) };
    const sx = s.x - fwd.x * 0.12;
    const sy = s.y - fwd.y * 0.12;
    const from = standingPose(this.dim, s.x, s.y, s.yaw);
    const mid = crouching(this.dim, s.x - fwd.x * 0.06, s.y - fwd.y * 0.06, s.yaw);
    const to = sitting(this.dim, sx, sy, s.yaw);
    this.#push(SIT_DOWN_S, 'sitting', (u) => viaPose(from, mid, to, u));
    this.#state = { posture: 'sitting', x: sx, y: sy, yaw: s.yaw, rest: to };
  }

  #turnTo(yaw: number, minDuration = 0): void {
    const s = this.#state;
    const delta = wrap(yaw - s.yaw);
    const duration = Math.max(minDuration, Math.abs(delta) / TURN_RATE);
    if (duration < 0.05) {
      this.#state = { ...s, yaw };
      return;
    }
    const y0 = s.yaw;
    this.#push(duration, 'standing', (u) => standing(this.dim, s.x, s.y, y0 + delta * smooth(u)));
    this.#state = { ...s, yaw: y0 + delta };
  }

  #walk(path: [number, number][], speed: number): void {
    this.#ensureStanding();
    const start = this.#state;
    const pts: [number, number][] = [[start.x, start.y], ...path];
    const cum = [0];
    for (let i = 1; i < pts.length; i++) cum.push(cum[i - 1] + Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]));
    const total = cum[cum.length - 1];
    if (total < 1e-3) return;
    let first = 1;
    while (first < pts.length && cum[first] < 1e-3) first++;
    this.#turnTo(Math.atan2(pts[first][1] - pts[0][1], pts[first][0] - pts[0][0]));
    const headings: number[] = [];
    for (let i = 1; i < pts.length; i++) headings.push(Math.atan2(pts[i][1] - pts[i - 1][1], pts[i][0] - pts[i - 1][0]));
    const stride = strideLength(this.dim, speed);
    const at = (dist: number) => {
      let i = 1;
      while (i < cum.length - 1 && cum[i] < dist) i++;
      const segLen = cum[i] - cum[i - 1];
      const f = segLen > 0 ? (dist - cum[i - 1]) / segLen : 1;
      const x = pts[i - 1][0] + (pts[i][0] - pts[i - 1][0]) * f;
      const y = pts[i - 1][1] + (pts[i][1] - pts[i - 1][1]) * f;
      let yaw = headings[i - 1];
      // Round the corner: blend toward the next heading over the last 0.3 m of a leg.
      const toCorner = cum[i] - dist;
      if (i < headings.length && toCorner < 0.3 && segLen > 0) yaw += wrap(headings[i] - yaw) * 0.5 * (1 - toCorner / 0.3);
      const fromCorner = dist - cum[i - 1];
      if (i >= 2 && fromCorner < 0.3) yaw += wrap(headings[i - 2] - yaw) * 0.5 * (1 - fromCorner / 0.3);
      return { x, y, yaw };
    };
    const phase0 = this.#phase;
    const duration = total / speed;
    const gait = gaitProfile(duration, total);
    this.#push(duration, 'walking', (u) => {
      const tau = u * duration;
      const d = gait.distance(tau);
      const p = at(d);
      const stride0 = walking(this.dim, p.x, p.y, p.yaw, phase0 + (2 * Math.PI * d) / stride, speed);
      const w = gait.weight(tau);
      if (w >= 1) return stride0;
      // Starting and stopping: the gait grows out of (and settles into) the standing pose. Switching between them
      // in one sample moved a foot 0.3–0.4 m in 5 ms (60–90 m/s).
      const pose = blendPose(standingPose(this.dim, p.x, p.y, p.yaw), stride0, w);
      pose.pelvis = { ...pose.pelvis, z: standingPelvisHeight(this.dim, pose.hipFlex, pose.knee, pose.hipAbd) };
      return pose;
    });
    const last = pts[pts.length - 1];
    const endYaw = headings[headings.length - 1] ?? start.yaw;
    this.#state = { posture: 'standing', x: last[0], y: last[1], yaw: endYaw, rest: standingPose(this.dim, last[0], last[1], endYaw) };
  }

  #fall(type: FallType, lieDuration: number, getUp: boolean): void {
    if (type === 'slump') this.#ensureSitting();
    else this.#ensureStanding();
    const s = this.#state;
    const start = type === 'slump' ? sitting(this.dim, s.x, s.y, s.yaw) : standingPose(this.dim, s.x, s.y, s.yaw);
    const end = fallEndPose(this.dim, type, start.pelvis.x, start.pelvis.y, s.yaw);
    const duration = FALL_DURATION[type];
    const t0 = this.#end;
    this.#events.push({ t: t0, type: 'fall_start', detail: { fallType: type } });
    this.#push(duration, 'falling', (u) => falling(this.dim, type, start, end, u));
    this.#events.push({ t: t0 + duration, type: 'fall_end', detail: { fallType: type } });
    this.#state = { posture: 'lying', x: end.pelvis.x, y: end.pelvis.y, yaw: s.yaw, rest: end };
    if (lieDuration > 0) this.#hold(lieDuration);
    if (getUp) this.#ensureStanding();
  }

  #lie(duration: number, surfaceHeight: number, side: LyingSide, fidgetEveryS?: number): void {
    if (this.#state.posture === 'lying') this.#ensureStanding();
    if (this.#state.posture === 'sitting') this.#ensureStanding();
    const s = this.#state;
    const from = standingPose(this.dim, s.x, s.y, s.yaw);
    const mid = sitting(this.dim, s.x, s.y, s.yaw);
    mid.pelvis = { ...mid.pelvis, z: Math.max(surfaceHeight, 0.1) + 0.1 };
    const to = lying(this.dim, s.x, s.y, s.yaw, surfaceHeight, side);
    this.#push(LIE_DOWN_S, 'lying', (u) => viaPose(from, mid, to, u));
    this.#state = { posture: 'lying', x: s.x, y: s.y, yaw: s.yaw, rest: to };
    this.#hold(duration, fidgetEveryS);
  }

  #compileStep(step: ScriptStep): void {
    const s = this.#state;
    switch (step.action) {
      case 'stand':
        this.#ensureStanding();
        this.#hold(step.duration, step.fidgetEveryS);
        break;
      case 'walk':
        this.#walk(step.path, step.speed);
        break;
      case 'sit':
        this.#ensureSitting();
        this.#hold(step.duration, step.fidgetEveryS);
        break;
      case 'lie':
        this.#lie(step.duration, step.surfaceHeight, step.side, step.fidgetEveryS);
        break;
      case 'fall-like':
        this.#fallLike(step.kind, step.duration, step.surfaceHeight, step.fidgetEveryS);
        break;
      case 'fall':
        this.#fall(step.type as FallType, step.lieDuration, step.getUp);
        break;
      case 'turn':
        this.#ensureStanding();
        this.#turnTo(deg(step.yawDeg), step.duration);
        break;
      case 'enter': {
        if (s.posture !== 'absent') break;
        const yaw = step.yawDeg === undefined ? 0 : deg(step.yawDeg);
        this.#events.push({ t: this.#end, type: 'person_enter', detail: { x: step.at[0], y: step.at[1] } });
        this.#state = { posture: 'standing', x: step.at[0], y: step.at[1], yaw, rest: standingPose(this.dim, step.at[0], step.at[1], yaw) };
        break;
      }
      case 'leave':
        if (s.posture === 'absent') break;
        if (step.path.length) this.#walk(step.path, step.speed);
        else this.#ensureStanding();
        this.#events.push({ t: this.#end, type: 'person_leave', detail: { x: this.#state.x, y: this.#state.y } });
        this.#state = { ...this.#state, posture: 'absent', rest: null };
        break;
      case 'absent':
        if (s.posture !== 'absent') {
          this.#events.push({ t: this.#end, type: 'person_leave', detail: { x: s.x, y: s.y } });
          this.#state = { ...s, posture: 'absent', rest: null };
        }
        this.#hold(step.duration);
        break;
    }
  }
}

/** A person's breathing pattern as the simulator draws it for a scenario seed (the same breaths the CSI carries). */
export function personBreathing(spec: PersonSpec, seed: number | string): BreathingPattern {
  return new BreathingPattern(spec.breathingRateBpm, spec.breathingDepthM, spec.breathing, `breathing:${seed}:${spec.id}`);
}

/** Longest time a walk takes to reach its pace and to come to a stop (s). */
export const GAIT_RAMP_S = 0.5;

/**
 * How far along its path a walk is, and how much of the gait shows, τ seconds into a walk of `duration` s and
 * `total` m. The pace ramps up (smoothstep) over the first GAIT_RAMP_S and down over the last, at most a third of
 * the walk each; the cruising pace is raised to cover the same distance in the same time, so every later step of a
 * script keeps its time. `weight` is the pace over the cruising pace: 0 when standing, 1 when cruising.
 */
export function gaitProfile(duration: number, total: number): { distance(tau: number): number; weight(tau: number): number } {
  const ramp = Math.min(GAIT_RAMP_S, duration / 3);
  const cruise = total / (duration - ramp);
  // ∫₀ˣ smoothstep = x³ − x⁴ / 2 (½ at x = 1).
  const covered = (x: number) => x * x * x - (x * x * x * x) / 2;
  return {
    distance(tau) {
      if (tau <= 0) return 0;
      if (tau >= duration) return total;
      if (tau < ramp) return cruise * ramp * covered(tau / ramp);
      if (tau > duration - ramp) return total - cruise * ramp * covered((duration - tau) / ramp);
      return cruise * (tau - ramp / 2);
    },
    weight(tau) {
      return Math.min(smooth(tau / ramp), smooth((duration - tau) / ramp));
    },
  };
}

/** A small movement during a still period: which arm, and when (s from the start of the period). */
interface Fidget {
  t: number;
  side: 0 | 1;
}

/** Fidget instants: exponential gaps with mean `every` over `duration`. */
function fidgetTimes(prng: Prng, duration: number, every: number): Fidget[] {
  const out: Fidget[] = [];
  for (let t = -Math.log(1 - prng.next()) * every; t + FIDGET_S < duration; t += FIDGET_S - Math.log(1 - prng.next()) * every) out.push({ t, side: prng.chance(0.5) ? 1 : 0 });
  return out;
}

/**
 * Add the fidgets active at time t (s into the period): an arm lifted and bent, the head
 * nodding, the trunk leaning a little, each a sin² bump over 1.6 s. Arrays are replaced, not
 * mutated (rest poses share them).
 */
function applyFidgets(pose: PoseParams, fidgets: readonly Fidget[], t: number): void {
  for (const f of fidgets) {
    const dt = t - f.t;
    if (dt <= 0 || dt >= FIDGET_S) continue;
    const b = Math.sin((Math.PI * dt) / FIDGET_S) ** 2;
    const shoulder: [number, number] = [...pose.shoulderFlex];
    const elbow: [number, number] = [...pose.elbow];
    shoulder[f.side] += 0.35 * b;
    elbow[f.side] += 0.6 * b;
    pose.shoulderFlex = shoulder;
    pose.elbow = elbow;
    pose.headPitch += 0.12 * b;
    pose.trunkSide += (f.side ? 0.04 : -0.04) * b;
  }
}

/** Reject scripts that cannot run: moving while absent, or a looping script with no duration. */
function validateScript(spec: PersonSpec): void {
  let present = spec.start !== undefined;
  let advances = false;
  spec.script.forEach((step, i) => {
    const where = `step ${i + 1} (${step.action})`;
    if (step.action === 'enter') {
      if (present) throw SimErrors.scriptInvalid(String(spec.id), `${where}: the person is already in the room`);
      present = true;
      return;
    }
    if (step.action === 'absent') {
      present = false;
      advances = true;
      return;
    }
    if (!present) throw SimErrors.scriptInvalid(String(spec.id), `${where}: the person is absent; add an 'enter' step first`);
    if (step.action === 'leave') present = false;
    advances = true;
  });
  if (spec.loop && spec.script.length > 0 && !advances) throw SimErrors.scriptInvalid(String(spec.id), 'a looping script needs at least one step that takes time');
  if (spec.loop && (spec.start !== undefined) !== present && spec.script.length > 0) {
    throw SimErrors.scriptInvalid(String(spec.id), 'a looping script must end with the person present if it starts present (and absent if it starts absent)');
  }
}
