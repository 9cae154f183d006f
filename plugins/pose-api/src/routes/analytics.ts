import { z } from 'zod';
import { toActivityEventRecord, type PoseAggregateBucket, type Storage, type StoredAlert } from '@wiflow/core';
import { activityMinutes, PeriodReportTokens, type PeriodReportRequest, type PeriodReportService } from '@wiflow/analytics-common';
import type { HealthcarePeriodRecord, HealthcarePeriodRequest, HealthcareReportMetric } from '@wiflow/plugin-healthcare';
import type { RetailMetricsRecord } from '@wiflow/plugin-retail';
import type { SecurityPeriodRecord } from '@wiflow/plugin-security';
import { ApiErrors } from '../errors.js';
import { defineRoute, iso, parseTime, TimeParam, type RouteDefinition } from '../http/route.js';
import { PaginationB } from '../schemas/pose.js';
import type { ApiServices } from '../services.js';

const PERIODS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
const Env = z.string().min(1).max(128);
const N = z.number();
const NN = z.number().nullable();
const I = z.number().int();

const PeriodQuery = z.object({
  period: z.enum(['hour', 'day', 'week', 'month']).default('day'),
  start_time: TimeParam.optional().describe('Extension: explicit range start (default: end_time minus one period)'),
  end_time: TimeParam.optional().describe('Extension: explicit range end (default: now)'),
  environment_id: Env.optional(),
});

function periodRange(q: { period: keyof typeof PERIODS; start_time?: string; end_time?: string }): { start: number; end: number } {
  const end = q.end_time ? parseTime(q.end_time) : Date.now();
  const start = q.start_time ? parseTime(q.start_time) : end - PERIODS[q.period];
  if (end < start) throw ApiErrors.validation([{ field: 'end_time', message: 'must not be before start_time', received: q.end_time }]);
  return { start, end };
}

function requiredRange(q: { start_time: string; end_time: string }): { start: number; end: number } {
  const start = parseTime(q.start_time);
  const end = parseTime(q.end_time);
  if (end < start) throw ApiErrors.validation([{ field: 'end_time', message: 'must not be before start_time', received: q.end_time }]);
  return { start, end };
}

/** The plugins whose period reports the domain routes shape. */
const REPORT_PLUGINS = { healthcare: '@wiflow/plugin-healthcare', retail: '@wiflow/plugin-retail', security: '@wiflow/plugin-security' } as const;

/** A domain plugin's period report service; reportUnavailable when the plugin is not loaded. */
function periodReport<R, Q extends PeriodReportRequest = PeriodReportRequest>(services: ApiServices, domain: keyof typeof REPORT_PLUGINS): PeriodReportService<R, Q> {
  const token = PeriodReportTokens[domain];
  if (!services.host.services.has(token)) throw ApiErrors.reportUnavailable(domain, REPORT_PLUGINS[domain]);
  return services.host.services.get(token) as PeriodReportService<R, Q>;
}

/**
 * GET /analytics/<domain> (spec convention A): the domain plugin's period report of the asked
 * range, shaped into the spec's record (period, date, environment_id, metrics).
 */
function domainReportRoute<R>(
  services: ApiServices,
  domain: keyof typeof REPORT_PLUGINS,
  spec: { title: string; metrics: z.ZodObject; query?: z.ZodObject; request?: (query: Record<string, unknown>) => object; shape?: (report: R) => unknown },
): RouteDefinition {
  const Report = z.object({ period: z.string(), date: z.string(), environment_id: z.string().nullable(), metrics: spec.metrics });
  return defineRoute({
    method: 'get',
    path: `/analytics/${domain}`,
    summary: `${spec.title} analytics`,
    tags: ['analytics'],
    spec: true,
    specConvention: 'A',
    access: 'viewer',
    category: 'analytics',
    query: spec.query ?? PeriodQuery,
    success: { status: 200, description: `${spec.title} metrics of the period`, A: Report, B: Report },
    errors: [422, 503],
    async handler({ query }) {
      const asked = query as z.output<typeof PeriodQuery> & Record<string, unknown>;
      const storage = await services.storageForReading();
      const { start, end } = periodRange(asked);
      const report = await periodReport<R>(services, domain).report(storage, { start, end, environmentId: asked.environment_id, ...spec.request?.(asked) });
      return { body: { period: asked.period, date: iso(end).slice(0, 10), environment_id: asked.environment_id ?? null, metrics: spec.shape ? spec.shape(report) : report } };
    },
  });
}

