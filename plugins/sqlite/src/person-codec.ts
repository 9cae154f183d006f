import { COCO_KEYPOINTS, type Keypoint, type Keypoint3D, type Person, type StoredPerson } from '@wiflow/core';

const NAME_INDEX = new Map<string, number>(COCO_KEYPOINTS.map((name, i) => [name, i]));

/**
 * Keypoints as Float64 blobs: [nameIndex, x, y, confidence, visible] per 2D keypoint and
 * [nameIndex, x, y, z, confidence] per 3D keypoint. Exact (doubles) and several times
 * cheaper to write and read than JSON, which matters at 50k person records a second.
 * Returns null when a name is not a COCO keypoint (the caller falls back to JSON).
 */
export function encodeKeypoints(keypoints: Keypoint[]): Buffer | null {
  const values = new Float64Array(keypoints.length * 5);
  for (let i = 0; i < keypoints.length; i++) {
    const k = keypoints[i]!;
    const index = NAME_INDEX.get(k.name);
    if (index === undefined) return null;
    const o = i * 5;
    values[o] = index;
    values[o + 1] = k.x;
    values[o + 2] = k.y;
    values[o + 3] = k.confidence;
    values[o + 4] = k.visible ? 1 : 0;
  }
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** Decode what `encodeKeypoints` made. */
export function decodeKeypoints(blob: Buffer): Keypoint[] {
  const values = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const out: Keypoint[] = new Array(values.length / 5);
  for (let i = 0; i < out.length; i++) {
    const o = i * 5;
    out[i] = { name: COCO_KEYPOINTS[values[o]!]!, x: values[o + 1]!, y: values[o + 2]!, confidence: values[o + 3]!, visible: values[o + 4] === 1 };
  }
  return out;
}

/** 3D keypoints as a Float64 blob; null when a name is not a COCO keypoint. */
export function encodeKeypoints3d(keypoints: Keypoint3D[]): Buffer | null {
  const values = new Float64Array(keypoints.length * 5);
  for (let i = 0; i < keypoints.length; i++) {
    const k = keypoints[i]!;
    const index = NAME_INDEX.get(k.name);
    if (index === undefined) return null;
    const o = i * 5;
    values[o] = index;
    values[o + 1] = k.x;
    values[o + 2] = k.y;
    values[o + 3] = k.z;
    values[o + 4] = k.confidence;
  }
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** Decode what `encodeKeypoints3d` made. */
export function decodeKeypoints3d(blob: Buffer): Keypoint3D[] {
  const values = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const out: Keypoint3D[] = new Array(values.length / 5);
  for (let i = 0; i < out.length; i++) {
    const o = i * 5;
    out[i] = { name: COCO_KEYPOINTS[values[o]!]!, x: values[o + 1]!, y: values[o + 2]!, z: values[o + 3]!, confidence: values[o + 4]! };
  }
  return out;
}

/** A person split into the columns of `pose_persons`. */
export interface EncodedPerson {
  personId: number | null;
  trackId: number | null;
  confidence: number;
  activity: string | null;
  trackStatus: string | null;
  x: number;
  y: number;
  cx: number;
  cy: number;
  keypoints: Buffer | null;
  keypoints3d: Buffer | null;
  /** JSON of every other field (bounding box, velocity, dense pose, and keypoints the blobs could not hold). */
  extra: string;
}

/** Split a person into columns. */
export function encodePerson(person: Person | StoredPerson): EncodedPerson {
  const { id, trackId, confidence, activity, trackStatus, position, keypoints, keypoints3d, ...rest } = person;
  const extra: Record<string, unknown> = rest;
  const kp = Array.isArray(keypoints) ? encodeKeypoints(keypoints) : null;
  if (!kp) extra.keypoints = keypoints;
  const kp3 = Array.isArray(keypoints3d) ? encodeKeypoints3d(keypoints3d) : null;
  if (!kp3) extra.keypoints3d = keypoints3d;
  if (activity === undefined) extra.noActivity = true;
  if (trackStatus === undefined) extra.noTrackStatus = true;
  const box = person.boundingBox;
  return {
    personId: id ?? null,
    trackId: trackId ?? null,
    confidence,
    activity: activity ?? null,
    trackStatus: trackStatus ?? null,
    x: position?.x ?? 0,
    y: position?.y ?? 0,
    cx: box ? box.x + box.width / 2 : 0,
    cy: box ? box.y + box.height / 2 : 0,
    keypoints: kp,
    keypoints3d: kp3,
    extra: JSON.stringify(extra),
  };
}

/** A row of `pose_persons` (columns in this order, read with `.raw()`). */
export type PersonRow = [
  seq: number, frameSeq: number, environmentId: string, ts: number, frameId: number, personId: number | null, trackId: number | null,
  confidence: number, activity: string | null, trackStatus: string | null, x: number, y: number, cx: number, cy: number,
  keypoints: Buffer | null, keypoints3d: Buffer | null, extra: string,
];

/** The columns of PersonRow, for SELECT lists. */
export const PERSON_COLUMNS = 'seq, frame_seq, environment_id, ts, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, keypoints, keypoints3d, extra';

/** Rebuild the person from a row. */
export function decodePerson(row: PersonRow): StoredPerson {
  const extra = JSON.parse(row[16]) as Record<string, unknown>;
  const { noActivity, noTrackStatus, keypoints, keypoints3d, ...rest } = extra;
  const person = {
    ...rest,
    id: row[5],
    trackId: row[6],
    confidence: row[7],
    position: { x: row[10], y: row[11] },
    keypoints: row[14] ? decodeKeypoints(row[14]) : (keypoints as Keypoint[]),
    keypoints3d: row[15] ? decodeKeypoints3d(row[15]) : (keypoints3d as Keypoint3D[]),
  } as StoredPerson;
  if (!noActivity) person.activity = row[8] as StoredPerson['activity'];
  if (!noTrackStatus) person.trackStatus = (row[9] ?? undefined) as StoredPerson['trackStatus'];
  return person;
}
