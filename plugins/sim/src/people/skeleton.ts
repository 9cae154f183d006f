import type { Mat3, Vec3 } from '../geometry/vec3.js';
import { add, mul, rotX, rotY, rotZ, scale, sub } from '../geometry/vec3.js';

/**
 * Body dimensions of one simulated person. Segment lengths follow anthropometric ratios of
 * stature (Drillis & Contini): hip joint at 0.530 h, shoulder at 0.818 h, thigh 0.245 h,
 * shank 0.246 h, upper arm 0.186 h, forearm 0.146 h.
 */
export interface BodySize {
  /** Stature in metres. */
  height: number;
  /** Girth factor scaling segment radii (1 = average build). */
  girth: number;
}

/** Segment lengths in metres derived from a body size. */
export interface BodyDimensions {
  height: number;
  girth: number;
  ankleHeight: number;
  shank: number;
  thigh: number;
  hipHeight: number;
  torso: number;
  neck: number;
  headUp: number;
  hipHalfWidth: number;
  shoulderHalfWidth: number;
  upperArm: number;
  forearm: number;
}

/** Lengths of every segment for a body size. */
export function bodyDimensions(size: BodySize): BodyDimensions {
  const h = size.height;
  return {
    height: h,
    girth: size.girth,
    ankleHeight: 0.039 * h,
    shank: 0.246 * h,
    thigh: 0.245 * h,
    hipHeight: 0.53 * h,
    torso: 0.288 * h,
    neck: 0.055 * h,
    headUp: 0.06 * h,
    hipHalfWidth: 0.055 * h,
    shoulderHalfWidth: 0.115 * h,
    upperArm: 0.186 * h,
    forearm: 0.146 * h,
  };
}

/** Left/right pair of joint angles (radians). */
export type Pair = [number, number];

/**
 * Joint-angle description of a posture. The body frame has x forward, y to the person's
 * left, z up; it is the room frame turned by `yaw`, then tilted by `pitch` (forward, +π/2 =
 * face down) and `roll` (sideways, +π/2 = lying on the right side).
 */
export interface PoseParams {
  /** Hip-joint centre in the room frame (m). */
  pelvis: Vec3;
  yaw: number;
  pitch: number;
  roll: number;
  /** Torso bend forward relative to the pelvis. */
  trunkFlex: number;
  /** Torso bend to the left relative to the pelvis. */
  trunkSide: number;
  /** Thigh swung forward (π/2 = horizontal, as when sitting). */
  hipFlex: Pair;
  /** Thigh swung outward. */
  hipAbd: Pair;
  /** Knee flexion (0 = straight). */
  knee: Pair;
  /** Arm swung forward (π = straight up). */
  shoulderFlex: Pair;
  /** Arm swung outward. */
  shoulderAbd: Pair;
  /** Elbow flexion (0 = straight). */
  elbow: Pair;
  /** Head nod forward. */
  headPitch: number;
  /** Chest wall displacement from breathing (m), forward positive. */
  breath: number;
}

/** A neutral upright posture at a floor position. */
export function standingPose(dim: BodyDimensions, x: number, y: number, yaw: number): PoseParams {
  return {
    pelvis: { x, y, z: dim.hipHeight },
    yaw,
    pitch: 0,
    roll: 0,
    trunkFlex: 0,
    trunkSide: 0,
    hipFlex: [0, 0],
    hipAbd: [0.03, 0.03],
    knee: [0.03, 0.03],
    shoulderFlex: [0.05, 0.05],
    shoulderAbd: [0.12, 0.12],
    elbow: [0.15, 0.15],
    headPitch: 0,
    breath: 0,
  };
}