/**
 * When the peak occupancy was first seen: the first second of the peak bucket with that many
 * people, never before the query's start or the first stored frame (a bucket start is
 * aligned to the interval, so it can lie before the data, or before the server existed).
 */
async function peakTime(storage: Storage, peak: PoseAggregateBucket, intervalMs: number, start: number, end: number, environmentId: string | undefined): Promise<number> {
  const from = Math.max(peak.start, start);
  const to = Math.min(peak.start + intervalMs, end);
  const seconds = await storage.poses.aggregate({ start: from, end: to, environmentId, intervalMs: 1000 });
  const first = seconds.buckets.find((b) => b.frameCount > 0 && b.maxPersonCount === peak.maxPersonCount);
  const range = await storage.poses.availableRange(environmentId);
  return Math.max(first?.start ?? from, from, range?.earliest ?? from);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Presence over a range from the stored room sensing frames: per interval bucket (aligned like the pose
 * aggregate's, by the start of each frame's second) the share of sensed seconds with someone present, and
 * the present hours; null when no room frame is stored in the range.
 */
async function sensedPresence(storage: Storage, range: { start: number; end: number; environmentId?: string }, intervalMs: number) {
  const buckets = new Map<number, { seconds: number; present: number }>();
  const estimators = new Map<string, { estimator_id: string; config_hash: string; provenance: string }>();
  let frames = 0;
  let present = 0;
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<Storage['sensing']['scan']>> = await storage.sensing.scan({ ...range, scope: 'room', order: 'asc' }, { cursor, limit: 5000 });
    for (const f of page.items) {
      frames++;
      const bucket = Math.floor((f.time - 1000) / intervalMs) * intervalMs;
      const b = buckets.get(bucket) ?? { seconds: 0, present: 0 };
      b.seconds++;
      if (f.presence) (b.present++, present++);
      buckets.set(bucket, b);
      estimators.set(`${f.estimatorId}|${f.configHash}|${f.provenance}`, { estimator_id: f.estimatorId, config_hash: f.configHash, provenance: f.provenance });
    }
    cursor = page.hasMore ? page.nextCursor : null;
  } while (cursor);
  if (frames === 0) return null;
  return {
    frames,
    present_hours: present / 3600,
    time_series: [...buckets.entries()].sort(([a], [b]) => a - b).map(([bucket, b]) => ({ timestamp: iso(bucket), present_fraction: b.present / b.seconds, seconds: b.seconds })),
    estimators: [...estimators.values()],
  };
}

/** Activity event, convention B shape. */
const ActivityEvent = z.object({
  event_id: z.string(),
  type: z.string(),
  severity: z.string(),
  timestamp: z.string(),
  environment_id: z.string(),
  person_id: I.nullable(),
  track_id: I.nullable(),
  confidence: N,
  location: z.object({ x: N, y: N }).nullable(),
  metadata: z.record(z.string(), z.unknown()),
  actions_taken: z.array(z.string()),
  source: z.string(),
});

function alertAsEvent(a: StoredAlert): z.output<typeof ActivityEvent> {
  const data = a.data as Record<string, unknown>;
  const location = data.location as { x?: unknown; y?: unknown } | undefined;
  return {
    event_id: a.alertId,
    type: a.alertType,
    severity: a.severity,
    timestamp: iso(a.timestamp),
    environment_id: a.environmentId,
    person_id: num(data.person_id),
    track_id: num(data.track_id),
    confidence: num(data.confidence) ?? 1,
    location: location && num(location.x) !== null && num(location.y) !== null ? { x: location.x as number, y: location.y as number } : null,
    metadata: { message: a.message, ...data },
    actions_taken: a.actionsRequired,
    source: a.source,
  };
}

