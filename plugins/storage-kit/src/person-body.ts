import { COCO_KEYPOINTS, type Keypoint, type Keypoint3D } from '@wiflow/core';

const NAME_INDEX = new Map<string, number>(COCO_KEYPOINTS.map((name, i) => [name, i]));
/** Layout flag (byte 0): the 2D keypoints are exactly COCO order, no name indexes stored. Older SQLite blobs use the same value. */
export const COCO_2D = 1;
/** Layout flag (byte 0): the 3D keypoints are exactly COCO order. */
export const COCO_3D = 2;
const IN_ORDER = { indexes: [] as number[], inOrder: true };

/** Name indexes of keypoints, or null when one is not a COCO name; `inOrder` tells whether they are exactly COCO order. */
export function keypointNameIndexes(keypoints: { name: string }[]): { indexes: number[]; inOrder: boolean } | null {
  if (keypoints.length === COCO_KEYPOINTS.length) {
    let i = 0;
    while (i < keypoints.length && keypoints[i]!.name === COCO_KEYPOINTS[i]) i++;
    if (i === keypoints.length) return IN_ORDER;
  }
  const indexes = new Array<number>(keypoints.length);
  let inOrder = keypoints.length === COCO_KEYPOINTS.length;
  for (let i = 0; i < keypoints.length; i++) {
    const name = keypoints[i]!.name;
    const index = name === COCO_KEYPOINTS[i] ? i : NAME_INDEX.get(name);
    if (index === undefined) return null;
    if (index !== i) inOrder = false;
    indexes[i] = index;
  }
  return { indexes, inOrder };
}

/** Layout flags of a person body blob (byte 0). */
const HAS_BOX = 4;
const HAS_VELOCITY = 8;
/** Set on every person body; storages that wrote older blobs (without it) tell them apart by it. */
const BODY_V2 = 0x80;

function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** Whether a bounding box is exactly `{x, y, width, height}` numbers: only such a box goes into a person body (anything else stays in the record's JSON). */
export function isPlainBox(box: unknown): box is { x: number; y: number; width: number; height: number } {
  if (typeof box !== 'object' || box === null) return false;
  const b = box as Record<string, unknown>;
  return typeof b.x === 'number' && typeof b.y === 'number' && typeof b.width === 'number' && typeof b.height === 'number' && keyCount(b) === 4;
}

/** Whether a velocity is exactly `{x, y}` numbers: only such a velocity goes into a person body. */
export function isPlainVector(v: unknown): v is { x: number; y: number } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.x === 'number' && typeof o.y === 'number' && keyCount(o) === 2;
}

/** Where a body's bytes go: a fresh array by default, or a slice of a batch's arena (8-byte aligned). */
export type ByteAllocator = (length: number) => Uint8Array;

const freshBytes: ByteAllocator = (length) => new Uint8Array(length);

/**
 * Start a person body (this layout and the older SQLite keypoint blob share it): byte 0 the layout
 * flags, bytes 1 and 2 the 2D and 3D keypoint counts, from byte 8 the name indexes of the keypoints
 * that are not in COCO order. Returns the byte after the names.
 */
export function writeBodyHeader(bytes: Uint8Array, flags: number, count2d: number, count3d: number, names2d: { indexes: number[]; inOrder: boolean }, names3d: { indexes: number[]; inOrder: boolean }): number {
  bytes[0] = flags;
  bytes[1] = count2d;
  bytes[2] = count3d;
  let at = 8;
  if (!names2d.inOrder) for (const index of names2d.indexes) bytes[at++] = index;
  if (!names3d.inOrder) for (const index of names3d.indexes) bytes[at++] = index;
  return at;
}

/** Write 3D keypoints as [x, y, z, confidence] into `values` from index `at`; returns the index after them. */
export function writeKeypoints3d(values: Float32Array | Float64Array, at: number, keypoints3d: readonly Keypoint3D[]): number {
  let o = at;
  for (const k of keypoints3d) {
    values[o++] = k.x;
    values[o++] = k.y;
    values[o++] = k.z;
    values[o++] = k.confidence;
  }
  return o;
}

/**
 * A person's geometry in one blob (schema 4): an 8-byte header (flags, counts), the COCO
 * name indexes when not in COCO order (padded to 8 bytes), the bounding box and velocity as
 * float64 (exact), then the keypoints as float32 — [x, y, confidence] per 2D keypoint and
 * [x, y, z, confidence] per 3D keypoint — and one visibility bit per 2D keypoint. float32 is
 * the model's own precision (its outputs are float32 tensors); values computed in float64
 * (the 2D projection, ground truth) are stored rounded to the nearest float32, a relative
 * error of at most 2^-24 (6e-8: 0.04 µm on a 1 m coordinate, 0.00004 px on 640 px). About 520
 * bytes for 17 + 17 keypoints, against 1,088 as float64 and ~2,900 as JSON. Null when a name
 * is not a COCO keypoint or there are more than 255 (the caller keeps them in JSON).
 */
