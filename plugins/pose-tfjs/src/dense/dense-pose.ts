import type { BoundingBox } from '@wiflow/core';
import { projectPoint, type VirtualCamera } from '../model/environment.js';
import { encodePng } from './png.js';

/** The 24 DensePose body parts (index = part id), the usual DensePose-COCO names. */
export const DENSE_POSE_PARTS = [
  'background', 'torso_back', 'torso_front', 'right_hand', 'left_hand', 'left_foot', 'right_foot',
  'upper_leg_right_back', 'upper_leg_left_back', 'upper_leg_right_front', 'upper_leg_left_front',
  'lower_leg_right_back', 'lower_leg_left_back', 'lower_leg_right_front', 'lower_leg_left_front',
  'upper_arm_left_inside', 'upper_arm_right_inside', 'upper_arm_left_outside', 'upper_arm_right_outside',
  'lower_arm_left_inside', 'lower_arm_right_inside', 'lower_arm_left_outside', 'lower_arm_right_outside',
  'head_right', 'head_left',
] as const;

type V3 = [number, number, number];
const sub = (a: readonly number[], b: readonly number[]): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: readonly number[], b: readonly number[]): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a: readonly number[], s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: readonly number[], b: readonly number[]): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: readonly number[]) => Math.hypot(a[0], a[1], a[2]);
const unit = (a: readonly number[]): V3 => { const n = norm(a) || 1; return [a[0] / n, a[1] / n, a[2] / n]; };
const mid = (a: readonly number[], b: readonly number[]): V3 => mul(add(a, b), 0.5);

/**
 * A body-model primitive: a capsule (or a sphere when `a` = `b`) whose surface is split in
 * two parts by the sign of `side · normal` (front/back, inside/outside, left/right).
 */
interface Primitive {
  a: V3;
  b: V3;
  radius: number;
  /** Reference direction perpendicular to the axis; u runs around the axis from it. */
  side: V3;
  /** Part id where the normal points along `side`, and where it points away. */
  parts: [number, number];
}

/** The body model: capsules and spheres sized from the skeleton itself (so it follows any body size). */
function bodyModel(k: readonly (readonly number[])[]): Primitive[] {
  const lsho = k[5], rsho = k[6], lhip = k[11], rhip = k[12];
  const shoulderMid = mid(lsho, rsho), hipMid = mid(lhip, rhip);
  const left = unit(sub(add(lsho, lhip), add(rsho, rhip)));
  const up = unit(sub(shoulderMid, hipMid));
  const forward = unit(cross(left, up));
  const shoulderWidth = Math.max(0.2, norm(sub(lsho, rsho)));
  const limb = (i: number, j: number, radius: number, side: V3, parts: [number, number]): Primitive => ({ a: [...k[i]] as V3, b: [...k[j]] as V3, radius, side, parts });
  const inward = (fromLeft: boolean): V3 => (fromLeft ? mul(left, -1) : left);
  const head = mul(add(add(k[0], k[3]), k[4]), 1 / 3);
  const s = shoulderWidth;
  return [
    { a: hipMid, b: shoulderMid, radius: 0.42 * s, side: forward, parts: [2, 1] },
    limb(12, 14, 0.2 * s, forward, [9, 7]), limb(11, 13, 0.2 * s, forward, [10, 8]),
    limb(14, 16, 0.14 * s, forward, [13, 11]), limb(13, 15, 0.14 * s, forward, [14, 12]),
    limb(5, 7, 0.12 * s, inward(true), [15, 17]), limb(6, 8, 0.12 * s, inward(false), [16, 18]),
    limb(7, 9, 0.1 * s, inward(true), [19, 21]), limb(8, 10, 0.1 * s, inward(false), [20, 22]),
    { a: [...k[10]] as V3, b: [...k[10]] as V3, radius: 0.12 * s, side: forward, parts: [3, 3] },
    { a: [...k[9]] as V3, b: [...k[9]] as V3, radius: 0.12 * s, side: forward, parts: [4, 4] },
    { a: [...k[15]] as V3, b: [...k[15]] as V3, radius: 0.12 * s, side: forward, parts: [5, 5] },
    { a: [...k[16]] as V3, b: [...k[16]] as V3, radius: 0.12 * s, side: forward, parts: [6, 6] },
    { a: head, b: head, radius: 0.3 * s, side: mul(left, -1), parts: [23, 24] },
  ];
}

/** One surface sample: its part, UV in the part's chart, the room-frame point and normal. */
interface SurfaceSample {
  part: number;
  u: number;
  v: number;
  point: V3;
  normal: V3;
}

