import { COCO_KEYPOINTS, type BoundingBox, type Keypoint, type Person } from '@wiflow/core';
import { deriveBodyParts, deriveIuv } from '../dense/dense-pose.js';
import { projectPoint, type EnvironmentGeometry, type VirtualCamera } from './environment.js';
import type { DecodedPerson } from './targets.js';

/** Which dense pose to attach: none, convention A (parts with UV), or A plus convention B (IUV images). */
export type DensePoseMode = 'none' | 'parts' | 'parts+iuv';

/** Project 3D keypoints to the camera; a keypoint's confidence is the person's where visible, 0 otherwise. */
export function projectKeypoints(camera: VirtualCamera, keypoints3d: readonly (readonly number[])[], confidence: number): Keypoint[] {
  return COCO_KEYPOINTS.map((name, i) => {
    const q = projectPoint(camera, keypoints3d[i]);
    return { name, x: q.x, y: q.y, confidence: q.visible ? confidence : 0, visible: q.visible };
  });
}

/** Box around the keypoints in front of the camera, grown by 10 % each side and clipped to the image. */
export function keypointBox(camera: VirtualCamera, keypoints3d: readonly (readonly number[])[]): BoundingBox {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const k of keypoints3d) {
    const q = projectPoint(camera, k);
    if (q.depth <= 1e-6) continue;
    x0 = Math.min(x0, q.x); y0 = Math.min(y0, q.y); x1 = Math.max(x1, q.x); y1 = Math.max(y1, q.y);
  }
  if (!Number.isFinite(x0)) return { x: 0, y: 0, width: 0, height: 0 };
  const pw = (x1 - x0) * 0.1, ph = (y1 - y0) * 0.1;
  const bx0 = Math.max(0, x0 - pw), by0 = Math.max(0, y0 - ph);
  const bx1 = Math.min(camera.width, x1 + pw), by1 = Math.min(camera.height, y1 + ph);
  return { x: bx0, y: by0, width: Math.max(0, bx1 - bx0), height: Math.max(0, by1 - by0) };
}

/** Turn decoded model slots above the presence threshold into core `Person` records. */
export function toPersons(decoded: readonly DecodedPerson[], environment: EnvironmentGeometry, threshold: number, densePose: DensePoseMode): Person[] {
  return decoded
    .filter((d) => d.presence > threshold)
    .map((d, id) => {
      const camera = environment.camera;
      const boundingBox = keypointBox(camera, d.keypoints3d);
      const person: Person = {
        id,
        trackId: d.trackId ?? null,
        ...(d.trackId !== null && d.trackId !== undefined ? { trackStatus: 'active' as const } : {}),
        confidence: d.presence,
        keypoints: projectKeypoints(camera, d.keypoints3d, d.presence),
        boundingBox,
        keypoints3d: COCO_KEYPOINTS.map((name, i) => ({ name, x: d.keypoints3d[i][0], y: d.keypoints3d[i][1], z: d.keypoints3d[i][2], confidence: d.presence })),
        position: { ...d.position },
        ...(d.evidence !== undefined ? { evidence: d.evidence } : {}),
        densePose: null,
        activity: null,
      };
      if (densePose !== 'none') {
        const parts = deriveBodyParts(camera, d.keypoints3d, d.presence);
        person.densePose = densePose === 'parts+iuv' && boundingBox.width > 0 && boundingBox.height > 0
          ? { ...parts, iuv: deriveIuv(camera, d.keypoints3d, d.presence, boundingBox) }
          : parts;
      }
      return person;
    });
}