/** Blend two postures (angles linearly, yaw along the shorter arc). */
export function blendPose(a: PoseParams, b: PoseParams, t: number): PoseParams {
  const l = (u: number, v: number) => u + (v - u) * t;
  const lp = (u: Pair, v: Pair): Pair => [l(u[0], v[0]), l(u[1], v[1])];
  let dyaw = b.yaw - a.yaw;
  dyaw = Math.atan2(Math.sin(dyaw), Math.cos(dyaw));
  return {
    pelvis: { x: l(a.pelvis.x, b.pelvis.x), y: l(a.pelvis.y, b.pelvis.y), z: l(a.pelvis.z, b.pelvis.z) },
    yaw: a.yaw + dyaw * t,
    pitch: l(a.pitch, b.pitch),
    roll: l(a.roll, b.roll),
    trunkFlex: l(a.trunkFlex, b.trunkFlex),
    trunkSide: l(a.trunkSide, b.trunkSide),
    hipFlex: lp(a.hipFlex, b.hipFlex),
    hipAbd: lp(a.hipAbd, b.hipAbd),
    knee: lp(a.knee, b.knee),
    shoulderFlex: lp(a.shoulderFlex, b.shoulderFlex),
    shoulderAbd: lp(a.shoulderAbd, b.shoulderAbd),
    elbow: lp(a.elbow, b.elbow),
    headPitch: l(a.headPitch, b.headPitch),
    breath: l(a.breath, b.breath),
  };
}

/** COCO-17 keypoint indices. */
export const K = {
  nose: 0, leftEye: 1, rightEye: 2, leftEar: 3, rightEar: 4,
  leftShoulder: 5, rightShoulder: 6, leftElbow: 7, rightElbow: 8, leftWrist: 9, rightWrist: 10,
  leftHip: 11, rightHip: 12, leftKnee: 13, rightKnee: 14, leftAnkle: 15, rightAnkle: 16,
} as const;

/** An articulated body at one instant: keypoints and the frames needed to place body segments. */
export interface Skeleton {
  /** COCO-17 keypoints in the room frame, metres. */
  keypoints: Vec3[];
  /** Hip-joint centre. */
  pelvis: Vec3;
  /** Shoulder centre. */
  shoulderCentre: Vec3;
  /** Head centre. */
  headCentre: Vec3;
  /** Torso orientation (columns: forward, left, up). */
  torsoFrame: Mat3;
  /** Head orientation. */
  headFrame: Mat3;
  /** Chest displacement from breathing (m). */
  breath: number;
}

/** origin + m · (x, y, z), as a new point (the one allocation per keypoint). */
function place(origin: Vec3, m: Mat3, x: number, y: number, z: number): Vec3 {
  return {
    x: origin.x + m[0] * x + m[1] * y + m[2] * z,
    y: origin.y + m[3] * x + m[4] * y + m[5] * z,
    z: origin.z + m[6] * x + m[7] * y + m[8] * z,
  };
}

/** origin + m · limbDirection(flex, abd, side) · length: a limb swung forward by flex and outward by abd. */
function limbEnd(origin: Vec3, m: Mat3, flex: number, abd: number, side: number, length: number): Vec3 {
  const ca = Math.cos(abd) * length;
  return place(origin, m, Math.sin(flex) * ca, side * Math.sin(abd) * length, -Math.cos(flex) * ca);
}

/**
 * Forward kinematics: joint angles → COCO-17 keypoints. When the posture would put a
 * keypoint under the floor, the whole body is lifted so that its lowest keypoint touches it.
 */
