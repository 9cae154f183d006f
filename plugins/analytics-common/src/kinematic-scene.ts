import type { Activity, GroundTruthEvent, GroundTruthFrame, GroundTruthPerson } from '@wiflow/core';

// A small kinematic people generator: scripted people as 17 COCO joints moving through
// postures. It speaks the same script vocabulary as @wiflow/plugin-sim's scenarios (stand,
// walk, sit, lie, fall, enter, leave, absent) but produces ground truth only, fast enough
// for simulated days. Motion timings follow the simulator's (fall 0.9–1.6 s with the
// pelvis accelerating as in free fall, sit-down 1.6 s, lie-down 3 s, get-up 3.5 s).

/** Fall types, as in the simulator. */
export type SceneFallType = 'forward' | 'backward' | 'sideways' | 'slump';
/** All fall types. */
export const SCENE_FALL_TYPES: readonly SceneFallType[] = ['forward', 'backward', 'sideways', 'slump'];

/** One scripted action. */
export type SceneStep =
  | { action: 'stand'; duration: number }
  | { action: 'walk'; path: [number, number][]; speed?: number }
  | { action: 'sit'; duration: number }
  | { action: 'lie'; duration: number; surfaceHeight?: number }
  | { action: 'fall'; type: SceneFallType; lieDuration?: number; getUp?: boolean }
  | { action: 'bend'; duration: number }
  | { action: 'roll'; duration?: number }
  | { action: 'absent'; duration: number }
  | { action: 'enter'; at: [number, number]; yawDeg?: number }
  | { action: 'leave'; path?: [number, number][]; speed?: number };

/** A scripted person. */
export interface ScenePerson {
  id: number;
  /** Stature in metres (default 1.72); the skeleton scales with it. */
  height?: number;
  /** Where the person stands at t = 0; absent at t = 0 when omitted. */
  start?: { x: number; y: number; yawDeg?: number };
  script: SceneStep[];
  /** Repeat the script until the scene ends. */
  loop?: boolean;
}

/** A scene: people and how long and how often to sample them. */
export interface SceneSpec {
  environmentId?: string;
  /** Wall-clock ms of t = 0 (default 2026-01-01T00:00:00Z). */
  startTime?: number;
  durationS: number;
  rateHz: number;
  people: ScenePerson[];
}

type Joints = number[][]; // [17][u, v, z] in the body frame, or world [x, y, z]

const STAND: Joints = [
  [0.09, 0, 1.62], [0.07, 0.03, 1.66], [0.07, -0.03, 1.66], [0, 0.075, 1.63], [0, -0.075, 1.63],
  [0, 0.19, 1.42], [0, -0.19, 1.42], [0, 0.22, 1.12], [0, -0.22, 1.12], [0.03, 0.22, 0.85], [0.03, -0.22, 0.85],
  [0, 0.1, 0.92], [0, -0.1, 0.92], [0.02, 0.1, 0.5], [0.02, -0.1, 0.5], [0, 0.1, 0.08], [0, -0.1, 0.08],
];
const SIT: Joints = [
  [0.12, 0, 1.17], [0.1, 0.03, 1.21], [0.1, -0.03, 1.21], [0.02, 0.075, 1.18], [0.02, -0.075, 1.18],
  [0, 0.19, 0.98], [0, -0.19, 0.98], [0.05, 0.22, 0.7], [0.05, -0.22, 0.7], [0.3, 0.2, 0.62], [0.3, -0.2, 0.62],
  [0, 0.1, 0.5], [0, -0.1, 0.5], [0.45, 0.1, 0.52], [0.45, -0.1, 0.52], [0.47, 0.1, 0.08], [0.47, -0.1, 0.08],
];
const KNEEL: Joints = [
  [0.25, 0, 1.05], [0.23, 0.03, 1.09], [0.23, -0.03, 1.09], [0.15, 0.075, 1.06], [0.15, -0.075, 1.06],
  [0.1, 0.19, 0.88], [0.1, -0.19, 0.88], [0.25, 0.22, 0.62], [0.25, -0.22, 0.62], [0.4, 0.2, 0.4], [0.4, -0.2, 0.4],
  [0, 0.1, 0.55], [0, -0.1, 0.55], [0.1, 0.1, 0.08], [0.1, -0.1, 0.08], [-0.35, 0.1, 0.08], [-0.35, -0.1, 0.08],
];
const BEND: Joints = [
  [0.55, 0, 0.95], [0.53, 0.03, 0.99], [0.53, -0.03, 0.99], [0.45, 0.075, 0.98], [0.45, -0.075, 0.98],
  [0.4, 0.19, 0.9], [0.4, -0.19, 0.9], [0.5, 0.22, 0.6], [0.5, -0.22, 0.6], [0.55, 0.2, 0.35], [0.55, -0.2, 0.35],
  [-0.05, 0.1, 0.75], [-0.05, -0.1, 0.75], [0.12, 0.1, 0.45], [0.12, -0.1, 0.45], [0, 0.1, 0.08], [0, -0.1, 0.08],
];

