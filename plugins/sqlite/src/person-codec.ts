import { COCO_KEYPOINTS, type Keypoint, type Keypoint3D, type Person, type StoredPerson } from '@wiflow/core';
import { PERSON_BODY_COCO_2D, PERSON_BODY_COCO_3D, keypointNameIndexes, decodePersonBody, encodePersonBody, isPersonBody, isPlainBox, isPlainVector, personColumns, writeBodyHeader, writeKeypoints3d, type ByteAllocator, type DecodedPersonBody, type PersonColumns } from '@wiflow/storage-kit';

const freshBytes: ByteAllocator = (length) => new Uint8Array(length);

/**
 * The schema-1 keypoint blob, read by migration 4 when it re-encodes older rows (new rows use encodePersonBody of @wiflow/storage-kit):
 * 2D and 3D keypoints in one blob: an 8-byte header (flags, counts), the name indexes when
 * they are not plain COCO order, then doubles: [x, y, confidence, visible] per 2D keypoint
 * and [x, y, z, confidence] per 3D keypoint. Exact (doubles) and several times cheaper to
 * write and read than JSON, which matters at 50k person records a second. Returns null when
 * a name is not a COCO keypoint or there are more than 255 (the caller falls back to JSON).
 */
export function encodeKeypoints(keypoints: Keypoint[], keypoints3d: Keypoint3D[]): Buffer | null {
  if (keypoints.length > 255 || keypoints3d.length > 255) return null;
  const names2d = keypointNameIndexes(keypoints);
  const names3d = keypointNameIndexes(keypoints3d);
  if (!names2d || !names3d) return null;
  const flags = (names2d.inOrder ? PERSON_BODY_COCO_2D : 0) | (names3d.inOrder ? PERSON_BODY_COCO_3D : 0);
  const nameBytes = (names2d.inOrder ? 0 : keypoints.length) + (names3d.inOrder ? 0 : keypoints3d.length);
  const dataOffset = 8 + Math.ceil(nameBytes / 8) * 8;
  const buffer = Buffer.alloc(dataOffset + (keypoints.length + keypoints3d.length) * 32);
  writeBodyHeader(buffer, flags, keypoints.length, keypoints3d.length, names2d, names3d);
  const values = new Float64Array(buffer.buffer, buffer.byteOffset + dataOffset, (keypoints.length + keypoints3d.length) * 4);
  let o = 0;
  for (const k of keypoints) {
    values[o++] = k.x;
    values[o++] = k.y;
    values[o++] = k.confidence;
    values[o++] = k.visible ? 1 : 0;
  }
  writeKeypoints3d(values, o, keypoints3d);
  return buffer;
}

/** Decode what `encodeKeypoints` made. */
export function decodeKeypoints(blob: Buffer): { keypoints: Keypoint[]; keypoints3d: Keypoint3D[] } {
  const flags = blob[0]!;
  const n2d = blob[1]!;
  const n3d = blob[2]!;
  let at = 8;
  const names2d: number[] = [];
  const names3d: number[] = [];
  for (let i = 0; i < n2d; i++) names2d.push(flags & PERSON_BODY_COCO_2D ? i : blob[at++]!);
  for (let i = 0; i < n3d; i++) names3d.push(flags & PERSON_BODY_COCO_3D ? i : blob[at++]!);
  const dataOffset = 8 + Math.ceil((at - 8) / 8) * 8;
  // Copy to an aligned buffer: SQLite's blob may start at any byte offset.
  const values = new Float64Array(blob.buffer.slice(blob.byteOffset + dataOffset, blob.byteOffset + blob.byteLength));
  const keypoints: Keypoint[] = new Array(n2d);
  const keypoints3d: Keypoint3D[] = new Array(n3d);
  let o = 0;
  for (let i = 0; i < n2d; i++, o += 4) keypoints[i] = { name: COCO_KEYPOINTS[names2d[i]!]!, x: values[o]!, y: values[o + 1]!, confidence: values[o + 2]!, visible: values[o + 3] === 1 };
  for (let i = 0; i < n3d; i++, o += 4) keypoints3d[i] = { name: COCO_KEYPOINTS[names3d[i]!]!, x: values[o]!, y: values[o + 1]!, z: values[o + 2]!, confidence: values[o + 3]! };
  return { keypoints, keypoints3d };
}

/** A person split into the columns of `pose_persons`. */
export interface EncodedPerson extends PersonColumns {
  /** Keypoints, box and velocity (see encodePersonBody in @wiflow/storage-kit), or null when they went to `extra`. */
  body: Uint8Array | null;
  /** JSON of every other field (trackAge, dense pose, and what the blob could not hold), or null when there is none. */
  extra: string | null;
}

const COLUMN_FIELDS = new Set(['id', 'trackId', 'confidence', 'activity', 'trackStatus', 'position', 'keypoints', 'keypoints3d', 'boundingBox', 'velocity']);