export function forwardKinematics(dim: BodyDimensions, p: PoseParams): Skeleton {
  const root = mul(mul(rotZ(p.yaw), rotY(p.pitch)), rotX(p.roll));
  const torso = mul(mul(root, rotY(p.trunkFlex)), rotX(-p.trunkSide));
  const head = mul(torso, rotY(p.headPitch));
  const kp: Vec3[] = new Array(17);
  const pelvis = p.pelvis;
  for (let i = 0; i < 2; i++) {
    const side = i === 0 ? 1 : -1;
    const hip = place(pelvis, root, 0, side * dim.hipHalfWidth, 0);
    const knee = limbEnd(hip, root, p.hipFlex[i], p.hipAbd[i], side, dim.thigh);
    kp[i === 0 ? K.leftHip : K.rightHip] = hip;
    kp[i === 0 ? K.leftKnee : K.rightKnee] = knee;
    kp[i === 0 ? K.leftAnkle : K.rightAnkle] = limbEnd(knee, root, p.hipFlex[i] - p.knee[i], p.hipAbd[i], side, dim.shank);
  }
  const shoulderCentre = place(pelvis, torso, 0, 0, dim.torso + 0.3 * p.breath);
  for (let i = 0; i < 2; i++) {
    const side = i === 0 ? 1 : -1;
    const shoulder = place(shoulderCentre, torso, 0, side * dim.shoulderHalfWidth, 0);
    const elbow = limbEnd(shoulder, torso, p.shoulderFlex[i], p.shoulderAbd[i], side, dim.upperArm);
    kp[i === 0 ? K.leftShoulder : K.rightShoulder] = shoulder;
    kp[i === 0 ? K.leftElbow : K.rightElbow] = elbow;
    kp[i === 0 ? K.leftWrist : K.rightWrist] = limbEnd(elbow, torso, p.shoulderFlex[i] + p.elbow[i], p.shoulderAbd[i], side, dim.forearm);
  }
  const neck = place(shoulderCentre, torso, 0, 0, dim.neck);
  const headCentre = place(neck, head, 0, 0, dim.headUp);
  const h = dim.height;
  kp[K.nose] = place(headCentre, head, 0.055 * h, 0, -0.012 * h);
  kp[K.leftEye] = place(headCentre, head, 0.045 * h, 0.018 * h, 0.005 * h);
  kp[K.rightEye] = place(headCentre, head, 0.045 * h, -0.018 * h, 0.005 * h);
  kp[K.leftEar] = place(headCentre, head, -0.005 * h, 0.043 * h, 0);
  kp[K.rightEar] = place(headCentre, head, -0.005 * h, -0.043 * h, 0);
  let minZ = Infinity;
  for (let i = 0; i < 17; i++) if (kp[i].z < minZ) minZ = kp[i].z;
  if (minZ < 0) {
    const lift = -minZ;
    for (let i = 0; i < 17; i++) kp[i].z += lift;
    shoulderCentre.z += lift;
    headCentre.z += lift;
    return { keypoints: kp, pelvis: { x: pelvis.x, y: pelvis.y, z: pelvis.z + lift }, shoulderCentre, headCentre, torsoFrame: torso, headFrame: head, breath: p.breath };
  }
  return { keypoints: kp, pelvis, shoulderCentre, headCentre, torsoFrame: torso, headFrame: head, breath: p.breath };
}

/** A body segment as an ellipsoid: centre, orientation and semi-axes (a, b across, c along the local z). */
export interface BodySegment {
  name: string;
  centre: Vec3;
  /** Columns are the ellipsoid's local axes in the room frame. */
  frame: Mat3;
  a: number;
  b: number;
  c: number;
  /** The segment's axis end points and bounding radius, for shadowing tests. */
  p0: Vec3;
  p1: Vec3;
  radius: number;
}

/** Orthonormal frame whose z axis points along (ax, ay, az), x as close as possible to (hx, hy, hz). */
function frameAlong(ax: number, ay: number, az: number, hx: number, hy: number, hz: number): Mat3 {
  const zl = Math.sqrt(ax * ax + ay * ay + az * az) || 1;
  const zx = ax / zl;
  const zy = ay / zl;
  const zz = az / zl;
  let d = hx * zx + hy * zy + hz * zz;
  let xx = hx - d * zx;
  let xy = hy - d * zy;
  let xz = hz - d * zz;
  let xl = Math.sqrt(xx * xx + xy * xy + xz * xz);
  if (xl < 1e-6) {
    // The hint is parallel to the axis: fall back to vertical (or x for a vertical axis).
    [xx, xy, xz] = Math.abs(zz) < 0.9 ? [0, 0, 1] : [1, 0, 0];
    d = xx * zx + xy * zy + xz * zz;
    xx -= d * zx;
    xy -= d * zy;
    xz -= d * zz;
    xl = Math.sqrt(xx * xx + xy * xy + xz * xz);
  }
  xx /= xl;
  xy /= xl;
  xz /= xl;
  const yx = zy * xz - zz * xy;
  const yy = zz * xx - zx * xz;
  const yz = zx * xy - zy * xx;
  return [xx, yx, zx, xy, yy, zy, xz, yz, zz];
}