/** Analytics routes (healthcare, retail, security in A; summary, events, occupancy in B; all served in both). */
export function analyticsRoutes(services: ApiServices): RouteDefinition[] {
  const HealthcareMetrics = ['fall_events', 'activity_summary', 'mobility_score', 'sleep_quality'] as const satisfies readonly HealthcareReportMetric[];
  const healthcare = domainReportRoute<HealthcarePeriodRecord>(services, 'healthcare', {
    title: 'Healthcare',
    metrics: z.object({
      fall_events: z
        .object({
          count: I,
          events: z.array(
            z.object({
              timestamp: z.string(), person_id: I.nullable(), severity: z.string(), response_time_seconds: NN, location: z.object({ x: N, y: N }).nullable(),
              confidence: N.describe('Extension: the detector\'s confidence'),
              source: z.string().describe('Extension: the rule or estimator that raised it (e.g. sensing.fall/wiflow-sense-v1)'),
            }),
          ),
        })
        .optional(),
      activity_summary: z
        .object({
          walking_minutes: N,
          sitting_minutes: NN.describe('null on the sensing basis: postures are not observable from CSI sensing (posture_reason)'),
          lying_minutes: NN,
          standing_minutes: NN,
          still_minutes: N.optional().describe('Extension (sensing basis): minutes someone was present and still'),
          moving_minutes: N.optional().describe('Extension (sensing basis)'),
          empty_minutes: N.optional().describe('Extension (sensing basis)'),
          unclassified_minutes: N.optional().describe('Extension (sensing basis): present minutes with no activity'),
          posture_reason: z.string().nullable().optional().describe('Extension (sensing basis): why the postures are null'),
        })
        .optional(),
      mobility_score: NN.optional(),
      sleep_quality: z.object({ total_sleep_hours: NN, sleep_efficiency: NN, restlessness_events: I.nullable(), periods: I.optional().describe('Extension (sensing basis): rest periods counted') }).optional(),
      basis: z
        .object({
          kind: z.enum(['sensing', 'poses']),
          scope: z.enum(['room', 'link']).nullable(),
          frames: I,
          estimators: z.array(z.object({ estimator_id: z.string(), config_hash: z.string(), provenance: z.string() })),
          rules: z.object({ mobility: z.string(), sleep: z.string() }).nullable(),
        })
        .optional()
        .describe('Extension: what activity_summary, mobility_score and sleep_quality were computed from (stored sensing frames, else stored pose frames)'),
    }),
    query: PeriodQuery.extend({
      metrics: z
        .string()
        .regex(/^[a-z_]+(,[a-z_]+)*$/, 'comma-separated metric names')
        .refine((v) => v.split(',').every((m) => (HealthcareMetrics as readonly string[]).includes(m)), { message: `each metric must be one of ${HealthcareMetrics.join(', ')}` })
        .optional(),
    }),
    request: (query): Pick<HealthcarePeriodRequest, 'metrics'> => ({ metrics: typeof query.metrics === 'string' ? (query.metrics.split(',') as HealthcareReportMetric[]) : HealthcareMetrics }),
  });

  const retail = domainReportRoute<RetailMetricsRecord>(services, 'retail', {
    title: 'Retail',
    metrics: z.object({
      traffic: z.object({ total_visitors: I, unique_visitors: I, peak_hour: z.string().nullable(), peak_count: I, average_dwell_time_minutes: NN }),
      zones: z.array(z.object({ zone_id: z.string(), zone_name: z.string(), visitor_count: I, avg_dwell_time_minutes: NN, conversion_rate: NN })),
      conversion_funnel: z.record(z.string(), I),
      heat_map: z.object({ high_traffic_areas: z.array(z.object({ zone: z.string(), intensity: N })) }),
    }),
    shape: ({ metrics }) => ({
      traffic: metrics.traffic,
      zones: metrics.zones.map((z) => ({ zone_id: z.zone_id, zone_name: z.zone_name, visitor_count: z.visitor_count, avg_dwell_time_minutes: z.avg_dwell_time_minutes, conversion_rate: z.conversion_rate })),
      conversion_funnel: metrics.conversion_funnel,
      heat_map: { high_traffic_areas: metrics.heat_map.high_traffic_areas },
    }),
  });

  const security = domainReportRoute<SecurityPeriodRecord>(services, 'security', {
    title: 'Security',
    metrics: z.object({
      intrusion_events: z.object({ count: I, events: z.array(z.object({ timestamp: z.string(), zone: z.string().nullable(), person_count: I.nullable(), threat_level: z.string(), response_time_seconds: NN })) }),
      perimeter_monitoring: z.object({ total_detections: I, authorized_entries: I, unauthorized_attempts: I, false_positives: I }),
      crowd_analysis: z.object({ max_occupancy: I, average_occupancy: NN, crowd_formation_events: I }),
    }),
  });

  const GRANULARITY = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
  const Summary = z.object({
    time_period: z.object({ start: z.string(), end: z.string(), duration_hours: N }),
    detection_stats: z.object({ total_detections: I, unique_persons: I, average_confidence: NN, peak_occupancy: I, peak_occupancy_time: z.string().nullable() }),
    activity_stats: z.object({ total_movement_events: I, fall_detections: I, alert_count: I, average_activity_level: NN }),
    system_stats: z.object({ uptime_percentage: NN, average_processing_time: NN, frames_processed: I, error_count: I.nullable() }),
    hourly_breakdown: z.array(z.object({ hour: z.string(), detections: I, unique_persons: I, average_confidence: NN })),
  });
  const summary = defineRoute({
    method: 'get',
    path: '/analytics/summary',
    summary: 'Summary analytics',
    tags: ['analytics'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'analytics',
    query: z.object({ start_time: TimeParam, end_time: TimeParam, environment_id: Env.optional(), granularity: z.enum(['hour', 'day', 'week']).default('hour') }),
    success: { status: 200, description: 'Summary of the range', A: Summary, B: Summary },
    errors: [422, 503],
    async handler({ query }) {
      const storage = await services.storageForReading();
      const { start, end } = requiredRange(query as Parameters<typeof requiredRange>[0]);
      const environmentId = query.environment_id;
      const intervalMs = GRANULARITY[query.granularity as keyof typeof GRANULARITY];
      const agg = await storage.poses.aggregate({ start, end, environmentId, intervalMs });
      const total = agg.buckets.reduce((a, b) => a + b.personRecords, 0);
      const confSum = agg.buckets.reduce((a, b) => a + (b.avgConfidence ?? 0) * b.personRecords, 0);
      const peak = agg.buckets.reduce<PoseAggregateBucket | null>((best, b) => (!best || b.maxPersonCount > best.maxPersonCount ? b : best), null);
      const tracks = await storage.tracks.list({ start, end, environmentId }, { page: 1, perPage: 1 });
      const counts = await storage.events.countByType({ start, end, environmentId });
      const alerts = await storage.alerts.find({ start, end, environmentId }, { page: 1, perPage: 1 });
      const perf = await storage.metrics.find({ start, end, kinds: ['performance'], source: 'pose-api' }, { page: 1, perPage: 10_000 });
      const minutes = activityMinutes(agg.buckets);
      const moving = minutes.walking ?? 0;
      const present = ['walking', 'standing', 'sitting', 'lying'].reduce((a, k) => a + (minutes[k] ?? 0), 0);
      const samplePeriodMs = 10_000;
      const procTimes = perf.items.map((s) => s.values.average_processing_time_ms).filter((v): v is number => typeof v === 'number');
      return {
        body: {
          time_period: { start: iso(start), end: iso(end), duration_hours: (end - start) / 3_600_000 },
          detection_stats: { total_detections: total, unique_persons: tracks.total, average_confidence: total ? confSum / total : null, peak_occupancy: peak?.maxPersonCount ?? 0, peak_occupancy_time: peak ? iso(await peakTime(storage, peak, intervalMs, start, end, environmentId)) : null },
          activity_stats: {
            total_movement_events: Object.values(counts).reduce((a, b) => a + b, 0),
            fall_detections: counts.fall_detection ?? 0,
            alert_count: alerts.total,
            average_activity_level: present > 0 ? moving / present : null,
          },
          system_stats: {
            uptime_percentage: perf.total ? Math.min(100, (100 * perf.total * samplePeriodMs) / Math.max(1, end - start)) : null,
            average_processing_time: procTimes.length ? procTimes.reduce((a, b) => a + b, 0) / procTimes.length : null,
            frames_processed: agg.buckets.reduce((a, b) => a + b.frameCount, 0),
            error_count: perf.items.length ? perf.items.reduce((a, s) => a + (s.values.node_errors_delta ?? 0), 0) : null,
          },
          hourly_breakdown: agg.buckets.map((b) => ({ hour: iso(b.start), detections: b.personRecords, unique_persons: b.uniqueTracks, average_confidence: b.avgConfidence })),
        },
      };
    },
  });

  const EventsQuery = z.object({
    start_time: TimeParam.optional(),
    end_time: TimeParam.optional(),
    environment_id: Env.optional(),
    event_type: z.enum(['fall', 'alert', 'activity']).optional(),
    severity: z.enum(['low', 'medium', 'high', 'critical']).optional(),
    page: z.coerce.number().int().min(1).default(1),
    per_page: z.coerce.number().int().min(1).max(1000).default(50),
  });
  const events = defineRoute({
    method: 'get',
    path: '/analytics/events',
    summary: 'Activity events',
    description: 'event_type fall: fall_detection events; activity: every analytics event; alert: the alerts raised, in the activity event shape. Newest first.',
    tags: ['analytics'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'analytics',
    query: EventsQuery,
    success: { status: 200, description: 'Events', A: z.object({ events: z.array(ActivityEvent), pagination: PaginationB }), B: z.array(ActivityEvent), extrasB: z.object({ pagination: PaginationB }) },
    errors: [422, 503],
    async handler({ query, convention }) {
      const storage = await services.storageForReading();
      const start = query.start_time ? parseTime(query.start_time) : undefined;
      const end = query.end_time ? parseTime(query.end_time) : undefined;
      if (start !== undefined && end !== undefined && end < start) throw ApiErrors.validation([{ field: 'end_time', message: 'must not be before start_time', received: query.end_time }]);
      const paging = { page: query.page, perPage: query.per_page };
      const severities = query.severity ? [query.severity] : undefined;
      let items: z.output<typeof ActivityEvent>[];
      let page;
      if (query.event_type === 'alert') {
        page = await storage.alerts.find({ start, end, environmentId: query.environment_id, severities, order: 'desc' }, paging);
        items = page.items.map(alertAsEvent);
      } else {
        page = await storage.events.find({ start, end, environmentId: query.environment_id, severities, types: query.event_type === 'fall' ? ['fall_detection'] : undefined, order: 'desc' }, paging);
        items = page.items.map(toActivityEventRecord);
      }
      const pagination = { page: page.page, per_page: page.perPage, total: page.total, total_pages: page.totalPages, has_next: page.hasNext, has_prev: page.hasPrev };
      return convention === 'A' ? { body: { events: items, pagination } } : { body: items, extras: { pagination } };
    },
  });

  const INTERVALS = { '5min': 300_000, '15min': 900_000, '1hour': 3_600_000 } as const;
  const Occupancy = z.object({
    summary: z.object({ average_occupancy: NN, peak_occupancy: I, peak_time: z.string().nullable(), total_person_hours: N }),
    time_series: z.array(z.object({ timestamp: z.string(), occupancy: N, confidence: NN })),
    distribution: z.object({ '0_persons': N, '1_person': N, '2_persons': N, '3_persons': N, '4_plus_persons': N }),
    sensing: z
      .object({
        frames: I,
        present_hours: N,
        time_series: z.array(z.object({ timestamp: z.string(), present_fraction: N, seconds: I })),
        estimators: z.array(z.object({ estimator_id: z.string(), config_hash: z.string(), provenance: z.string() })),
      })
      .nullable()
      .describe('Extension: presence from the stored room sensing frames (CSI; a still person counts, nobody is counted): per bucket the fraction of its sensed seconds with someone present; null when no room sensing frame is stored in the range'),
  });
  const occupancy = defineRoute({
    method: 'get',
    path: '/analytics/occupancy',
    summary: 'Occupancy data',
    tags: ['analytics'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'analytics',
    query: z.object({ start_time: TimeParam, end_time: TimeParam, environment_id: Env.optional(), interval: z.enum(['5min', '15min', '1hour']).default('15min') }),
    success: { status: 200, description: 'Occupancy over the range', A: Occupancy, B: Occupancy },
    errors: [422, 503],
    async handler({ query }) {
      const { start, end } = requiredRange(query as Parameters<typeof requiredRange>[0]);
      const intervalMs = INTERVALS[query.interval as keyof typeof INTERVALS];
      const storage = await services.storageForReading();
      const agg = await storage.poses.aggregate({ start, end, environmentId: query.environment_id, intervalMs });
      const sensing = await sensedPresence(storage, { start, end, environmentId: query.environment_id }, intervalMs);
      const frames = agg.buckets.reduce((a, b) => a + b.frameCount, 0);
      const byCount = [0, 0, 0, 0, 0];
      for (const b of agg.buckets) for (const [k, v] of Object.entries(b.framesByPersonCount)) byCount[Math.min(4, Number(k))] += v;
      const pct = (n: number) => (frames ? (100 * n) / frames : 0);
      const peak = agg.buckets.reduce<PoseAggregateBucket | null>((best, b) => (!best || b.maxPersonCount > best.maxPersonCount ? b : best), null);
      return {
        body: {
          summary: {
            average_occupancy: frames ? agg.buckets.reduce((a, b) => a + b.avgPersonCount * b.frameCount, 0) / frames : null,
            peak_occupancy: peak?.maxPersonCount ?? 0,
            peak_time: peak ? iso(peak.start) : null,
            total_person_hours: agg.buckets.reduce((a, b) => a + (b.avgPersonCount * intervalMs) / 3_600_000, 0),
          },
          time_series: agg.buckets.map((b) => ({ timestamp: iso(b.start), occupancy: b.avgPersonCount, confidence: b.avgConfidence })),
          distribution: { '0_persons': pct(byCount[0]), '1_person': pct(byCount[1]), '2_persons': pct(byCount[2]), '3_persons': pct(byCount[3]), '4_plus_persons': pct(byCount[4]) },
          sensing,
        },
      };
    },
  });

  return [healthcare, retail, security, summary, events, occupancy];
}
