import type { Alert, AnalyticsEvent, PoseFrame, Severity } from '@wiflow/core';
import { bucketSizeMs, bucketStart, checkTimeRange, isoTime, type Granularity, type OccupancyInterval } from './time-buckets.js';
import { countedPersons, frameDurations, sortedFrames, type CountOptions } from './pose-frames.js';

/** Inputs of the summary analytics (GET /analytics/summary, convention B). */
export interface SummaryInput extends CountOptions {
  frames: readonly PoseFrame[];
  events?: readonly AnalyticsEvent[];
  alerts?: readonly Alert[];
  /** Range in ms; frames, events and alerts outside it are ignored. */
  start: number;
  end: number;
  granularity?: Granularity;
  environmentId?: string;
  /** Errors counted by the runtime in the range (node errors); 0 when not given. */
  errorCount?: number;
  /** A gap between frames longer than this (ms) counts as down time (default 5000). */
  maxGapMs?: number;
  /** Speed (m/s) at or above which a person counts as moving (default 0.3). */
  movingSpeed?: number;
}

/** Summary record of the pose spec (convention B field names). */
export interface SummaryRecord {
  time_period: { start: string; end: string; duration_hours: number };
  detection_stats: { total_detections: number; unique_persons: number; average_confidence: number; peak_occupancy: number; peak_occupancy_time: string | null };
  activity_stats: { total_movement_events: number; fall_detections: number; alert_count: number; average_activity_level: number };
  system_stats: { uptime_percentage: number; average_processing_time: number; frames_processed: number; error_count: number };
  hourly_breakdown: { hour: string; detections: number; unique_persons: number; average_confidence: number }[];
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;

function inRange<T extends { timestamp: number; environmentId: string }>(items: readonly T[], start: number, end: number, environmentId?: string): T[] {
  return items.filter((i) => i.timestamp >= start && i.timestamp < end && (!environmentId || i.environmentId === environmentId));
}

/** Identity of a person across frames: its track id, or null when untracked. */
function identity(frameEnv: string, trackId: number | null | undefined): string | null {
  return trackId === null || trackId === undefined ? null : `${frameEnv}#${trackId}`;
}

/** Speed of a person from the tracker's velocity, or null when it has none. */
function speedOf(p: { velocity?: { x: number; y: number } | null }): number | null {
  return p.velocity ? Math.hypot(p.velocity.x, p.velocity.y) : null;
}

/**
 * Summary analytics over a time range. Rules (docs/analytics.md "Summary"): detections are
 * counted persons summed over frames; unique persons are distinct track ids (or, for
 * untracked frames, the largest person count of one frame); a movement event is a track
 * going from still to moving (speed ≥ movingSpeed after being below it); activity level is
 * the fraction of person-time spent moving; uptime is the fraction of the range covered by
 * frames no further apart than maxGapMs.
 */
export function computeSummary(input: SummaryInput): SummaryRecord {
  checkTimeRange(input.start, input.end);
  const granularity = input.granularity ?? 'hour';
  bucketSizeMs(granularity);
  const movingSpeed = input.movingSpeed ?? 0.3;
  const frames = inRange(sortedFrames(input.frames), input.start, input.end, input.environmentId);
  const events = inRange(input.events ?? [], input.start, input.end, input.environmentId);
  const alerts = inRange(input.alerts ?? [], input.start, input.end, input.environmentId);
  const durations = frameDurations(frames, input.maxGapMs ?? 5000);

  let detections = 0;
  let confidenceSum = 0;
  let peak = 0;
  let peakTime: number | null = null;
  let personTime = 0;
  let movingTime = 0;
  let movementEvents = 0;
  let coveredMs = 0;
  let processingSum = 0;
  const unique = new Set<string>();
  let maxUntracked = 0;
  const moving = new Map<string, boolean>();
  const buckets = new Map<number, { detections: number; confidence: number; ids: Set<string>; maxUntracked: number }>();

  frames.forEach((frame, i) => {
    const persons = countedPersons(frame, input);
    const dt = durations[i];
    coveredMs += dt;
    processingSum += frame.processingTimeMs ?? 0;
    detections += persons.length;
    if (persons.length > peak) {
      peak = persons.length;
      peakTime = frame.timestamp;
    }
    const key = bucketStart(frame.timestamp, granularity);
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = { detections: 0, confidence: 0, ids: new Set(), maxUntracked: 0 }));
    bucket.detections += persons.length;
    let untracked = 0;
    for (const p of persons) {
      confidenceSum += p.confidence;
      bucket.confidence += p.confidence;
      const id = identity(frame.environmentId, p.trackId);
      if (id) {
        unique.add(id);
        bucket.ids.add(id);
      } else untracked++;
      const speed = speedOf(p);
      const isMoving = speed !== null ? speed >= movingSpeed : p.activity === 'walking';
      personTime += dt;
      if (isMoving) movingTime += dt;
      if (id) {
        const was = moving.get(id);
        if (was === false && isMoving) movementEvents++;
        moving.set(id, isMoving);
      }
    }
    maxUntracked = Math.max(maxUntracked, untracked);
    bucket.maxUntracked = Math.max(bucket.maxUntracked, untracked);
  });

  const rangeMs = input.end - input.start;
  return {
    time_period: { start: isoTime(input.start), end: isoTime(input.end), duration_hours: round(rangeMs / 3_600_000, 4) },
    detection_stats: {
      total_detections: detections,
      unique_persons: unique.size + maxUntracked,
      average_confidence: detections ? round(confidenceSum / detections) : 0,
      peak_occupancy: peak,
      peak_occupancy_time: peakTime === null ? null : isoTime(peakTime),
    },
    activity_stats: {
      total_movement_events: movementEvents,
      fall_detections: events.filter((e) => e.type === 'fall_detection').length,
      alert_count: alerts.length,
      average_activity_level: personTime ? round(movingTime / personTime) : 0,
    },
    system_stats: {
      uptime_percentage: round(Math.min(100, (coveredMs / rangeMs) * 100), 2),
      average_processing_time: frames.length ? round(processingSum / frames.length) : 0,
      frames_processed: frames.length,
      error_count: input.errorCount ?? 0,
    },
    hourly_breakdown: [...buckets.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([key, b]) => ({ hour: isoTime(key), detections: b.detections, unique_persons: b.ids.size + b.maxUntracked, average_confidence: b.detections ? round(b.confidence / b.detections) : 0 })),
  };
}

