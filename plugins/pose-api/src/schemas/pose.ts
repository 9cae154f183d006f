import { z } from 'zod';
import type { Person, PoseFrame, PersonRecord } from '@wiflow/core';

/** A person as produced or as read back (id null when stored anonymised). */
export type AnyPerson = Omit<Person, 'id'> & { id: number | null };
/** A frame as produced or as read back. */
export type AnyFrame = Omit<PoseFrame, 'persons'> & { persons: AnyPerson[] };
import { iso } from '../http/route.js';

const Num = z.number();
const Int = z.number().int();
const Ts = z.string().describe('ISO 8601 timestamp with milliseconds');

/** Keypoint (both conventions). */
export const KeypointSchema = z.object({ name: z.string(), x: Num, y: Num, confidence: Num, visible: z.boolean() });
/** Bounding box (both conventions). */
export const BoundingBoxSchema = z.object({ x: Num, y: Num, width: Num, height: Num });
const Position = z.object({ x: Num, y: Num }).describe('Floor position in metres (extension)');
const Activity = z.string().nullable().describe('Activity label from the model or tracker (extension)');

/** Person, convention A. */
export const PersonA = z.object({
  id: Int.nullable().describe('Null when stored with anonymisation on'),
  confidence: Num,
  bounding_box: BoundingBoxSchema,
  keypoints: z.array(KeypointSchema).optional(),
  dense_pose: z
    .object({ source: z.literal('derived'), body_parts: z.array(z.object({ part_id: Int, part_name: z.string(), uv_coordinates: z.array(z.tuple([Num, Num])), confidence: Num })) })
    .nullable()
    .optional(),
  tracking_info: z.object({ track_id: z.string().nullable(), track_age: Int.nullable(), velocity: z.object({ x: Num, y: Num }).nullable() }),
  position: Position,
  activity: Activity,
});

/** Person, convention B. */
export const PersonB = z.object({
  person_id: Int.nullable().describe('Null when stored with anonymisation on'),
  track_id: Int.nullable(),
  confidence: Num,
  bounding_box: BoundingBoxSchema,
  keypoints: z.array(KeypointSchema).optional(),
  dense_pose: z.object({ iuv_image: z.string(), confidence_map: z.string(), width: Int, height: Int, box: BoundingBoxSchema }).nullable().optional().describe('IUV and confidence PNGs (base64) over the box, derived from the skeleton; null when the model did not render them (pose.estimate densePose: parts+iuv)'),
  position: Position,
  activity: Activity,
});

const Provenance = {
  model_id: z.string(),
  model_hash: z.string(),
  provenance: z.enum(['live', 'replay', 'simulated']),
};

/** Extension: where the persons' activity came from when the room has CSI sensing (absent: the pose model's own). */
const ActivitySource = z
  .object({
    kind: z.literal('sensing'),
    estimator_id: z.string().nullable(),
    config_hash: z.string().nullable(),
    provenance: z.enum(['live', 'replay', 'simulated']).nullable(),
    null_reason: z.enum(['several_people', 'posture_unknown', 'other_movement', 'room_empty', 'no_sensing_frame']).nullable(),
  })
  .optional();

/** Pose frame metadata, convention A (plus provenance). */
export const MetadataA = z.object({ environment_id: z.string(), router_count: Int, signal_quality: Num.nullable(), processing_pipeline: z.string(), model_version: z.string(), ...Provenance, activity_source: ActivitySource });
/** Pose frame metadata, convention B (plus provenance). */
export const MetadataB = z.object({ model_version: z.string(), processing_mode: z.string(), csi_quality: Num.nullable(), router_count: Int, ...Provenance, activity_source: ActivitySource });

function activitySource(m: AnyFrame['metadata']): z.output<typeof ActivitySource> {
  const a = m.activitySource;
  return a ? { kind: 'sensing', estimator_id: a.estimatorId, config_hash: a.configHash, provenance: a.provenance, null_reason: a.nullReason } : undefined;
}

/** Pose frame, convention A. */
export const PoseFrameA = z.object({ timestamp: Ts, frame_id: Int, processing_time_ms: Num, persons: z.array(PersonA), metadata: MetadataA });
/** Pose frame, convention B. */
export const PoseFrameB = z.object({ timestamp: Ts, frame_id: Int, environment_id: z.string(), processing_time_ms: Num, persons: z.array(PersonB), metadata: MetadataB });

/** What to include when shaping persons. */
export interface ShapeOptions {
  includeKeypoints?: boolean;
  includeDensePose?: boolean;
  minConfidence?: number;
  personIds?: number[];
}

