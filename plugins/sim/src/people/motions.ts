import type { BodyDimensions, Pair, PoseParams } from './skeleton.js';
import { blendPose, standingPose } from './skeleton.js';
import type { SwayOffsets } from './sway.js';

/** Fall types the simulator scripts. */
export type FallType = 'forward' | 'backward' | 'sideways' | 'slump' | 'trip' | 'knees';

/** The fall types the randomiser draws from (level 'none': the four it always drew, so its rooms keep their bytes). */
export const FALL_TYPES: readonly FallType[] = ['forward', 'backward', 'sideways', 'slump'];

/**
 * Every fall type a script may name: the four above, a trip (a fast forward fall with the
 * arms thrown out, 0.8 s) and a collapse onto the knees, then onto the side (fainting, 1.8 s).
 */
export const ALL_FALL_TYPES: readonly FallType[] = [...FALL_TYPES, 'trip', 'knees'];

/** How a person lies. */
export type LyingSide = 'back' | 'front' | 'left' | 'right';

/** Seat height of chairs the simulator sits people on (m). */
export const SEAT_HEIGHT = 0.45;

/** Smooth 0→1 ramp (cubic smoothstep). */
export function smooth(u: number): number {
  const v = u < 0 ? 0 : u > 1 ? 1 : u;
  return v * v * (3 - 2 * v);
}

/** Vertical extent of a leg from hip to ankle for an upright pelvis. */
function legDrop(dim: BodyDimensions, flex: number, knee: number, abd: number): number {
  const ca = Math.cos(abd);
  return dim.thigh * Math.cos(flex) * ca + dim.shank * Math.cos(flex - knee) * ca;
}

/** Pelvis height that keeps the lower foot on the floor for an upright trunk. */
export function standingPelvisHeight(dim: BodyDimensions, hipFlex: Pair, knee: Pair, hipAbd: Pair): number {
  return dim.ankleHeight + Math.max(legDrop(dim, hipFlex[0], knee[0], hipAbd[0]), legDrop(dim, hipFlex[1], knee[1], hipAbd[1]));
}

/** Quiet standing, with the given postural sway (`PosturalSway`: a few millimetres, broadband below ~0.5 Hz). */
export function standing(dim: BodyDimensions, x: number, y: number, yaw: number, sway?: SwayOffsets): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  p.pelvis = { x: x + (sway?.x ?? 0), y: y + (sway?.y ?? 0), z: p.pelvis.z };
  p.trunkFlex = sway?.trunkFlex ?? 0;
  p.pelvis.z = standingPelvisHeight(dim, p.hipFlex, p.knee, p.hipAbd);
  return p;
}

/** Stride length (two steps, m) for a walking speed: longer strides at higher speed, scaled with stature. */
export function strideLength(dim: BodyDimensions, speed: number): number {
  return 0.8 * dim.height * Math.sqrt(Math.max(0.2, speed) / 1.2);
}

/**
 * Walking gait at gait phase φ (radians, 2π per stride): hips swing ±0.4 rad in antiphase,
 * the swinging leg's knee flexes up to ~1 rad, arms swing opposite to the legs, and the
 * pelvis rides on the stance leg (vertical bob at twice the stride frequency).
 */
export function walking(dim: BodyDimensions, x: number, y: number, yaw: number, phi: number, speed: number): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  const amp = 0.28 + 0.1 * Math.min(1.5, speed);
  const s = Math.sin(phi);
  const c = Math.cos(phi);
  p.hipFlex = [amp * s + 0.04, -amp * s + 0.04];
  p.knee = [0.08 + 0.95 * Math.max(0, c) ** 2, 0.08 + 0.95 * Math.max(0, -c) ** 2];
  p.shoulderFlex = [-0.3 * s * Math.min(1.3, speed), 0.3 * s * Math.min(1.3, speed)];
  p.elbow = [0.3 + 0.15 * Math.max(0, -s), 0.3 + 0.15 * Math.max(0, s)];
  p.shoulderAbd = [0.1, 0.1];
  p.trunkFlex = 0.05 + 0.02 * speed;
  p.headPitch = 0.05;
  p.pelvis.z = standingPelvisHeight(dim, p.hipFlex, p.knee, p.hipAbd);
  return p;
}