const HIP_Z = 0.92;
const ANKLE_Z = 0.08;

/** The standing skeleton rotated as a rigid body about an axis through the ankles (falls). */
function tipped(theta: number, direction: 'forward' | 'backward' | 'sideways'): Joints {
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  return STAND.map(([u, v, z]) => {
    const h = z - ANKLE_Z;
    if (direction === 'forward') return [u * c + h * s, v, ANKLE_Z + h * c - u * s];
    if (direction === 'backward') return [u * c - h * s, v, ANKLE_Z + h * c + u * s];
    return [u, v * c - h * s, ANKLE_Z + h * c + v * s];
  }).map(([u, v, z]) => [u, v, Math.max(0.04, z)]);
}

/** Lying on the back along the body's forward axis, hips at the origin, on a surface of the given height. */
function lyingPose(surface: number, side = false): Joints {
  return STAND.map(([u, v, z]) => (side ? [z - HIP_Z, u, surface + 0.12 + v * 0.5] : [z - HIP_Z, v, surface + 0.1 + u]));
}

function blend(a: Joints, b: Joints, w: number): Joints {
  return a.map((p, i) => [p[0] + (b[i][0] - p[0]) * w, p[1] + (b[i][1] - p[1]) * w, p[2] + (b[i][2] - p[2]) * w]);
}

/** Shift a body-frame pose so its hips sit at u = v = 0 (the person's floor position). */
function centred(p: Joints): Joints {
  const cu = (p[11][0] + p[12][0]) / 2;
  const cv = (p[11][1] + p[12][1]) / 2;
  return p.map(([u, v, z]) => [u - cu, v - cv, z]);
}

const smooth = (u: number) => u * u * (3 - 2 * u);
const clamp01 = (u: number) => Math.min(1, Math.max(0, u));

function walkingPose(phase: number): Joints {
  const s = Math.sin(phase);
  const lift = Math.max(0, Math.sin(phase)) * 0.06;
  const liftR = Math.max(0, -Math.sin(phase)) * 0.06;
  return STAND.map(([u, v, z], i) => {
    switch (i) {
      case 13: return [u + 0.12 * s, v, z + lift];
      case 14: return [u - 0.12 * s, v, z + liftR];
      case 15: return [u + 0.3 * s, v, z + lift];
      case 16: return [u - 0.3 * s, v, z + liftR];
      case 9: return [u - 0.18 * s, v, z];
      case 10: return [u + 0.18 * s, v, z];
      case 7: return [u - 0.08 * s, v, z];
      case 8: return [u + 0.08 * s, v, z];
      default: return [u, v, z + 0.015 * Math.abs(Math.cos(phase))];
    }
  });
}

interface BodyState {
  present: boolean;
  x: number;
  y: number;
  yaw: number;
  /** Body-frame joints of the resting posture (hips at the origin). */
  rest: Joints;
  posture: 'standing' | 'sitting' | 'lying' | 'absent';
  restActivity: Activity;
}

interface Segment {
  t0: number;
  t1: number;
  activity: Activity;
  /** World joints [17][x, y, z] at time t, or null when absent. */
  sample(t: number): Joints | null;
  events?: { t: number; type: GroundTruthEvent['type']; detail?: Record<string, unknown> }[];
}