/** Event categories of GET /analytics/events (`event_type`). */
export type EventCategory = 'fall' | 'alert' | 'activity';

/** Filter of the events analytics. */
export interface EventFilter {
  start?: number;
  end?: number;
  environmentId?: string;
  /** fall: fall_* types; alert: events that raised an alert (or, without alerts, severity high/critical); activity: neither. */
  eventType?: EventCategory;
  /** Exact event types, e.g. ['intrusion']. */
  types?: readonly string[];
  /** Severities to keep. */
  severities?: readonly Severity[];
  trackId?: number;
}

/** The category of an event for GET /analytics/events. */
export function eventCategory(event: AnalyticsEvent, alertedEventIds?: ReadonlySet<string>): EventCategory {
  if (event.type === 'fall_detection' || event.type.startsWith('fall_')) return 'fall';
  if (alertedEventIds ? alertedEventIds.has(event.eventId) : event.severity === 'high' || event.severity === 'critical') return 'alert';
  return 'activity';
}

/** Whether an event belongs to a category: a fall that raised an alert is in both 'fall' and 'alert'; 'activity' is everything else. */
export function inCategory(event: AnalyticsEvent, category: EventCategory, alertedEventIds?: ReadonlySet<string>): boolean {
  const isFall = event.type === 'fall_detection' || event.type.startsWith('fall_');
  const isAlert = alertedEventIds ? alertedEventIds.has(event.eventId) : event.severity === 'high' || event.severity === 'critical';
  if (category === 'fall') return isFall;
  if (category === 'alert') return isAlert;
  return !isFall && !isAlert;
}