/** Sitting on a chair whose seat centre is at (x, y), facing yaw, the trunk swaying by `sway.trunkFlex`. */
export function sitting(dim: BodyDimensions, x: number, y: number, yaw: number, sway?: SwayOffsets): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  p.pelvis = { x, y, z: SEAT_HEIGHT + 0.05 * dim.height };
  p.hipFlex = [1.45, 1.45];
  p.knee = [1.35, 1.35];
  p.hipAbd = [0.1, 0.1];
  p.trunkFlex = -0.08 + (sway?.trunkFlex ?? 0);
  p.shoulderFlex = [0.45, 0.45];
  p.elbow = [0.9, 0.9];
  p.headPitch = 0.1;
  return p;
}

/** Lying on a surface of the given height (0 = floor). */
export function lying(dim: BodyDimensions, x: number, y: number, yaw: number, surfaceHeight: number, side: LyingSide): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  const depth = 0.055 * dim.height * dim.girth;
  p.knee = [0.08, 0.12];
  p.hipFlex = [0.05, 0.02];
  p.shoulderAbd = [0.25, 0.25];
  p.elbow = [0.3, 0.3];
  switch (side) {
    case 'back':
      p.pitch = -Math.PI / 2 + 0.04;
      p.pelvis.z = surfaceHeight + depth;
      break;
    case 'front':
      p.pitch = Math.PI / 2 - 0.04;
      p.pelvis.z = surfaceHeight + depth;
      p.shoulderFlex = [2.6, 2.4];
      p.elbow = [1.2, 1.3];
      break;
    case 'left':
    case 'right':
      p.roll = (side === 'right' ? 1 : -1) * (Math.PI / 2 - 0.05);
      // On the side the lower shoulder carries the trunk: the pelvis sits a shoulder half-width up.
      p.pelvis.z = surfaceHeight + dim.shoulderHalfWidth + 0.02 * dim.girth;
      p.shoulderAbd = [0, 0];
      p.hipFlex = [0.5, 0.35];
      p.knee = [0.7, 0.5];
      p.shoulderFlex = [0.9, 0.7];
      p.elbow = [0.8, 1.0];
      break;
  }
  return p;
}

/** Half-kneeling posture used when getting up from the floor. */
export function kneeling(dim: BodyDimensions, x: number, y: number, yaw: number): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  p.hipFlex = [1.5, 0.1];
  p.knee = [1.55, 1.6];
  p.trunkFlex = 0.35;
  p.pelvis.z = dim.shank * 0.95 + 0.05;
  p.shoulderFlex = [0.6, 0.3];
  p.elbow = [0.8, 0.4];
  return p;
}

/** Squat-like crouch used half-way through sitting down and getting up. */
export function crouching(dim: BodyDimensions, x: number, y: number, yaw: number): PoseParams {
  const p = standingPose(dim, x, y, yaw);
  p.hipFlex = [1.0, 1.0];
  p.knee = [1.1, 1.1];
  p.trunkFlex = 0.55;
  p.shoulderFlex = [0.5, 0.5];
  p.elbow = [0.5, 0.5];
  p.pelvis.z = standingPelvisHeight(dim, p.hipFlex, p.knee, p.hipAbd);
  return p;
}

/** Blend through a middle posture: a → m for u in [0, ½], m → b for u in [½, 1], each eased. */
export function viaPose(a: PoseParams, m: PoseParams, b: PoseParams, u: number): PoseParams {
  return u < 0.5 ? blendPose(a, m, smooth(u * 2)) : blendPose(m, b, smooth(u * 2 - 1));
}

/** Duration of a fall of each type (s). */
export const FALL_DURATION: Record<FallType, number> = { forward: 1.0, backward: 1.1, sideways: 0.9, slump: 1.6, trip: 0.8, knees: 1.8 };