export function encodePersonBody(keypoints: unknown, keypoints3d: unknown, box: unknown, velocity: unknown, alloc: ByteAllocator = freshBytes): Uint8Array | null {
  if (!Array.isArray(keypoints) || !Array.isArray(keypoints3d)) return null;
  const kp = keypoints as Keypoint[];
  const kp3 = keypoints3d as Keypoint3D[];
  if (kp.length > 255 || kp3.length > 255) return null;
  const names2d = keypointNameIndexes(kp);
  const names3d = keypointNameIndexes(kp3);
  if (!names2d || !names3d) return null;
  const hasBox = isPlainBox(box);
  const hasVelocity = isPlainVector(velocity);
  const flags = BODY_V2 | (names2d.inOrder ? COCO_2D : 0) | (names3d.inOrder ? COCO_3D : 0) | (hasBox ? HAS_BOX : 0) | (hasVelocity ? HAS_VELOCITY : 0);
  const nameBytes = (names2d.inOrder ? 0 : kp.length) + (names3d.inOrder ? 0 : kp3.length);
  const f64Offset = 8 + Math.ceil(nameBytes / 8) * 8;
  const f64Count = (hasBox ? 4 : 0) + (hasVelocity ? 2 : 0);
  const f32Offset = f64Offset + f64Count * 8;
  const f32Count = kp.length * 3 + kp3.length * 4;
  const bitsOffset = f32Offset + f32Count * 4;
  const bytes = alloc(bitsOffset + Math.ceil(kp.length / 8));
  writeBodyHeader(bytes, flags, kp.length, kp3.length, names2d, names3d);
  if (f64Count > 0) {
    const f64 = new Float64Array(bytes.buffer, bytes.byteOffset + f64Offset, f64Count);
    let o = 0;
    if (hasBox) {
      f64[o++] = box.x;
      f64[o++] = box.y;
      f64[o++] = box.width;
      f64[o++] = box.height;
    }
    if (hasVelocity) {
      f64[o++] = velocity.x;
      f64[o++] = velocity.y;
    }
  }
  const f32 = new Float32Array(bytes.buffer, bytes.byteOffset + f32Offset, f32Count);
  let o = 0;
  for (let i = 0; i < kp.length; i++) {
    const k = kp[i]!;
    f32[o++] = k.x;
    f32[o++] = k.y;
    f32[o++] = k.confidence;
    if (k.visible) bytes[bitsOffset + (i >> 3)]! |= 1 << (i & 7);
  }
  writeKeypoints3d(f32, o, kp3);
  return bytes;
}

/** What a body blob holds. */
export interface DecodedPersonBody {
  keypoints: Keypoint[];
  keypoints3d: Keypoint3D[];
  boundingBox?: { x: number; y: number; width: number; height: number };
  velocity?: { x: number; y: number };
}

/** Whether a blob is a person body (else an older layout a storage reads itself). */
export function isPersonBody(blob: Uint8Array): boolean {
  return blob.byteLength >= 8 && (blob[0]! & BODY_V2) !== 0;
}

/** Decode what encodePersonBody made. */
export function decodePersonBody(blob: Uint8Array): DecodedPersonBody {
  if (!isPersonBody(blob)) throw new Error('not a person body blob (layout flag missing)');
  // Copy to an aligned buffer: SQLite's blob may start at any byte offset.
  const bytes = new Uint8Array(blob.byteLength);
  bytes.set(blob);
  const flags = bytes[0]!;
  const n2d = bytes[1]!;
  const n3d = bytes[2]!;
  let at = 8;
  const names2d = new Array<number>(n2d);
  const names3d = new Array<number>(n3d);
  for (let i = 0; i < n2d; i++) names2d[i] = flags & COCO_2D ? i : bytes[at++]!;
  for (let i = 0; i < n3d; i++) names3d[i] = flags & COCO_3D ? i : bytes[at++]!;
  const f64Offset = 8 + Math.ceil((at - 8) / 8) * 8;
  const f64Count = (flags & HAS_BOX ? 4 : 0) + (flags & HAS_VELOCITY ? 2 : 0);
  const f32Offset = f64Offset + f64Count * 8;
  const bitsOffset = f32Offset + (n2d * 3 + n3d * 4) * 4;
  const out: DecodedPersonBody = { keypoints: new Array(n2d), keypoints3d: new Array(n3d) };
  if (f64Count > 0) {
    const f64 = new Float64Array(bytes.buffer, f64Offset, f64Count);
    let o = 0;
    if (flags & HAS_BOX) {
      out.boundingBox = { x: f64[0]!, y: f64[1]!, width: f64[2]!, height: f64[3]! };
      o = 4;
    }
    if (flags & HAS_VELOCITY) out.velocity = { x: f64[o]!, y: f64[o + 1]! };
  }
  const f32 = new Float32Array(bytes.buffer, f32Offset, n2d * 3 + n3d * 4);
  let o = 0;
  for (let i = 0; i < n2d; i++, o += 3) {
    out.keypoints[i] = { name: COCO_KEYPOINTS[names2d[i]!]!, x: f32[o]!, y: f32[o + 1]!, confidence: f32[o + 2]!, visible: (bytes[bitsOffset + (i >> 3)]! & (1 << (i & 7))) !== 0 };
  }
  for (let i = 0; i < n3d; i++, o += 4) out.keypoints3d[i] = { name: COCO_KEYPOINTS[names3d[i]!]!, x: f32[o]!, y: f32[o + 1]!, z: f32[o + 2]!, confidence: f32[o + 3]! };
  return out;
}

/** A person as stored: keypoint coordinates and confidences rounded to float32, everything else as given. */
export function storedPersonForm<T extends { keypoints: Keypoint[]; keypoints3d: Keypoint3D[] }>(person: T): T {
  return {
    ...person,
    keypoints: person.keypoints.map((k) => ({ ...k, x: Math.fround(k.x), y: Math.fround(k.y), confidence: Math.fround(k.confidence) })),
    keypoints3d: person.keypoints3d.map((k) => ({ ...k, x: Math.fround(k.x), y: Math.fround(k.y), z: Math.fround(k.z), confidence: Math.fround(k.confidence) })),
  };
}

