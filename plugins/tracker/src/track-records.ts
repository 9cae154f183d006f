import type { TrackSummary } from '@wiflow/core';

/** Track record of the pose spec, convention B (GET /pose/tracking/{track_id}), field names as on the wire. */
export interface TrackRecord {
  track_id: number;
  person_id: number | null;
  first_seen: string;
  last_seen: string;
  duration_seconds: number;
  total_frames: number;
  average_confidence: number;
  status: string;
  trajectory?: { timestamp: string; center_x: number; center_y: number; confidence: number; position: { x: number; y: number } }[];
  statistics: { movement_distance: number; average_speed: number; time_stationary: number; time_moving: number };
}

/** A TrackSummary (from the tracker or from storage) as the spec's track record. */
export function toTrackRecord(track: TrackSummary): TrackRecord {
  const record: TrackRecord = {
    track_id: track.trackId,
    person_id: track.personId,
    first_seen: new Date(track.firstSeen).toISOString(),
    last_seen: new Date(track.lastSeen).toISOString(),
    duration_seconds: track.durationSeconds,
    total_frames: track.totalFrames,
    average_confidence: track.averageConfidence,
    status: track.status,
    statistics: {
      movement_distance: track.statistics.movementDistance,
      average_speed: track.statistics.averageSpeed,
      time_stationary: track.statistics.timeStationary,
      time_moving: track.statistics.timeMoving,
    },
  };
  if (track.trajectory) {
    record.trajectory = track.trajectory.map((p) => ({ timestamp: new Date(p.timestamp).toISOString(), center_x: p.centerX, center_y: p.centerY, confidence: p.confidence, position: p.position }));
  }
  return record;
}