function toWorld(p: Joints, x: number, y: number, yaw: number, scale: number): Joints {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return p.map(([u, v, z]) => [x + (u * c - v * s) * scale, y + (u * s + v * c) * scale, z * scale]);
}

/** Compiles one person's script into timed motion segments. */
class PersonScript {
  readonly segments: Segment[] = [];
  readonly #scale: number;
  #t = 0;
  #state: BodyState;

  constructor(readonly person: ScenePerson, readonly untilS: number) {
    if (!Number.isInteger(person.id) || person.id < 0) throw new Error(`scene person id must be a non-negative integer, got ${person.id}`);
    this.#scale = (person.height ?? 1.72) / 1.72;
    const start = person.start;
    this.#state = start
      ? { present: true, x: start.x, y: start.y, yaw: ((start.yawDeg ?? 0) * Math.PI) / 180, rest: STAND, posture: 'standing', restActivity: 'standing' }
      : { present: false, x: 0, y: 0, yaw: 0, rest: STAND, posture: 'absent', restActivity: 'absent' };
    if (person.script.length === 0 && person.loop) throw new Error(`scene person ${person.id}: a looping script needs steps`);
    let guard = 0;
    do {
      for (const step of person.script) {
        if (this.#t >= untilS) break;
        this.#compile(step);
      }
      if (++guard > 1e6) throw new Error(`scene person ${person.id}: looping script makes no progress`);
    } while (person.loop && this.#t < untilS);
    if (this.#t < untilS) this.#hold(untilS - this.#t + 1);
  }

  #push(duration: number, activity: Activity, sample: (u: number, t: number) => Joints | null, events?: Segment['events']): void {
    const t0 = this.#t;
    const t1 = t0 + duration;
    this.segments.push({ t0, t1, activity, sample: (t) => sample(duration > 0 ? clamp01((t - t0) / duration) : 1, t), events });
    this.#t = t1;
  }

  #world(p: Joints, x = this.#state.x, y = this.#state.y, yaw = this.#state.yaw): Joints {
    return toWorld(p, x, y, yaw, this.#scale);
  }

  #hold(duration: number): void {
    const s = { ...this.#state };
    if (!s.present) {
      this.#push(duration, 'absent', () => null);
      return;
    }
    this.#push(duration, s.restActivity, (_u, t) => {
      // Sitting and standing people sway a little; lying people breathe.
      const sway = s.posture === 'lying' ? 0 : 0.01 * Math.sin(t * 0.7 + this.person.id);
      return this.#world(s.rest.map(([u, v, z]) => [u + sway, v, z]), s.x, s.y, s.yaw);
    });
  }