/** Events matching a filter, oldest first. `alerts` (optional) decides the 'alert' category. */
export function filterEvents(events: readonly AnalyticsEvent[], filter: EventFilter = {}, alerts?: readonly Alert[]): AnalyticsEvent[] {
  if (filter.start !== undefined && filter.end !== undefined) checkTimeRange(filter.start, filter.end);
  if (filter.eventType && !['fall', 'alert', 'activity'].includes(filter.eventType)) throw new Error(`event_type must be fall, alert or activity, got ${JSON.stringify(filter.eventType)}`);
  const alerted = alerts ? new Set(alerts.map((a) => a.eventId).filter((id): id is string => !!id)) : undefined;
  return events
    .filter((e) =>
      (filter.start === undefined || e.timestamp >= filter.start) &&
      (filter.end === undefined || e.timestamp < filter.end) &&
      (!filter.environmentId || e.environmentId === filter.environmentId) &&
      (!filter.types || filter.types.includes(e.type)) &&
      (!filter.severities || filter.severities.includes(e.severity)) &&
      (filter.trackId === undefined || e.trackId === filter.trackId) &&
      (!filter.eventType || inCategory(e, filter.eventType, alerted)))
    .sort((a, b) => a.timestamp - b.timestamp);
}

/** Inputs of the occupancy analytics (GET /analytics/occupancy, convention B). */
export interface OccupancyInput extends CountOptions {
  frames: readonly PoseFrame[];
  start: number;
  end: number;
  interval?: OccupancyInterval;
  environmentId?: string;
  maxGapMs?: number;
}

/** Occupancy record of the pose spec (convention B field names). */
export interface OccupancyRecord {
  summary: { average_occupancy: number; peak_occupancy: number; peak_time: string | null; total_person_hours: number };
  time_series: { timestamp: string; occupancy: number; confidence: number }[];
  distribution: { '0_persons': number; '1_person': number; '2_persons': number; '3_persons': number; '4_plus_persons': number };
}

/**
 * Occupancy over a time range. Each frame stands for the time to the next frame (capped at
 * maxGapMs); occupancy is the number of counted persons. Averages are time-weighted over
 * observed time; a time-series point is the time-weighted mean occupancy of its interval with
 * the mean person confidence of the frames in it (1 when the interval was observed empty);
 * the distribution is the percentage of observed time spent at 0, 1, 2, 3 and 4+ persons.
 */
export function computeOccupancy(input: OccupancyInput): OccupancyRecord {
  checkTimeRange(input.start, input.end);
  const interval = input.interval ?? '15min';
  bucketSizeMs(interval);
  const frames = inRange(sortedFrames(input.frames), input.start, input.end, input.environmentId);
  const durations = frameDurations(frames, input.maxGapMs ?? 5000);
  const dist = [0, 0, 0, 0, 0];
  let observed = 0;
  let personMs = 0;
  let peak = 0;
  let peakTime: number | null = null;
  const buckets = new Map<number, { ms: number; personMs: number; conf: number; n: number }>();
  frames.forEach((frame, i) => {
    const persons = countedPersons(frame, input);
    const dt = durations[i];
    const count = persons.length;
    observed += dt;
    personMs += count * dt;
    dist[Math.min(4, count)] += dt;
    if (count > peak || peakTime === null) {
      peak = count;
      peakTime = frame.timestamp;
    }
    const key = bucketStart(frame.timestamp, interval);
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = { ms: 0, personMs: 0, conf: 0, n: 0 }));
    b.ms += dt;
    b.personMs += count * dt;
    for (const p of persons) {
      b.conf += p.confidence;
      b.n++;
    }
  });
  const pct = (v: number) => (observed ? round((v / observed) * 100, 2) : 0);
  return {
    summary: {
      average_occupancy: observed ? round(personMs / observed) : 0,
      peak_occupancy: peak,
      peak_time: peakTime === null ? null : isoTime(peakTime),
      total_person_hours: round(personMs / 3_600_000, 4),
    },
    time_series: [...buckets.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([key, b]) => ({ timestamp: isoTime(key), occupancy: b.ms ? round(b.personMs / b.ms) : 0, confidence: b.n ? round(b.conf / b.n) : 1 })),
    distribution: { '0_persons': pct(dist[0]), '1_person': pct(dist[1]), '2_persons': pct(dist[2]), '3_persons': pct(dist[3]), '4_plus_persons': pct(dist[4]) },
  };
}