/** Split a person into columns (bodies from `alloc`, see ByteAllocator). */
export function encodePerson(person: Person | StoredPerson, alloc: ByteAllocator = freshBytes): EncodedPerson {
  const { keypoints, keypoints3d, boundingBox, velocity, activity, trackStatus } = person;
  let extra: Record<string, unknown> | null = null;
  for (const key in person) {
    if (!COLUMN_FIELDS.has(key)) (extra ??= {})[key] = (person as unknown as Record<string, unknown>)[key];
  }
  const body = encodePersonBody(keypoints, keypoints3d, boundingBox, velocity, alloc);
  if (!body) {
    extra ??= {};
    extra.keypoints = keypoints;
    extra.keypoints3d = keypoints3d;
  }
  if ((!body || !isPlainBox(boundingBox)) && boundingBox !== undefined) (extra ??= {}).boundingBox = boundingBox;
  if ((!body || !isPlainVector(velocity)) && velocity !== undefined) (extra ??= {}).velocity = velocity;
  if (activity === undefined) (extra ??= {}).noActivity = true;
  if (trackStatus === undefined) (extra ??= {}).noTrackStatus = true;
  return {
    ...personColumns(person),
    body,
    extra: extra === null ? null : JSON.stringify(extra),
  };
}

/** A row of `pose_persons` (columns in this order, read with `.raw()`). */
export type PersonRow = [
  environmentId: string, ts: number, seq: number, frameSeq: number, frameId: number, personId: number | null, trackId: number | null,
  confidence: number, activity: string | null, trackStatus: string | null, x: number, y: number, cx: number, cy: number,
  body: Uint8Array | null, extra: string | null,
];

/** The columns of PersonRow, for SELECT lists (prefix with an alias where needed). */
export const PERSON_COLUMNS = 'environment_id, ts, seq, frame_seq, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, body, extra';

/** Rebuild the person from a row. */
export function decodePerson(row: PersonRow): StoredPerson {
  const extra = row[15] === null ? {} : (JSON.parse(row[15]) as Record<string, unknown>);
  const { noActivity, noTrackStatus, keypoints, keypoints3d, ...rest } = extra;
  const person = rest as unknown as StoredPerson;
  if (row[14]) {
    const body: DecodedPersonBody = isPersonBody(row[14]) ? decodePersonBody(row[14]) : decodeKeypoints(Buffer.from(row[14].buffer, row[14].byteOffset, row[14].byteLength));
    person.keypoints = body.keypoints;
    person.keypoints3d = body.keypoints3d;
    if (body.boundingBox) person.boundingBox = body.boundingBox;
    if (body.velocity) person.velocity = body.velocity;
  } else {
    person.keypoints = keypoints as Keypoint[];
    person.keypoints3d = keypoints3d as Keypoint3D[];
  }
  person.id = row[5];
  person.trackId = row[6];
  person.confidence = row[7];
  person.position = { x: row[10], y: row[11] };
  if (!noActivity) person.activity = row[8] as StoredPerson['activity'];
  if (!noTrackStatus) person.trackStatus = (row[9] ?? undefined) as StoredPerson['trackStatus'];
  return person;
}

const ACTIVITY_CODES = ['standing', 'walking', 'sitting', 'lying', 'falling', 'absent'] as const;
const ACTIVITY_CODE = new Map<string, number>(ACTIVITY_CODES.map((a, i) => [a, i]));

/**
 * What aggregation needs of a frame's persons, packed as doubles [confidence, activity code
 * (-1 = none), track id (NaN = none)] per person — about 24 bytes a person, so POST /pose/query
 * reads frame rows only. Null when an activity is not one of the known ones.
 */
export function encodePersonSummary(persons: { confidence: number; activity?: string | null; trackId: number | null }[], alloc: ByteAllocator = freshBytes): Uint8Array | null {
  for (const p of persons) if (p.activity !== null && p.activity !== undefined && !ACTIVITY_CODE.has(p.activity)) return null;
  const bytes = alloc(persons.length * 24);
  const values = new Float64Array(bytes.buffer, bytes.byteOffset, persons.length * 3);
  for (let i = 0; i < persons.length; i++) {
    const p = persons[i]!;
    values[i * 3] = p.confidence;
    values[i * 3 + 1] = p.activity === null || p.activity === undefined ? -1 : ACTIVITY_CODE.get(p.activity)!;
    values[i * 3 + 2] = p.trackId ?? Number.NaN;
  }
  return bytes;
}

/** Decode what `encodePersonSummary` made. */
export function decodePersonSummary(blob: Buffer): { confidence: number; activity: (typeof ACTIVITY_CODES)[number] | null; trackId: number | null }[] {
  const values = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const out = [];
  for (let i = 0; i < values.length; i += 3) {
    const code = values[i + 1]!;
    const trackId = values[i + 2]!;
    out.push({ confidence: values[i]!, activity: code < 0 ? null : ACTIVITY_CODES[code]!, trackId: Number.isNaN(trackId) ? null : trackId });
  }
  return out;
}
