import type { Severity } from '@wiflow/core';
import { isoTime, type PeriodReportRequest, type PeriodReportService, type ReportStorage } from '@wiflow/analytics-common';

/** Largest number of events listed inside a report (counts are exact). */
const EVENT_LIST_LIMIT = 1000;

/** Security's report of a period (GET /analytics/security's metrics, field names as on the wire). */
export interface SecurityPeriodRecord {
  intrusion_events: { count: number; events: { timestamp: string; zone: string | null; person_count: number | null; threat_level: Severity; response_time_seconds: number | null }[] };
  perimeter_monitoring: { total_detections: number; authorized_entries: number; unauthorized_attempts: number; false_positives: number };
  crowd_analysis: { max_occupancy: number; average_occupancy: number | null; crowd_formation_events: number };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Security's period report (service `PeriodReportTokens.security`, shaped by the pose API's
 * GET /analytics/security) from stored data: the intrusion, perimeter_crossing and
 * crowd_formation events the `security.analytics` node wrote, alerts acknowledged as false
 * positives, and occupancy from the stored frames.
 */
export class SecurityPeriodReport implements PeriodReportService<SecurityPeriodRecord> {
  /** The security figures of the request's range. */
  async report(storage: ReportStorage, request: PeriodReportRequest): Promise<SecurityPeriodRecord> {
    const { start, end, environmentId } = request;
    const list = { page: 1, perPage: EVENT_LIST_LIMIT };
    const intrusions = await storage.events.find({ start, end, environmentId, types: ['intrusion'], order: 'desc' }, list);
    const perimeter = await storage.events.find({ start, end, environmentId, types: ['perimeter_crossing'] }, list);
    const crowd = await storage.events.countByType({ start, end, environmentId, types: ['crowd_formation'] });
    const acknowledged = await storage.alerts.find({ start, end, environmentId, acknowledged: true }, list);
    const hourly = await storage.poses.aggregate({ start, end, environmentId, intervalMs: 3_600_000 });
    const frames = hourly.buckets.reduce((a, b) => a + b.frameCount, 0);
    return {
      intrusion_events: {
        count: intrusions.total,
        events: intrusions.items.map((e) => ({
          timestamp: isoTime(e.timestamp),
          zone: typeof e.metadata.zone === 'string' ? e.metadata.zone : typeof e.metadata.zone_id === 'string' ? e.metadata.zone_id : null,
          person_count: num(e.metadata.person_count),
          threat_level: e.severity,
          response_time_seconds: num(e.metadata.response_time_seconds),
        })),
      },
      perimeter_monitoring: {
        total_detections: perimeter.total,
        authorized_entries: perimeter.items.filter((e) => e.metadata.authorized === true).length,
        unauthorized_attempts: perimeter.items.filter((e) => e.metadata.authorized === false).length,
        false_positives: acknowledged.items.filter((a) => (a.data as Record<string, unknown>).false_positive === true).length,
      },
      crowd_analysis: {
        max_occupancy: hourly.buckets.reduce((a, b) => Math.max(a, b.maxPersonCount), 0),
        average_occupancy: frames ? hourly.buckets.reduce((a, b) => a + b.avgPersonCount * b.frameCount, 0) / frames : null,
        crowd_formation_events: crowd.crowd_formation ?? 0,
      },
    };
  }
}
