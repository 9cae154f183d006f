import type { GroundTruthPerson } from '@wiflow/core';
import { scoredPairs } from '../eval/metrics.js';
import { cameraFrame, projectPoint, type VirtualCamera } from '../model/environment.js';
import type { RoomPoseInstant } from './room-pose-estimator.js';
import type { RoomPoseRows } from './room-pose-model.js';

// Fine-tuning from 2D-only labels: a user films the room with any camera and labels COCO
// keypoints in its image; no 3D. The network still predicts 3D joints; the loss projects them
// through the declared camera (`environment.json` camera) and compares pixels.

/** COCO ankles: where a standing or sitting person touches the floor. */
const ANKLES = [15, 16] as const;
/** Height of an ankle joint above the floor, m (the simulator's skeletons: 0.06–0.09). */
const ANKLE_HEIGHT_M = 0.08;

/**
 * A labelled person's floor position from 2D keypoints alone: the ray through the mean of the
 * visible ankles, met with the plane at ankle height. Null when no ankle is labelled or the
 * ray does not come down to the floor in front of the camera (a person lying may be placed
 * wrong by it; the 1 m gate of the rows then leaves them out).
 */
export function floorFromKeypoints2d(camera: VirtualCamera, keypoints2d: readonly (readonly number[])[]): { x: number; y: number } | null {
  const visible = ANKLES.filter((j) => keypoints2d[j][2] > 0);
  if (visible.length === 0) return null;
  const u = visible.reduce((s, j) => s + keypoints2d[j][0], 0) / visible.length;
  const v = visible.reduce((s, j) => s + keypoints2d[j][1], 0) / visible.length;
  const { focal, right, down, forward } = cameraFrame(camera);
  const a = (u - camera.width / 2) / focal, b = (v - camera.height / 2) / focal;
  const ray = [0, 1, 2].map((d) => forward[d] + a * right[d] + b * down[d]);
  if (ray[2] >= -1e-6) return null;
  const t = (ANKLE_HEIGHT_M - camera.position[2]) / ray[2];
  return { x: camera.position[0] + t * ray[0], y: camera.position[1] + t * ray[1] };
}

/** One 2D-labelled row: the probe features, the located position, and the labelled pixels with their visibility. */
export interface ReprojectionRow {
  features: Float32Array;
  position: { x: number; y: number };
  /** 17 × [u, v] pixels. */
  keypoints: Float32Array;
  /** 17 × 1 (labelled) or 0. */
  visible: Float32Array;
}

/**
 * Rows of one estimate from 2D labels: each labelled person, placed on the floor from its
 * ankles, paired with a hypothesis as evaluation pairs people; pairs farther apart than
 * `maxFloorErrorM` are the locator's misses and are left out (as with 3D rows).
 */
export function reprojectionRows(instant: RoomPoseInstant, camera: VirtualCamera, labelled: readonly { keypoints2d: readonly (readonly number[])[] }[], maxFloorErrorM = 1): ReprojectionRow[] {
  const people: (GroundTruthPerson & { keypoints2d: readonly (readonly number[])[] })[] = [];
  labelled.forEach((p, id) => {
    const position = floorFromKeypoints2d(camera, p.keypoints2d);
    if (position) people.push({ id, keypoints3d: [], position, activity: 'standing', keypoints2d: p.keypoints2d });
  });
  const indexed = instant.located.hypotheses.map((h, i) => ({ ...h, index: i }));
  const rows: ReprojectionRow[] = [];
  const keypointsOf = new Map(people.map((p) => [p.id, p.keypoints2d]));
  for (const [truth, h] of scoredPairs({ truth: people, predicted: indexed, presenceThreshold: instant.presenceThreshold })) {
    if (Math.hypot(truth.position.x - h.position.x, truth.position.y - h.position.y) > maxFloorErrorM) continue;
    const k2 = keypointsOf.get(truth.id)!;
    const keypoints = new Float32Array(34), visible = new Float32Array(17);
    for (let j = 0; j < 17; j++) {
      keypoints[2 * j] = k2[j][0];
      keypoints[2 * j + 1] = k2[j][1];
      visible[j] = k2[j][2] > 0 ? 1 : 0;
    }
    rows.push({ features: instant.features[h.index], position: { x: h.position.x, y: h.position.y }, keypoints, visible });
  }
  return rows;
}

/** Pixel distances between a 3D skeleton (room frame) projected through the camera and labelled 2D keypoints: their sum over the labelled joints in front of the camera, and how many. */
export function reprojectionErrorPx(camera: VirtualCamera, skeleton: readonly (readonly number[])[], keypoints2d: readonly (readonly number[])[]): { sumPx: number; joints: number } {
  let sumPx = 0, joints = 0;
  for (let j = 0; j < 17; j++) {
    if (keypoints2d[j][2] <= 0) continue;
    const p = projectPoint(camera, skeleton[j]);
    if (p.depth <= 1e-6) continue;
    sumPx += Math.hypot(p.x - keypoints2d[j][0], p.y - keypoints2d[j][1]);
    joints++;
  }
  return { sumPx, joints };
}

/** 2D-labelled rows as the trainer takes them (`RoomPoseRows.labels2d`; no 3D targets). */
export function packReprojectionRows(rows: readonly ReprojectionRow[], width: number, camera: VirtualCamera): RoomPoseRows {
  const n = rows.length;
  const features = new Float32Array(n * width), positions = new Float32Array(n * 2), keypoints = new Float32Array(n * 34), visible = new Float32Array(n * 17);
  rows.forEach((r, i) => {
    features.set(r.features, i * width);
    positions[2 * i] = r.position.x;
    positions[2 * i + 1] = r.position.y;
    keypoints.set(r.keypoints, i * 34);
    visible.set(r.visible, i * 17);
  });
  return { features, targets: new Float32Array(n * 51), count: n, width, labels2d: { camera, positions, keypoints, visible } };
}

/** Mean reprojection error of one skeleton source on the held-out rows. */
export interface ReprojectionFigure {
  /** Mean pixel distance over labelled joints (640 × 480 camera); null with no rows. */
  meanPx: number | null;
  joints: number;
}

/** Mean reprojection error of a skeleton source over rows: pixels per labelled joint. */
export function meanReprojectionError(rows: readonly ReprojectionRow[], camera: VirtualCamera, skeletonOf: (row: ReprojectionRow) => number[][]): ReprojectionFigure {
  let sum = 0, joints = 0;
  for (const row of rows) {
    const labelled = Array.from({ length: 17 }, (_, j) => [row.keypoints[2 * j], row.keypoints[2 * j + 1], row.visible[j]]);
    const e = reprojectionErrorPx(camera, skeletonOf(row), labelled);
    sum += e.sumPx;
    joints += e.joints;
  }
  return { meanPx: joints ? sum / joints : null, joints };
}

