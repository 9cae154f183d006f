import type { PoseFrame } from '@wiflow/core';
import { isoTime, sortedFrames } from '@wiflow/analytics-common';
import { HealthcareMonitor } from './monitor.js';
import type { HealthcareOptionsInput } from './options.js';

/** Healthcare analytics record of the pose spec (GET /analytics/healthcare), field names as on the wire. */
export interface HealthcareMetricsRecord {
  period: string;
  date: string;
  metrics: {
    fall_events: { count: number; events: { event_id: string; timestamp: string; person_id: number; track_id: number; severity: string; response_time_seconds: number; location: { x: number; y: number }; recovery_detected: boolean; fall_duration: number }[] };
    activity_summary: { walking_minutes: number; sitting_minutes: number; lying_minutes: number; standing_minutes: number };
    mobility_score: number;
    sleep_quality: { total_sleep_hours: number; sleep_efficiency: number; restlessness_events: number };
    inactivity_alerts: number;
  };
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/** The healthcare record of a monitor's state (what the node emits on its metrics port). */
export function healthcareRecord(monitor: HealthcareMonitor, options: { period?: string; date?: string; inactivityAlerts?: number } = {}): HealthcareMetricsRecord {
  const figures = monitor.trackFigures();
  const minutes = (a: 'walking' | 'sitting' | 'lying' | 'standing') => round(figures.reduce((s, f) => s + f.activitySeconds[a], 0) / 60);
  const observed = figures.reduce((s, f) => s + f.observedSeconds, 0);
  const mobility = observed > 0 ? Math.round(figures.reduce((s, f) => s + f.mobilityScore * f.observedSeconds, 0) / observed) : 0;
  const inBed = figures.reduce((s, f) => s + f.sleep.timeInBedHours, 0);
  const asleep = figures.reduce((s, f) => s + f.sleep.totalSleepHours, 0);
  const falls = monitor.falls();
  const span = monitor.timeSpan;
  return {
    period: options.period ?? 'custom',
    date: options.date ?? (span ? isoTime(span.start).slice(0, 10) : isoTime(Date.now()).slice(0, 10)),
    metrics: {
      fall_events: {
        count: falls.length,
        events: falls.map((f) => ({
          event_id: f.eventId, timestamp: isoTime(f.fallStart), person_id: f.personId, track_id: f.trackId, severity: f.severity,
          response_time_seconds: round((f.detectedAt - f.fallStart) / 1000), location: f.location, recovery_detected: f.recovered, fall_duration: f.durationSeconds,
        })),
      },
      activity_summary: { walking_minutes: minutes('walking'), sitting_minutes: minutes('sitting'), lying_minutes: minutes('lying'), standing_minutes: minutes('standing') },
      mobility_score: mobility,
      sleep_quality: { total_sleep_hours: round(asleep), sleep_efficiency: inBed > 0 ? round(asleep / inBed) : 0, restlessness_events: figures.reduce((s, f) => s + f.sleep.restlessnessEvents, 0) },
      inactivity_alerts: options.inactivityAlerts ?? 0,
    },
  };
}

/**
 * Healthcare analytics over stored, tracked pose frames (the pose API calls this with frames
 * read from storage for the asked period): replays them through a HealthcareMonitor.
 */
export function computeHealthcareMetrics(frames: readonly PoseFrame[], options: { monitor?: HealthcareOptionsInput; period?: string; date?: string } = {}): HealthcareMetricsRecord {
  const monitor = new HealthcareMonitor(options.monitor);
  let inactivity = 0;
  for (const f of sortedFrames(frames)) inactivity += monitor.update(f).events.filter((e) => e.type === 'inactivity').length;
  return healthcareRecord(monitor, { period: options.period, date: options.date, inactivityAlerts: inactivity });
}