/** Person in convention A. */
export function personA(p: AnyPerson, o: ShapeOptions = {}): z.output<typeof PersonA> {
  const out: z.output<typeof PersonA> = {
    id: p.id,
    confidence: p.confidence,
    bounding_box: p.boundingBox,
    tracking_info: { track_id: p.trackId === null || p.trackId === undefined ? null : String(p.trackId), track_age: p.trackAge ?? null, velocity: p.velocity ?? null },
    position: p.position,
    activity: p.activity ?? null,
  };
  if (o.includeKeypoints !== false) out.keypoints = p.keypoints;
  if (o.includeDensePose !== false) {
    out.dense_pose = p.densePose
      ? { source: 'derived', body_parts: p.densePose.bodyParts.map((b) => ({ part_id: b.partId, part_name: b.partName, uv_coordinates: b.uvCoordinates, confidence: b.confidence })) }
      : null;
  }
  return out;
}

/** Person in convention B. */
export function personB(p: AnyPerson, o: ShapeOptions = {}): z.output<typeof PersonB> {
  const out: z.output<typeof PersonB> = { person_id: p.id, track_id: p.trackId ?? null, confidence: p.confidence, bounding_box: p.boundingBox, position: p.position, activity: p.activity ?? null };
  if (o.includeKeypoints !== false) out.keypoints = p.keypoints;
  if (o.includeDensePose !== false) {
    const iuv = p.densePose?.iuv;
    out.dense_pose = iuv ? { iuv_image: iuv.iuvImage, confidence_map: iuv.confidenceMap, width: iuv.width, height: iuv.height, box: iuv.box } : null;
  }
  return out;
}

/** Persons that pass the filters. */
export function selectPersons(frame: AnyFrame, o: ShapeOptions): AnyPerson[] {
  return frame.persons.filter((p) => (o.minConfidence === undefined || p.confidence >= o.minConfidence) && (!o.personIds?.length || (p.id !== null && o.personIds.includes(p.id))));
}

/** Metadata in convention A. */
export function metadataA(frame: AnyFrame): z.output<typeof MetadataA> {
  const m = frame.metadata;
  return { environment_id: frame.environmentId, router_count: m.linkCount, signal_quality: m.csiQuality, processing_pipeline: m.pipeline, model_version: m.modelVersion, model_id: m.modelId, model_hash: m.modelHash, provenance: m.provenance, ...withSource(m) };
}

/** Metadata in convention B. */
export function metadataB(frame: AnyFrame): z.output<typeof MetadataB> {
  const m = frame.metadata;
  return { model_version: m.modelVersion, processing_mode: m.processingMode, csi_quality: m.csiQuality, router_count: m.linkCount, model_id: m.modelId, model_hash: m.modelHash, provenance: m.provenance, ...withSource(m) };
}

/** The activity_source field when there is one (absent otherwise, so existing answers keep their shape). */
function withSource(m: AnyFrame['metadata']): { activity_source?: z.output<typeof ActivitySource> } {
  const source = activitySource(m);
  return source ? { activity_source: source } : {};
}

/** A pose frame in convention A. */
export function frameA(frame: AnyFrame, o: ShapeOptions = {}): z.output<typeof PoseFrameA> {
  return { timestamp: iso(frame.timestamp), frame_id: frame.frameId, processing_time_ms: frame.processingTimeMs, persons: selectPersons(frame, o).map((p) => personA(p, o)), metadata: metadataA(frame) };
}

/** A pose frame in convention B. */
export function frameB(frame: AnyFrame, o: ShapeOptions = {}): z.output<typeof PoseFrameB> {
  return {
    timestamp: iso(frame.timestamp),
    frame_id: frame.frameId,
    environment_id: frame.environmentId,
    processing_time_ms: frame.processingTimeMs,
    persons: selectPersons(frame, o).map((p) => personB(p, o)),
    metadata: metadataB(frame),
  };
}

/** History, convention A: frames and cursor pagination. */
export const HistoryA = z.object({
  poses: z.array(z.object({ timestamp: Ts, frame_id: Int, persons: z.array(PersonA), metadata: MetadataA })),
  pagination: z.object({ total_count: Int, returned_count: Int, has_more: z.boolean(), next_cursor: z.string().nullable() }),
});

/** History record, convention B (one person in one frame). */
export const HistoryRecordB = z.object({
  timestamp: Ts,
  frame_id: Int,
  environment_id: z.string(),
  person_id: Int.nullable(),
  track_id: Int.nullable(),
  confidence: Num,
  bounding_box: BoundingBoxSchema,
  keypoints: z.array(KeypointSchema),
  position: Position,
  activity: Activity,
});

/** Page/per_page pagination (B). */
export const PaginationB = z.object({ page: Int, per_page: Int, total: Int, total_pages: Int, has_next: z.boolean(), has_prev: z.boolean() });

/** A person record in convention B. */
export function historyRecordB(r: PersonRecord): z.output<typeof HistoryRecordB> {
  return {
    timestamp: iso(r.timestamp),
    frame_id: r.frameId,
    environment_id: r.environmentId,
    person_id: r.personId,
    track_id: r.trackId,
    confidence: r.confidence,
    bounding_box: r.boundingBox,
    keypoints: r.keypoints,
    position: r.position,
    activity: r.activity,
  };
}
