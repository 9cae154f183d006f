import type { AnalyticsEvent, SensingFrame } from '@wiflow/core';
import { activityMinutes, isoTime, type PeriodReportRequest, type PeriodReportService, type ReportStorage } from '@wiflow/analytics-common';
import { HealthcareOptionsSchema, parseHealthcareOptions, type HealthcareOptions } from './options.js';
import { SENSING_MOBILITY_RULE, SENSING_SLEEP_RULE, SensingHealthMonitor } from './sensing.js';

/** Largest number of falls listed inside a report (the count is exact). */
const EVENT_LIST_LIMIT = 1000;
/** The runtime config section `healthcare` (the node's keys), read by the period report; defaults when absent. */
export const HealthcareReportConfigSchema = HealthcareOptionsSchema.prefault({});

/** Stored sensing frames read per page. */
const SENSING_PAGE = 5000;

/** The metrics a healthcare period report can hold (GET /analytics/healthcare `metrics`). */
export const HEALTHCARE_REPORT_METRICS = ['fall_events', 'activity_summary', 'mobility_score', 'sleep_quality'] as const;
/** One healthcare report metric. */
export type HealthcareReportMetric = (typeof HEALTHCARE_REPORT_METRICS)[number];

/** A healthcare report request: the range and which metrics (default all). */
export interface HealthcarePeriodRequest extends PeriodReportRequest {
  metrics?: readonly HealthcareReportMetric[];
}

/**
 * What the activity, mobility and sleep figures were computed from: the stored sensing frames (room
 * frames, or link frames where no room frame is stored in the range), or, without any, the stored pose
 * frames' activity labels.
 */
export interface HealthcareReportBasis {
  kind: 'sensing' | 'poses';
  /** 'room' or 'link' on the sensing basis; null on the pose basis. */
  scope: SensingFrame['scope'] | null;
  /** Sensing frames read (0 on the pose basis). */
  frames: number;
  /** Estimator id, config hash and provenance of the sensing frames counted (empty on the pose basis). */
  estimators: { estimator_id: string; config_hash: string; provenance: string }[];
  /** Rule ids of the sensing figures (mobility, rest), null on the pose basis. */
  rules: { mobility: typeof SENSING_MOBILITY_RULE; sleep: typeof SENSING_SLEEP_RULE } | null;
}

/** Healthcare's report of a period (field names as on the wire); only the metrics asked for are present. */
export interface HealthcarePeriodRecord {
  fall_events?: { count: number; events: { timestamp: string; person_id: number | null; severity: AnalyticsEvent['severity']; response_time_seconds: number | null; location: { x: number; y: number } | null; confidence: number; source: string }[] };
  /**
   * Minutes per activity. On the sensing basis the postures are null (one link cannot tell them apart;
   * `posture_reason` says so) and the state minutes are given; on the pose basis those are absent.
   */
  activity_summary?: {
    walking_minutes: number;
    sitting_minutes: number | null;
    lying_minutes: number | null;
    standing_minutes: number | null;
    still_minutes?: number;
    moving_minutes?: number;
    empty_minutes?: number;
    unclassified_minutes?: number;
    posture_reason?: string | null;
  };
  mobility_score?: number | null;
  /** From sensing frames: rest periods (still seconds of unknown or lying posture). Stored pose data holds no sleep figures (null). */
  sleep_quality?: { total_sleep_hours: number | null; sleep_efficiency: number | null; restlessness_events: number | null; periods?: number };
  /** Where the activity, mobility and sleep figures come from. */
  basis?: HealthcareReportBasis;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Healthcare's period report (service `PeriodReportTokens.healthcare`, shaped by the pose API's GET
 * /analytics/healthcare) from stored data. Falls: the stored fall_detection events (those `sense.alerts`
 * raised from sensing frames and those of the pose rules). Activity, mobility and sleep: the stored sensing
 * frames, replayed through the same `SensingHealthMonitor` the `healthcare.monitor` node runs (with the
 * runtime config section `healthcare`, the node's keys; defaults when absent), so the API and a live node agree on the same frames; where no sensing frame is
 * stored in the range, person-minutes per activity from the stored pose frames' labels (mobility: walking
 * plus half of standing, over time present, 0-100; no sleep figures).
 */
export class HealthcarePeriodReport implements PeriodReportService<HealthcarePeriodRecord, HealthcarePeriodRequest> {
  readonly #options: () => HealthcareOptions;

  /** `options`: the healthcare options the sensing figures use (the plugin passes its config section `healthcare`). */
  constructor(options: () => HealthcareOptions = () => parseHealthcareOptions({})) {
    this.#options = options;
  }

  /** The healthcare figures of the request's range (`metrics`: which ones, default all). */
  async report(storage: ReportStorage, request: HealthcarePeriodRequest): Promise<HealthcarePeriodRecord> {
    const { start, end, environmentId } = request;
    const wanted = new Set<HealthcareReportMetric>(request.metrics ?? HEALTHCARE_REPORT_METRICS);
    const record: HealthcarePeriodRecord = {};
    if (wanted.has('fall_events')) {
      const falls = await storage.events.find({ start, end, environmentId, types: ['fall_detection'], order: 'desc' }, { page: 1, perPage: EVENT_LIST_LIMIT });
      record.fall_events = {
        count: falls.total,
        events: falls.items.map((e) => ({ timestamp: isoTime(e.timestamp), person_id: e.personId, severity: e.severity, response_time_seconds: num(e.metadata.response_time_seconds), location: e.location, confidence: e.confidence, source: e.source })),
      };
    }
    if (!wanted.has('activity_summary') && !wanted.has('mobility_score') && !wanted.has('sleep_quality')) return record;
    const sensed = await this.#replaySensing(storage, request);
    if (sensed) {
      const { metrics, estimators } = sensed.monitor.record();
      if (wanted.has('activity_summary')) record.activity_summary = metrics.activity_summary;
      if (wanted.has('mobility_score')) record.mobility_score = metrics.mobility_score;
      if (wanted.has('sleep_quality')) record.sleep_quality = { total_sleep_hours: metrics.sleep_quality.total_sleep_hours, sleep_efficiency: metrics.sleep_quality.sleep_efficiency, restlessness_events: metrics.sleep_quality.restlessness_events, periods: metrics.sleep_quality.periods };
      record.basis = { kind: 'sensing', scope: sensed.scope, frames: sensed.frames, estimators, rules: { mobility: SENSING_MOBILITY_RULE, sleep: SENSING_SLEEP_RULE } };
      return record;
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
    record.basis = { kind: 'poses', scope: null, frames: 0, estimators: [], rules: null };
    return record;
  }

  /** The range's stored room frames (else link frames) through a fresh monitor, oldest first; null when none is stored. */
  async #replaySensing(storage: ReportStorage, request: HealthcarePeriodRequest): Promise<{ monitor: SensingHealthMonitor; scope: SensingFrame['scope']; frames: number } | null> {
    for (const scope of ['room', 'link'] as const) {
      const query = { start: request.start, end: request.end, environmentId: request.environmentId, scope, order: 'asc' as const };
      let page = await storage.sensing.scan(query, { cursor: null, limit: SENSING_PAGE });
      if (page.items.length === 0) continue;
      const monitor = new SensingHealthMonitor(this.#options());
      let frames = 0;
      for (;;) {
        for (const frame of page.items) monitor.update(frame);
        frames += page.items.length;
        if (!page.hasMore || !page.nextCursor) break;
        page = await storage.sensing.scan(query, { cursor: page.nextCursor, limit: SENSING_PAGE });
      }
      return { monitor, scope, frames };
    }
    return null;
  }
}