/** The resting posture at the end of a fall. */
export function fallEndPose(dim: BodyDimensions, type: FallType, x: number, y: number, yaw: number): PoseParams {
  const fwd = { x: Math.cos(yaw), y: Math.sin(yaw) };
  const left = { x: -Math.sin(yaw), y: Math.cos(yaw) };
  const leg = dim.thigh + dim.shank;
  switch (type) {
    case 'forward':
      return lying(dim, x + fwd.x * leg * 0.75, y + fwd.y * leg * 0.75, yaw, 0, 'front');
    case 'trip':
      return lying(dim, x + fwd.x * leg * 0.95, y + fwd.y * leg * 0.95, yaw, 0, 'front');
    case 'knees':
      return lying(dim, x + left.x * leg * 0.35, y + left.y * leg * 0.35, yaw, 0, 'left');
    case 'backward':
      return lying(dim, x - fwd.x * leg * 0.5, y - fwd.y * leg * 0.5, yaw, 0, 'back');
    case 'sideways':
      return lying(dim, x - left.x * leg * 0.6, y - left.y * leg * 0.6, yaw, 0, 'right');
    case 'slump':
      return lying(dim, x + fwd.x * 0.45, y + fwd.y * 0.45, yaw, 0, 'back');
  }
}

/**
 * A fall at progress u ∈ [0, 1] from the start posture. The body rotates about the feet
 * like an inverted pendulum (angle ∝ u², so speed grows as in free fall) while the knees
 * buckle; the pelvis reaches the floor at u = 1 with a peak downward speed of 1.5–2 m/s.
 */