/**
 * The ten scattering bodies of a skeleton: head, torso, upper arms, forearms, thighs, shanks,
 * each an ellipsoid spanning its two keypoints with radii scaled by the person's girth.
 * Breathing moves the torso's front surface forward by `breath`.
 */
export function bodySegments(dim: BodyDimensions, s: Skeleton): BodySegment[] {
  const g = dim.girth;
  const k = s.keypoints;
  const fwdT = { x: s.torsoFrame[0], y: s.torsoFrame[3], z: s.torsoFrame[6] };
  const limb = (name: string, i: number, j: number, radius: number): BodySegment => {
    const p0 = k[i];
    const p1 = k[j];
    const dx = p1.x - p0.x;
    const dy = p1.y - p0.y;
    const dz = p1.z - p0.z;
    const half = Math.max(0.02, Math.sqrt(dx * dx + dy * dy + dz * dz) / 2);
    return {
      name,
      centre: { x: (p0.x + p1.x) / 2, y: (p0.y + p1.y) / 2, z: (p0.z + p1.z) / 2 },
      frame: frameAlong(dx, dy, dz, fwdT.x, fwdT.y, fwdT.z),
      a: radius,
      b: radius,
      c: half + radius * 0.3,
      p0,
      p1,
      radius,
    };
  };
  const torsoAxis = sub(s.shoulderCentre, s.pelvis);
  const torsoHalf = Math.hypot(torsoAxis.x, torsoAxis.y, torsoAxis.z) / 2;
  const torsoCentre = add(scale(add(s.pelvis, s.shoulderCentre), 0.5), scale(fwdT, s.breath));
  const headUpVec = { x: s.headFrame[2], y: s.headFrame[5], z: s.headFrame[8] };
  const fwdH = { x: s.headFrame[0], y: s.headFrame[3], z: s.headFrame[6] };
  const headHalf = 0.065 * dim.height;
  return [
    {
      name: 'head',
      centre: s.headCentre,
      frame: frameAlong(headUpVec.x, headUpVec.y, headUpVec.z, fwdH.x, fwdH.y, fwdH.z),
      a: 0.055 * dim.height * Math.sqrt(g),
      b: 0.045 * dim.height * Math.sqrt(g),
      c: headHalf,
      p0: add(s.headCentre, scale(headUpVec, -headHalf)),
      p1: add(s.headCentre, scale(headUpVec, headHalf)),
      radius: 0.05 * dim.height,
    },
    {
      name: 'torso',
      centre: torsoCentre,
      frame: frameAlong(torsoAxis.x, torsoAxis.y, torsoAxis.z, fwdT.x, fwdT.y, fwdT.z),
      a: 0.063 * dim.height * g,
      b: 0.095 * dim.height * g,
      c: torsoHalf + 0.03,
      p0: s.pelvis,
      p1: s.shoulderCentre,
      radius: 0.09 * dim.height * g,
    },
    limb('left_upper_arm', K.leftShoulder, K.leftElbow, 0.026 * dim.height * g),
    limb('right_upper_arm', K.rightShoulder, K.rightElbow, 0.026 * dim.height * g),
    limb('left_forearm', K.leftElbow, K.leftWrist, 0.021 * dim.height * g),
    limb('right_forearm', K.rightElbow, K.rightWrist, 0.021 * dim.height * g),
    limb('left_thigh', K.leftHip, K.leftKnee, 0.043 * dim.height * g),
    limb('right_thigh', K.rightHip, K.rightKnee, 0.043 * dim.height * g),
    limb('left_shank', K.leftKnee, K.leftAnkle, 0.03 * dim.height * g),
    limb('right_shank', K.rightKnee, K.rightAnkle, 0.03 * dim.height * g),
  ];
}