function* surface(p: Primitive, along: number, around: number): Generator<SurfaceSample> {
  const axisVector = sub(p.b, p.a);
  const length = norm(axisVector);
  const sphere = length < 1e-6;
  const w = sphere ? [0, 0, 1] as V3 : unit(axisVector);
  let e1 = sub(p.side, mul(w, dot(p.side, w)));
  if (norm(e1) < 1e-6) e1 = Math.abs(w[0]) < 0.9 ? unit(cross(w, [1, 0, 0])) : unit(cross(w, [0, 1, 0]));
  e1 = unit(e1);
  const e2 = cross(w, e1);
  for (let i = 0; i < along; i++) {
    const v = (i + 0.5) / along;
    for (let j = 0; j < around; j++) {
      const theta = ((j + 0.5) / around) * 2 * Math.PI - Math.PI / 2;
      const c = Math.cos(theta), s = Math.sin(theta);
      // Sphere: v is the polar coordinate; capsule: v runs along the axis.
      const ring = sphere ? Math.sin(Math.PI * v) : 1;
      const lift = sphere ? Math.cos(Math.PI * v) : 0;
      const normal = add(add(mul(e1, c * ring), mul(e2, s * ring)), mul(w, lift));
      const centre = sphere ? p.a : add(p.a, mul(axisVector, v));
      const front = c >= 0;
      const u = front ? (theta + Math.PI / 2) / Math.PI : ((theta - Math.PI / 2 + 2 * Math.PI) % (2 * Math.PI)) / Math.PI;
      yield { part: front ? p.parts[0] : p.parts[1], u: Math.min(1, Math.max(0, u)), v, point: add(centre, mul(normal, p.radius)), normal };
    }
  }
}

/** Convention A dense pose of one person. */
export interface DerivedBodyParts {
  source: 'derived';
  bodyParts: { partId: number; partName: string; uvCoordinates: [number, number][]; confidence: number }[];
}

/**
 * Convention A: per DensePose part, the (u, v) chart coordinates of the body-model surface
 * samples the virtual camera sees (facing it and inside the image). Derived from the
 * predicted 3D skeleton and a capsule body model, never learned.
 */
export function deriveBodyParts(camera: VirtualCamera, keypoints3d: readonly (readonly number[])[], confidence: number): DerivedBodyParts {
  const parts = new Map<number, [number, number][]>();
  for (const primitive of bodyModel(keypoints3d)) {
    for (const s of surface(primitive, 4, 8)) {
      if (dot(s.normal, sub(camera.position, s.point)) <= 0) continue;
      if (!projectPoint(camera, s.point).visible) continue;
      let list = parts.get(s.part);
      if (!list) parts.set(s.part, (list = []));
      list.push([Math.round(s.u * 1000) / 1000, Math.round(s.v * 1000) / 1000]);
    }
  }
  return {
    source: 'derived',
    bodyParts: [...parts.entries()].sort(([a], [b]) => a - b).map(([partId, uv]) => ({ partId, partName: DENSE_POSE_PARTS[partId], uvCoordinates: uv, confidence })),
  };
}

/** Convention B dense pose of one person: IUV and confidence images over its bounding box. */
export interface DerivedIuv {
  /** PNG, base64: R = part index (0 background, 1..24), G = U × 255, B = V × 255. */
  iuvImage: string;
  /** PNG, base64, grey: the person's confidence × 255 where a part is drawn, 0 elsewhere. */
  confidenceMap: string;
  width: number;
  height: number;
  /** The image-plane box the images cover (the person's bounding box). */
  box: BoundingBox;
}

/**
 * Convention B: render the body model's surface into an IUV image covering the person's
 * bounding box (`size` pixels on the long side), nearest surface first (z-buffer).
 */
export function deriveIuv(camera: VirtualCamera, keypoints3d: readonly (readonly number[])[], confidence: number, box: BoundingBox, size = 64): DerivedIuv {
  const scale = size / Math.max(1, box.width, box.height);
  const width = Math.max(1, Math.round(box.width * scale));
  const height = Math.max(1, Math.round(box.height * scale));
  const iuv = new Uint8Array(width * height * 3);
  const conf = new Uint8Array(width * height);
  const depth = new Float32Array(width * height).fill(Infinity);
  const c8 = Math.round(Math.min(1, Math.max(0, confidence)) * 255);
  for (const primitive of bodyModel(keypoints3d)) {
    for (const s of surface(primitive, 24, 32)) {
      const q = projectPoint(camera, s.point);
      if (q.depth <= 0) continue;
      const px = Math.floor((q.x - box.x) * scale);
      const py = Math.floor((q.y - box.y) * scale);
      if (px < 0 || py < 0 || px >= width || py >= height) continue;
      const i = py * width + px;
      if (q.depth >= depth[i]) continue;
      depth[i] = q.depth;
      iuv[3 * i] = s.part;
      iuv[3 * i + 1] = Math.round(s.u * 255);
      iuv[3 * i + 2] = Math.round(s.v * 255);
      conf[i] = c8;
    }
  }
  return {
    iuvImage: encodePng(width, height, 3, iuv).toString('base64'),
    confidenceMap: encodePng(width, height, 1, conf).toString('base64'),
    width,
    height,
    box,
  };
}
