import { toActivityEventRecord, toAlertRecord, toSensingRecord, type Alert, type AnalyticsEvent, type Person, type PoseFrame, type SensingFrame } from '@wiflow/core';

/**
 * The JSON shapes plugin-mqtt publishes: the pose service's wire conventions (snake_case,
 * ISO 8601 timestamps), so a subscriber reads the same fields as a `/ws/pose` client.
 */

/** ISO 8601 from wall-clock ms. */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Persons that count as present: every detection whose track is not lost or ended. */
export function presentPersons(frame: PoseFrame): Person[] {
  return frame.persons.filter((p) => p.trackStatus !== 'lost' && p.trackStatus !== 'ended');
}

/** One person in full (keypoints included). */
export function personToWire(person: Person): Record<string, unknown> {
  return {
    person_id: person.id,
    track_id: person.trackId,
    confidence: person.confidence,
    bounding_box: person.boundingBox,
    keypoints: person.keypoints.map((k) => ({ name: k.name, x: k.x, y: k.y, confidence: k.confidence, visible: k.visible })),
    keypoints_3d: person.keypoints3d,
    position: person.position,
    velocity: person.velocity ?? null,
    activity: person.activity ?? null,
    track_status: person.trackStatus ?? null,
    track_age: person.trackAge ?? null,
    ...(person.densePose ? { dense_pose: { source: person.densePose.source, body_parts: person.densePose.bodyParts.map((b) => ({ part_id: b.partId, part_name: b.partName, uv_coordinates: b.uvCoordinates, confidence: b.confidence })) } } : {}),
  };
}

/** Where the frame came from (model, provenance, CSI quality). */
export function poseMetadataToWire(frame: PoseFrame): Record<string, unknown> {
  const m = frame.metadata;
  return {
    model_id: m.modelId,
    model_hash: m.modelHash,
    model_version: m.modelVersion,
    processing_mode: m.processingMode,
    provenance: m.provenance,
    csi_quality: m.csiQuality,
    link_count: m.linkCount,
    pipeline: m.pipeline,
    processing_time_ms: frame.processingTimeMs,
  };
}

/** A full pose frame: `{timestamp, frame_id, environment_id, persons, metadata}`. */
export function poseFrameToWire(frame: PoseFrame): Record<string, unknown> {
  return {
    timestamp: iso(frame.timestamp),
    frame_id: frame.frameId,
    environment_id: frame.environmentId,
    persons: frame.persons.map(personToWire),
    metadata: poseMetadataToWire(frame),
  };
}

/** A pose frame without keypoints: who is where, doing what. */
export function poseSummaryToWire(frame: PoseFrame): Record<string, unknown> {
  const present = presentPersons(frame);
  return {
    timestamp: iso(frame.timestamp),
    frame_id: frame.frameId,
    environment_id: frame.environmentId,
    person_count: present.length,
    persons: present.map((p) => ({ person_id: p.id, track_id: p.trackId, confidence: p.confidence, position: p.position, activity: p.activity ?? null })),
    metadata: { model_id: frame.metadata.modelId, model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance, csi_quality: frame.metadata.csiQuality },
  };
}

/** Occupancy of an environment at a frame: the count, its mean confidence and its source. */
export function occupancyToWire(frame: PoseFrame): Record<string, unknown> {
  const present = presentPersons(frame);
  const mean = present.length === 0 ? null : present.reduce((s, p) => s + p.confidence, 0) / present.length;
  return {
    timestamp: iso(frame.timestamp),
    environment_id: frame.environmentId,
    count: present.length,
    confidence: mean === null ? null : Math.round(mean * 1000) / 1000,
    frame_id: frame.frameId,
    source: { model_id: frame.metadata.modelId, model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance },
  };
}

/** An analytics event (the pose spec's activity event) plus its source rule. */
export function eventToWire(event: AnalyticsEvent): Record<string, unknown> {
  return { ...toActivityEventRecord(event) };
}

/** An alert (the pose spec's alert message) plus environment, message, event and source. */
export function alertToWire(alert: Alert): Record<string, unknown> {
  return { type: 'alert', ...toAlertRecord(alert) };
}

/** Why a value is not a PoseFrame, or null when it has the fields plugin-mqtt reads. */
export function poseFrameProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'expected a PoseFrame object';
  const v = value as Partial<PoseFrame>;
  if (typeof v.environmentId !== 'string') return 'environmentId must be a string';
  if (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp)) return 'timestamp must be a finite number (ms)';
  if (typeof v.frameId !== 'number') return 'frameId must be a number';
  if (!Array.isArray(v.persons)) return 'persons must be an array';
  if (typeof v.metadata !== 'object' || v.metadata === null) return 'metadata must be an object';
  for (const p of v.persons) {
    if (typeof p !== 'object' || p === null || typeof (p as Person).confidence !== 'number' || !Array.isArray((p as Person).keypoints)) return 'every person needs confidence and keypoints';
  }
  return null;
}

/** The shared checks of core's event and alert types. */
export { eventProblem, alertProblem } from '@wiflow/core';

/** A sensing frame on the wire (snake_case, ISO time), as `wiflow sense --json` names its fields. */
export function sensingToWire(frame: SensingFrame): Record<string, unknown> {
  return { ...toSensingRecord(frame) };
}

/** Why a value is not a sensing frame this node can publish, or null. */
export function sensingProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object') return 'expected a SensingFrame object';
  const f = value as Partial<SensingFrame>;
  if (typeof f.environmentId !== 'string' || !f.environmentId) return 'environmentId must be a non-empty string';
  if (typeof f.time !== 'number' || !Number.isFinite(f.time)) return 'time must be a finite number (ms)';
  if (f.scope !== 'room' && f.scope !== 'link') return "scope must be 'room' or 'link'";
  if (f.scope === 'link' && (!f.link || typeof f.link.tx !== 'string' || typeof f.link.rx !== 'string')) return 'a link frame needs link {tx, rx}';
  if (typeof f.presence !== 'boolean') return 'presence must be a boolean';
  if (typeof f.motion !== 'number') return 'motion must be a number';
  if (!Array.isArray(f.falls)) return 'falls must be an array';
  return null;
}
