import type { TrackSummary } from '@wiflow/core';

/** Speed (m/s) under which a step between two records counts as stationary. */
export const STATIONARY_SPEED = 0.1;

/** One person record of a track, as `summarizeTrack` needs it (oldest first). */
export interface TrackPoint {
  timestamp: number;
  environmentId: string;
  personId: number | null;
  confidence: number;
  position: { x: number; y: number };
  centerX: number;
  centerY: number;
}

/**
 * Summarise a track from its records (sorted by timestamp, oldest first): first/last seen,
 * frames, mean confidence and movement statistics from the floor positions. Shared by every
 * storage implementation so they all answer the same figures.
 */
export function summarizeTrack(trackId: number, points: TrackPoint[], status: string | null, includeTrajectory: boolean): TrackSummary {
  if (points.length === 0) throw new Error('summarizeTrack needs at least one point');
  const first = points[0]!;
  const last = points[points.length - 1]!;
  let distance = 0;
  let stationary = 0;
  let moving = 0;
  let confidenceSum = 0;
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    confidenceSum += point.confidence;
    if (i === 0) continue;
    const previous = points[i - 1]!;
    const dt = (point.timestamp - previous.timestamp) / 1000;
    const step = Math.hypot(point.position.x - previous.position.x, point.position.y - previous.position.y);
    distance += step;
    if (dt <= 0) continue;
    if (step / dt < STATIONARY_SPEED) stationary += dt;
    else moving += dt;
  }
  const durationSeconds = (last.timestamp - first.timestamp) / 1000;
  const summary: TrackSummary = {
    trackId,
    environmentId: last.environmentId,
    personId: last.personId,
    firstSeen: first.timestamp,
    lastSeen: last.timestamp,
    durationSeconds,
    totalFrames: points.length,
    averageConfidence: confidenceSum / points.length,
    status: status ?? 'unknown',
    statistics: {
      movementDistance: distance,
      averageSpeed: durationSeconds > 0 ? distance / durationSeconds : 0,
      timeStationary: stationary,
      timeMoving: moving,
    },
  };
  if (includeTrajectory) {
    summary.trajectory = points.map((p) => ({ timestamp: p.timestamp, centerX: p.centerX, centerY: p.centerY, position: { x: p.position.x, y: p.position.y }, confidence: p.confidence }));
  }
  return summary;
}
