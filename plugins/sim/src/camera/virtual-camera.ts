import { COCO_KEYPOINTS, type BoundingBox, type GroundTruthFrame, type Keypoint, type Keypoint3D, type Person } from '@wiflow/core';
import type { Vec3 } from '../geometry/vec3.js';
import { cross, dot, normalize, sub } from '../geometry/vec3.js';

/**
 * The environment's virtual camera: a pinhole with square pixels. Image axes: u to the
 * right, v down, origin at the top-left pixel corner. Pose models, the pose API and the
 * studio express 2D keypoints in this image plane.
 */
export interface VirtualCamera {
  /** Image size in pixels. */
  width: number;
  height: number;
  /** Focal lengths and principal point in pixels. */
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Camera centre in the room frame (m). */
  position: Vec3;
  /** Unit axes of the camera frame in the room frame: right (u), down (v), forward (optical axis). */
  right: Vec3;
  down: Vec3;
  forward: Vec3;
}

/** Build a camera at `position` looking at `lookAt`, with a horizontal field of view in degrees. */
export function createVirtualCamera(options: { position: Vec3; lookAt: Vec3; width?: number; height?: number; horizontalFovDeg?: number }): VirtualCamera {
  const width = options.width ?? 640;
  const height = options.height ?? 480;
  const fov = ((options.horizontalFovDeg ?? 90) * Math.PI) / 180;
  const forward = normalize(sub(options.lookAt, options.position));
  if (Math.hypot(forward.x, forward.y, forward.z) === 0) throw new RangeError('camera lookAt must differ from its position');
  let right = cross(forward, { x: 0, y: 0, z: 1 });
  if (Math.hypot(right.x, right.y, right.z) < 1e-6) right = { x: 1, y: 0, z: 0 };
  right = normalize(right);
  const down = cross(forward, right);
  const fx = width / 2 / Math.tan(fov / 2);
  return { width, height, fx, fy: fx, cx: width / 2, cy: height / 2, position: { ...options.position }, right, down, forward };
}

/** The default camera of a room: high in the south-west corner, looking at the room's centre at 0.9 m. */
export function defaultCamera(room: { width: number; depth: number; height: number }): VirtualCamera {
  return createVirtualCamera({
    position: { x: 0.05, y: 0.05, z: Math.min(2.4, room.height - 0.05) },
    lookAt: { x: room.width / 2, y: room.depth / 2, z: 0.9 },
    width: 640,
    height: 480,
    horizontalFovDeg: 100,
  });
}

/** Project one room-frame point; `depth` ≤ 0 means behind the camera. */
export function projectPoint(camera: VirtualCamera, p: Vec3): { x: number; y: number; depth: number } {
  const d = sub(p, camera.position);
  const depth = dot(d, camera.forward);
  if (depth <= 1e-6) return { x: 0, y: 0, depth };
  return { x: camera.fx * (dot(d, camera.right) / depth) + camera.cx, y: camera.fy * (dot(d, camera.down) / depth) + camera.cy, depth };
}

/**
 * Project COCO-17 keypoints (room frame, metres; as [17][3] arrays or points) to the image
 * plane. A keypoint is visible when it lies in front of the camera and inside the image;
 * behind the camera it gets x = y = 0, confidence 0.
 */
export function projectKeypoints(camera: VirtualCamera, keypoints3d: readonly (readonly number[])[] | readonly Vec3[]): Keypoint[] {
  return COCO_KEYPOINTS.map((name, i) => {
    const k = keypoints3d[i] as readonly number[] | Vec3;
    const p = Array.isArray(k) ? { x: k[0], y: k[1], z: k[2] } : (k as Vec3);
    const q = projectPoint(camera, p);
    if (q.depth <= 1e-6) return { name, x: 0, y: 0, confidence: 0, visible: false };
    const visible = q.x >= 0 && q.x < camera.width && q.y >= 0 && q.y < camera.height;
    return { name, x: q.x, y: q.y, confidence: 1, visible };
  });
}

/**
 * Bounding box of projected keypoints (those in front of the camera), grown by `padding`
 * of its size on each side (keypoints sit inside the body outline) and clipped to the image.
 * Returns a zero box when no keypoint is in front of the camera.
 */
export function keypointBoundingBox(camera: VirtualCamera, keypoints: readonly Keypoint[], padding = 0.1): BoundingBox {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const k of keypoints) {
    if (k.confidence <= 0) continue;
    x0 = Math.min(x0, k.x);
    y0 = Math.min(y0, k.y);
    x1 = Math.max(x1, k.x);
    y1 = Math.max(y1, k.y);
  }
  if (!Number.isFinite(x0)) return { x: 0, y: 0, width: 0, height: 0 };
  const pw = (x1 - x0) * padding;
  const ph = (y1 - y0) * padding;
  const bx0 = Math.max(0, x0 - pw);
  const by0 = Math.max(0, y0 - ph);
  const bx1 = Math.min(camera.width, x1 + pw);
  const by1 = Math.min(camera.height, y1 + ph);
  return { x: bx0, y: by0, width: Math.max(0, bx1 - bx0), height: Math.max(0, by1 - by0) };
}

/**
 * Ground truth as core `Person` records (keypoints in the camera's image plane, box, 3D
 * keypoints, floor position, activity), for scoring and for views that show the truth.
 * Confidence is 1 and trackId is the simulated person's id: these are not model outputs.
 */
export function groundTruthPersons(camera: VirtualCamera, truth: GroundTruthFrame): Person[] {
  return truth.persons.map((p, index) => {
    const keypoints = projectKeypoints(camera, p.keypoints3d);
    const keypoints3d: Keypoint3D[] = COCO_KEYPOINTS.map((name, i) => ({ name, x: p.keypoints3d[i][0], y: p.keypoints3d[i][1], z: p.keypoints3d[i][2], confidence: 1 }));
    return {
      id: index,
      trackId: p.id,
      confidence: 1,
      keypoints,
      boundingBox: keypointBoundingBox(camera, keypoints),
      keypoints3d,
      position: { ...p.position },
      activity: p.activity,
    };
  });
}
