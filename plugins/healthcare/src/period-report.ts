import type { AnalyticsEvent } from '@wiflow/core';
import { activityMinutes, isoTime, type PeriodReportRequest, type PeriodReportService, type ReportStorage } from '@wiflow/analytics-common';

/** Largest number of falls listed inside a report (the count is exact). */
const EVENT_LIST_LIMIT = 1000;

/** The metrics a healthcare period report can hold (GET /analytics/healthcare `metrics`). */
export const HEALTHCARE_REPORT_METRICS = ['fall_events', 'activity_summary', 'mobility_score', 'sleep_quality'] as const;
/** One healthcare report metric. */
export type HealthcareReportMetric = (typeof HEALTHCARE_REPORT_METRICS)[number];

/** A healthcare report request: the range and which metrics (default all). */
export interface HealthcarePeriodRequest extends PeriodReportRequest {
  metrics?: readonly HealthcareReportMetric[];
}

/** Healthcare's report of a period (field names as on the wire); only the metrics asked for are present. */
export interface HealthcarePeriodRecord {
  fall_events?: { count: number; events: { timestamp: string; person_id: number | null; severity: AnalyticsEvent['severity']; response_time_seconds: number | null; location: { x: number; y: number } | null }[] };
  activity_summary?: { walking_minutes: number; sitting_minutes: number; lying_minutes: number; standing_minutes: number };
  mobility_score?: number | null;
  /** Sleep needs the bed-zone figures of a live monitor; stored data does not hold them (null). */
  sleep_quality?: { total_sleep_hours: null; sleep_efficiency: null; restlessness_events: null };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Healthcare's period report (service `PeriodReportTokens.healthcare`, shaped by the pose
 * API's GET /analytics/healthcare) from stored data: the fall_detection events the
 * `healthcare.monitor` node wrote, and person-minutes per activity from the stored frames'
 * activity labels (mobility: walking plus half of standing, over time present, 0-100).
 */
export class HealthcarePeriodReport implements PeriodReportService<HealthcarePeriodRecord, HealthcarePeriodRequest> {
  /** The healthcare figures of the request's range (`metrics`: which ones, default all). */
  async report(storage: ReportStorage, request: HealthcarePeriodRequest): Promise<HealthcarePeriodRecord> {
    const { start, end, environmentId } = request;
    const wanted = new Set<HealthcareReportMetric>(request.metrics ?? HEALTHCARE_REPORT_METRICS);
    const record: HealthcarePeriodRecord = {};
    if (wanted.has('fall_events')) {
      const falls = await storage.events.find({ start, end, environmentId, types: ['fall_detection'], order: 'desc' }, { page: 1, perPage: EVENT_LIST_LIMIT });
      record.fall_events = {
        count: falls.total,
        events: falls.items.map((e) => ({ timestamp: isoTime(e.timestamp), person_id: e.personId, severity: e.severity, response_time_seconds: num(e.metadata.response_time_seconds), location: e.location })),
      };
    }
    if (wanted.has('activity_summary') || wanted.has('mobility_score')) {
      const minuteBuckets = await storage.poses.aggregate({ start, end, environmentId, intervalMs: 60_000 });
      const minutes = activityMinutes(minuteBuckets.buckets);
      const m = (a: string) => minutes[a] ?? 0;
      if (wanted.has('activity_summary')) record.activity_summary = { walking_minutes: m('walking'), sitting_minutes: m('sitting'), lying_minutes: m('lying'), standing_minutes: m('standing') };
      const present = m('walking') + m('standing') + m('sitting') + m('lying');
      if (wanted.has('mobility_score')) record.mobility_score = present > 0 ? (100 * (m('walking') + 0.5 * m('standing'))) / present : null;
    }
    if (wanted.has('sleep_quality')) record.sleep_quality = { total_sleep_hours: null, sleep_efficiency: null, restlessness_events: null };
    return record;
  }
}