  /** Blend from the current rest posture to `to` over `duration`, via `via` when given. */
  #transition(duration: number, activity: Activity, to: Joints, via?: Joints): void {
    const s = { ...this.#state };
    const from = s.rest;
    this.#push(duration, activity, (u) => {
      const pose = via ? (u < 0.5 ? blend(from, via, smooth(u * 2)) : blend(via, to, smooth(u * 2 - 1))) : blend(from, to, smooth(u));
      return this.#world(pose, s.x, s.y, s.yaw);
    });
  }

  #standUp(): void {
    const s = this.#state;
    if (s.posture === 'sitting') this.#transition(1.6, 'standing', STAND);
    else if (s.posture === 'lying') this.#transition(3.5, 'standing', STAND, KNEEL);
    else return;
    this.#state = { ...this.#state, rest: STAND, posture: 'standing', restActivity: 'standing' };
  }

  #walk(path: [number, number][], speed: number): void {
    this.#standUp();
    for (const [tx, ty] of path) {
      const s = this.#state;
      const dx = tx - s.x;
      const dy = ty - s.y;
      const dist = Math.hypot(dx, dy);
      if (dist < 1e-6) continue;
      const yaw = Math.atan2(dy, dx);
      const duration = dist / speed;
      const x0 = s.x;
      const y0 = s.y;
      const stride = 0.75 * Math.sqrt(speed);
      const phase0 = this.#t;
      this.#push(duration, 'walking', (u, t) => this.#world(walkingPose(((t - phase0) * speed * Math.PI) / stride), x0 + dx * u, y0 + dy * u, yaw));
      this.#state = { ...s, x: tx, y: ty, yaw };
    }
  }

  #compile(step: SceneStep): void {
    const s = this.#state;
    switch (step.action) {
      case 'stand':
        this.#standUp();
        this.#hold(step.duration);
        return;
      case 'walk':
        if (!s.present) throw new Error(`scene person ${this.person.id}: walk while absent (add an enter step)`);
        this.#walk(step.path, step.speed ?? 1.1);
        return;
      case 'sit':
        if (s.posture === 'lying') this.#standUp();
        if (this.#state.posture !== 'sitting') {
          this.#transition(1.6, 'sitting', SIT);
          this.#state = { ...this.#state, rest: SIT, posture: 'sitting', restActivity: 'sitting' };
        }
        this.#hold(step.duration);
        return;
      case 'bend':
        this.#standUp();
        this.#transition(1.0, 'standing', BEND);
        this.#state = { ...this.#state, rest: BEND };
        this.#hold(step.duration);
        this.#transition(1.0, 'standing', STAND);
        this.#state = { ...this.#state, rest: STAND };
        return;
      case 'lie': {
        const surface = step.surfaceHeight ?? 0;
        if (s.posture === 'lying') this.#standUp();
        const to = lyingPose(surface);
        const via = surface > 0.2 ? SIT : KNEEL;
        this.#transition(3, 'lying', to, via);
        this.#state = { ...this.#state, rest: to, posture: 'lying', restActivity: 'lying' };
        this.#hold(step.duration);
        return;
      }
      case 'roll': {
        // Turn over while lying (restlessness): the pose swings to the other side and back to the back.
        if (s.posture !== 'lying') throw new Error(`scene person ${this.person.id}: roll while not lying`);
        const rest = s.rest;
        const side = rest.map(([u, v, z]) => [u, -v * 0.3, z + (v > 0 ? 0.25 : 0.05)]);
        const d = step.duration ?? 3;
        this.#push(d, 'lying', (u) => this.#world(blend(rest, side, Math.sin(Math.PI * u)), s.x, s.y, s.yaw));
        return;
      }
      case 'fall':
        this.#fall(step.type, step.lieDuration ?? 20, step.getUp ?? true);
        return;
      case 'absent':
        if (s.present) this.#state = { ...s, present: false, posture: 'absent', restActivity: 'absent' };
        this.#hold(step.duration);
        return;
      case 'enter': {
        const yaw = step.yawDeg !== undefined ? (step.yawDeg * Math.PI) / 180 : s.yaw;
        this.#state = { present: true, x: step.at[0], y: step.at[1], yaw, rest: STAND, posture: 'standing', restActivity: 'standing' };
        this.#push(0, 'standing', () => this.#world(STAND, step.at[0], step.at[1], yaw), [{ t: this.#t, type: 'person_enter' }]);
        return;
      }
      case 'leave':
        if (step.path?.length) this.#walk(step.path, step.speed ?? 1.1);
        this.#push(0, 'absent', () => null, [{ t: this.#t, type: 'person_leave' }]);
        this.#state = { ...this.#state, present: false, posture: 'absent', restActivity: 'absent' };
        return;
    }
  }

  #fall(type: SceneFallType, lieDuration: number, getUp: boolean): void {
    if (!this.#state.present) throw new Error(`scene person ${this.person.id}: fall while absent`);
    let endPose: Joints;
    if (type === 'slump') {
      if (this.#state.posture !== 'sitting') {
        this.#standUp();
        this.#transition(1.6, 'sitting', SIT);
        this.#state = { ...this.#state, rest: SIT, posture: 'sitting', restActivity: 'sitting' };
      }
      const s = { ...this.#state };
      endPose = lyingPose(0, true).map(([u, v, z]) => [u + 0.45, v, z]);
      const duration = 1.6;
      this.#push(duration, 'falling', (u) => {
        const slide = u < 0.35 ? 0 : ((u - 0.35) / 0.65) ** 2;
        return this.#world(blend(SIT, endPose, slide), s.x, s.y, s.yaw);
      }, [{ t: this.#t, type: 'fall_start', detail: { fallType: type } }]);
    } else {
      this.#standUp();
      const s = { ...this.#state };
      const duration = type === 'forward' ? 1.0 : type === 'backward' ? 1.1 : 0.9;
      endPose = tipped(Math.PI / 2, type);
      this.#push(duration, 'falling', (u) => this.#world(tipped((Math.PI / 2) * u * u, type), s.x, s.y, s.yaw), [{ t: this.#t, type: 'fall_start', detail: { fallType: type } }]);
    }
    // After the fall the floor position is where the hips lie.
    const s = this.#state;
    const c = Math.cos(s.yaw);
    const sn = Math.sin(s.yaw);
    const hu = (endPose[11][0] + endPose[12][0]) / 2;
    const hv = (endPose[11][1] + endPose[12][1]) / 2;
    const x = s.x + (hu * c - hv * sn) * this.#scale;
    const y = s.y + (hu * sn + hv * c) * this.#scale;
    const rest = centred(endPose);
    this.#state = { ...s, x, y, rest, posture: 'lying', restActivity: 'lying' };
    this.#push(0, 'lying', () => this.#world(rest, x, y, s.yaw), [{ t: this.#t, type: 'fall_end', detail: { fallType: type } }]);
    this.#hold(lieDuration);
    if (getUp) this.#standUp();
  }
}

/**
 * Ground-truth frames of a scene, one every 1/rateHz seconds, generated lazily (a simulated
 * day at 10 Hz never sits in memory at once).
 */
export function* sceneFrames(spec: SceneSpec): Generator<GroundTruthFrame> {
  if (!(spec.rateHz > 0 && spec.rateHz <= 1000)) throw new Error(`scene rateHz must be in (0, 1000], got ${spec.rateHz}`);
  if (!(spec.durationS > 0)) throw new Error(`scene durationS must be positive, got ${spec.durationS}`);
  const ids = new Set<number>();
  for (const p of spec.people) {
    if (ids.has(p.id)) throw new Error(`scene person id ${p.id} is used twice`);
    ids.add(p.id);
  }
  const environmentId = spec.environmentId ?? 'sim-room';
  const startTime = spec.startTime ?? Date.UTC(2026, 0, 1);
  const scripts = spec.people.map((p) => new PersonScript(p, spec.durationS));
  const cursor = scripts.map(() => 0);
  const count = Math.floor(spec.durationS * spec.rateHz);
  let prevT = -Infinity;
  for (let i = 0; i <= count; i++) {
    const t = i / spec.rateHz;
    const persons: GroundTruthPerson[] = [];
    const events: GroundTruthEvent[] = [];
    scripts.forEach((script, k) => {
      const segs = script.segments;
      while (cursor[k] + 1 < segs.length && segs[cursor[k] + 1].t0 <= t) cursor[k]++;
      // Events of any segment that started since the previous frame.
      for (let j = cursor[k]; j >= 0 && segs[j].t0 > prevT; j--) {
        for (const e of segs[j].events ?? []) if (e.t > prevT && e.t <= t) events.push({ type: e.type, personId: script.person.id, time: startTime + Math.round(e.t * 1000), detail: e.detail });
      }
      const seg = segs[cursor[k]];
      const joints = seg.sample(t);
      if (!joints) return;
      persons.push({
        id: script.person.id,
        keypoints3d: joints,
        position: { x: (joints[11][0] + joints[12][0]) / 2, y: (joints[11][1] + joints[12][1]) / 2 },
        activity: seg.activity,
      });
    });
    events.sort((a, b) => a.time - b.time);
    prevT = t;
    yield { time: startTime + Math.round(t * 1000), environmentId, persons, events };
  }
}

/** All ground-truth frames of a (short) scene as an array. */
export function simulateScene(spec: SceneSpec): GroundTruthFrame[] {
  return [...sceneFrames(spec)];
}