export function falling(dim: BodyDimensions, type: FallType, start: PoseParams, end: PoseParams, u: number): PoseParams {
  const p = u * u;
  const yaw = start.yaw;
  const fwd = { x: Math.cos(yaw), y: Math.sin(yaw) };
  const left = { x: -Math.sin(yaw), y: Math.cos(yaw) };
  const leg = dim.thigh + dim.shank;
  const pose = blendPose(start, end, p);
  switch (type) {
    case 'forward':
    case 'trip': {
      pose.pitch = end.pitch * p;
      const reach = leg * Math.sin(pose.pitch) * (type === 'trip' ? 0.95 : 0.75);
      pose.pelvis = { x: start.pelvis.x + fwd.x * reach, y: start.pelvis.y + fwd.y * reach, z: Math.max(end.pelvis.z, dim.ankleHeight + leg * Math.cos(pose.pitch) * (1 - 0.2 * u)) };
      pose.knee = [0.4 * Math.sin(Math.PI * u) + end.knee[0] * p, 0.4 * Math.sin(Math.PI * u) + end.knee[1] * p];
      // Arms thrown forward from where they hang (starting them at 0.3 rad jerked a wrist 15 cm in the first instant).
      pose.shoulderFlex = [start.shoulderFlex[0] + (2.6 - start.shoulderFlex[0]) * smooth(u * 1.5), start.shoulderFlex[1] + (2.4 - start.shoulderFlex[1]) * smooth(u * 1.5)];
      break;
    }
    case 'backward': {
      // Knees buckle first (sit-back), then the trunk tips over backwards.
      const buckle = smooth(u / 0.5);
      const tip = u < 0.3 ? 0 : ((u - 0.3) / 0.7) ** 2;
      pose.pitch = end.pitch * tip;
      pose.knee = [1.1 * buckle * (1 - tip) + end.knee[0] * tip, 1.1 * buckle * (1 - tip) + end.knee[1] * tip];
      pose.hipFlex = [0.9 * buckle * (1 - tip) + end.hipFlex[0] * tip, 0.9 * buckle * (1 - tip) + end.hipFlex[1] * tip];
      const back = leg * 0.5 * tip;
      const upright = standingPelvisHeight(dim, pose.hipFlex, pose.knee, pose.hipAbd);
      // Lands at the lying posture's height (the tip carries it there): without the blend the pelvis stopped 15 cm
      // up and dropped at once when the fall ended.
      const sinking = upright * (1 - 0.55 * tip) - 0.25 * p;
      pose.pelvis = { x: start.pelvis.x - fwd.x * back, y: start.pelvis.y - fwd.y * back, z: Math.max(end.pelvis.z, sinking + (end.pelvis.z - sinking) * tip) };
      // Arms thrown back while buckling, at the lying posture's by the time the back lands: arms held behind a
      // body lying on its back would reach under the floor and lift the skeleton, then snap down at the fall's end.
      pose.shoulderFlex = [-0.6 * buckle * (1 - tip) + end.shoulderFlex[0] * tip, -0.6 * buckle * (1 - tip) + end.shoulderFlex[1] * tip];
      break;
    }
    case 'sideways': {
      pose.roll = end.roll * p;
      const slide = leg * Math.sin(Math.abs(pose.roll)) * 0.6;
      pose.pelvis = { x: start.pelvis.x - left.x * slide, y: start.pelvis.y - left.y * slide, z: Math.max(end.pelvis.z, dim.ankleHeight + leg * Math.cos(pose.roll) * (1 - 0.25 * u)) };
      // Arms flung out to brace, back beside the body as it lands on its side: an arm still out at the end would
      // reach under the floor and hold the skeleton half a metre up until the fall ended, then drop it at once.
      const brace = smooth(u * 1.4) * (1 - p);
      pose.shoulderAbd = [start.shoulderAbd[0] + (end.shoulderAbd[0] - start.shoulderAbd[0]) * p + 0.9 * brace, start.shoulderAbd[1] + (end.shoulderAbd[1] - start.shoulderAbd[1]) * p + 1.2 * brace];
      break;
    }
    case 'knees': {
      // The knees give way first (the body drops almost straight down onto them), then it tips onto its side.
      const drop = smooth(u / 0.55);
      const tip = u < 0.55 ? 0 : ((u - 0.55) / 0.45) ** 2;
      const knelt = kneeling(dim, start.pelvis.x, start.pelvis.y, yaw);
      knelt.hipFlex = [0.2, 0.2];
      knelt.knee = [1.7, 1.7];
      knelt.trunkFlex = 0.3;
      knelt.pelvis = { ...knelt.pelvis, z: dim.shank * 0.9 + 0.04 };
      const down = blendPose(start, knelt, drop);
      const out = blendPose(down, end, tip);
      out.roll = end.roll * tip;
      out.headPitch = 0.4 * drop * (1 - tip);
      return out;
    }
    case 'slump': {
      // Trunk folds forward on the chair, then the body slides off the seat onto its side.
      const fold = smooth(u / 0.45);
      const slide = u < 0.35 ? 0 : ((u - 0.35) / 0.65) ** 2;
      // Folded forward, then unfolding to the lying posture as the body slides off (ends at `end`, no snap).
      pose.trunkFlex = start.trunkFlex + (0.9 - start.trunkFlex) * fold * (1 - slide) + (end.trunkFlex - start.trunkFlex) * slide;
      pose.roll = end.roll * slide;
      pose.hipFlex = [start.hipFlex[0] + (end.hipFlex[0] - start.hipFlex[0]) * slide, start.hipFlex[1] + (end.hipFlex[1] - start.hipFlex[1]) * slide];
      pose.knee = [start.knee[0] + (end.knee[0] - start.knee[0]) * slide, start.knee[1] + (end.knee[1] - start.knee[1]) * slide];
      pose.pelvis = {
        x: start.pelvis.x + (end.pelvis.x - start.pelvis.x) * slide,
        y: start.pelvis.y + (end.pelvis.y - start.pelvis.y) * slide,
        z: start.pelvis.z + (end.pelvis.z - start.pelvis.z) * slide,
      };
      pose.headPitch = 0.5 * fold * (1 - slide);
      break;
    }
  }
  return pose;
}
