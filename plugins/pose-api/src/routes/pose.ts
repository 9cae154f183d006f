import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { ApiErrors } from '../errors.js';
import { defineRoute, iso, parseTime, QueryBoolean, TimeParam, type RouteDefinition } from '../http/route.js';
import type { ApiServices } from '../services.js';
import { frameA, frameB, HistoryA, HistoryRecordB, historyRecordB, PaginationB, PoseFrameA, PoseFrameB, metadataA, personA, type AnyFrame } from '../schemas/pose.js';

const Confidence = z.coerce.number().min(0).max(1);
const Id = z.coerce.number().int().min(0);
const ACTIVITIES = ['standing', 'walking', 'sitting', 'lying', 'falling', 'absent'] as const;

/** Time range answer of POSE_DATA_NOT_FOUND. */
async function notFoundDetails(services: ApiServices, start: number | undefined, end: number | undefined, environmentId?: string) {
  const range = await (await services.storageForReading()).poses.availableRange(environmentId);
  return {
    requested_range: { start: start === undefined ? null : iso(start), end: end === undefined ? null : iso(end) },
    available_range: range ? { start: iso(range.earliest), end: iso(range.latest) } : null,
  };
}

function rangeCheck(start: number | undefined, end: number | undefined, field = 'end_time'): void {
  if (start !== undefined && end !== undefined && end < start) throw ApiErrors.validation([{ field, message: 'must not be before start_time', received: iso(end) }]);
}

/** The pose data routes. */
export function poseRoutes(services: ApiServices): RouteDefinition[] {
  const latest = defineRoute({
    method: 'get',
    path: '/pose/latest',
    summary: 'Most recent pose frame',
    tags: ['pose'],
    spec: true,
    access: 'viewer',
    category: 'pose_read',
    requiresRunning: true,
    query: z.object({
      environment_id: z.string().min(1).max(128).optional(),
      min_confidence: Confidence.optional(),
      include_keypoints: QueryBoolean.default(true),
      include_dense_pose: QueryBoolean.default(true).describe('Extension: leave dense pose out'),
    }),
    success: { status: 200, description: 'The latest frame (from the running pipeline, else the newest stored frame)', A: PoseFrameA, B: PoseFrameB },
    errors: [404, 422, 503],
    async handler({ query, convention }) {
      let frame: AnyFrame | null | undefined = services.hub.latest(query.environment_id);
      if (!frame && services.host.hasStorage) frame = await (await services.storageForReading()).poses.latest({ environmentId: query.environment_id });
      if (!frame) {
        const error = ApiErrors.poseDataNotFound(query.environment_id ? `for environment ${query.environment_id}` : 'yet');
        if (services.host.hasStorage) Object.assign(error, { details: await notFoundDetails(services, undefined, undefined, query.environment_id) });
        throw error;
      }
      const options = { minConfidence: query.min_confidence, includeKeypoints: query.include_keypoints, includeDensePose: query.include_dense_pose };
      return { body: convention === 'A' ? frameA(frame, options) : frameB(frame, options) };
    },
  });

  const history = defineRoute({
    method: 'get',
    path: '/pose/history',
    summary: 'Historical poses',
    tags: ['pose'],
    spec: true,
    access: 'viewer',
    category: 'pose_read',
    query: {
      A: z.object({
        start_time: TimeParam.optional(),
        end_time: TimeParam.optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        cursor: z.string().min(1).max(512).optional().describe('Extension: next_cursor of the previous page'),
        confidence_threshold: Confidence.optional(),
        person_id: Id.optional(),
        environment_id: z.string().min(1).max(128).optional().describe('Extension in A'),
      }),
      B: z.object({
        start_time: TimeParam,
        end_time: TimeParam,
        person_id: Id.optional(),
        environment_id: z.string().min(1).max(128).optional(),
        track_id: Id.optional(),
        min_confidence: Confidence.optional(),
        page: z.coerce.number().int().min(1).default(1),
        per_page: z.coerce.number().int().min(1).max(1000).default(50),
      }),
    },
    success: { status: 200, description: 'A page of history', A: HistoryA, B: z.array(HistoryRecordB), extrasB: z.object({ pagination: PaginationB }) },
    errors: [404, 422, 503],
    async handler({ query, convention }) {
      const storage = await services.storageForReading();
      const start = query.start_time ? parseTime(query.start_time) : undefined;
      const end = query.end_time ? parseTime(query.end_time) : undefined;
      rangeCheck(start, end);
      if (convention === 'A') {
        const page = await storage.poses.scanFrames(
          { start, end, environmentId: query.environment_id, personId: query.person_id, minConfidence: query.confidence_threshold, order: 'desc' },
          { cursor: query.cursor ?? null, limit: query.limit },
        );
        if (page.totalCount === 0) {
          const error = ApiErrors.poseDataNotFound('in the requested range');
          throw Object.assign(error, { details: await notFoundDetails(services, start, end, query.environment_id) });
        }
        return {
          body: {
            poses: page.items.map((f) => ({ timestamp: iso(f.timestamp), frame_id: f.frameId, persons: f.persons.map((p) => personA(p)), metadata: metadataA(f) })),
            pagination: { total_count: page.totalCount, returned_count: page.items.length, has_more: page.hasMore, next_cursor: page.nextCursor },
          },
        };
      }
      const page = await storage.poses.findRecords(
        { start, end, environmentId: query.environment_id, personId: query.person_id, trackId: query.track_id, minConfidence: query.min_confidence, order: 'desc' },
        { page: query.page, perPage: query.per_page },
      );
      if (page.total === 0) {
        const error = ApiErrors.poseDataNotFound('in the requested range');
        throw Object.assign(error, { details: await notFoundDetails(services, start, end, query.environment_id) });
      }
      return {
        body: page.items.map(historyRecordB),
        extras: { pagination: { page: page.page, per_page: page.perPage, total: page.total, total_pages: page.totalPages, has_next: page.hasNext, has_prev: page.hasPrev } },
      };
    },
  });

  const QueryResult = z.object({
    results: z.array(
      z.object({
        timestamp: z.string(),
        person_count: z.number().int().optional().describe('Most persons in one frame of the bucket'),
        avg_person_count: z.number().optional(),
        avg_confidence: z.number().nullable().optional(),
        activities: z.record(z.string(), z.number()).optional(),
        frame_count: z.number().int().optional(),
        unique_tracks: z.number().int().optional(),
      }),
    ),
    query_metadata: z.object({ execution_time_ms: z.number(), total_records_scanned: z.number().int(), cache_hit: z.boolean() }),
  });
  const AGGREGATIONS = { minute_summary: 60_000, '5min_summary': 300_000, '15min_summary': 900_000, hourly_summary: 3_600_000, daily_summary: 86_400_000 } as const;
  const METRICS = ['person_count', 'avg_person_count', 'avg_confidence', 'activities', 'frame_count', 'unique_tracks'] as const;
  const QueryBody = z.object({
    query: z.object({
      time_range: z.object({ start: TimeParam, end: TimeParam }),
      environment_id: z.string().min(1).max(128).optional(),
      filters: z
        .object({
          person_count: z.object({ min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() }).optional(),
          confidence: z.object({ min: z.number().min(0).max(1).optional() }).optional(),
          activity: z.array(z.enum(ACTIVITIES)).optional(),
        })
        .optional(),
      aggregation: z
        .object({
          type: z.enum(Object.keys(AGGREGATIONS) as [keyof typeof AGGREGATIONS]).default('hourly_summary'),
          metrics: z.array(z.enum(METRICS)).min(1).default(['person_count', 'avg_confidence', 'activities']),
        })
        .prefault({}),
    }),
  });
  const query = defineRoute({
    method: 'post',
    path: '/pose/query',
    summary: 'Filtered and aggregated query',
    tags: ['pose'],
    spec: true,
    access: 'viewer',
    category: 'pose_read',
    body: QueryBody,
    success: { status: 200, description: 'Buckets of the aggregation', A: QueryResult, B: QueryResult },
    errors: [400, 422, 503],
    async handler({ body }) {
      const q = (body as z.output<typeof QueryBody>).query;
      const start = parseTime(q.time_range.start);
      const end = parseTime(q.time_range.end);
      if (end < start) throw ApiErrors.validation([{ field: 'query.time_range.end', message: 'must not be before start', received: q.time_range.end }]);
      const pc = q.filters?.person_count;
      if (pc?.min !== undefined && pc.max !== undefined && pc.max < pc.min) throw ApiErrors.validation([{ field: 'query.filters.person_count.max', message: 'must not be below min', received: pc.max }]);
      const began = performance.now();
      const result = await (await services.storageForReading()).poses.aggregate({
        start,
        end,
        environmentId: q.environment_id,
        intervalMs: AGGREGATIONS[q.aggregation.type],
        minConfidence: q.filters?.confidence?.min,
        activities: q.filters?.activity,
        personCount: pc,
      });
      const wanted = new Set(q.aggregation.metrics);
      const results = result.buckets.map((b) => {
        const row: Record<string, unknown> = { timestamp: iso(b.start) };
        if (wanted.has('person_count')) row.person_count = b.maxPersonCount;
        if (wanted.has('avg_person_count')) row.avg_person_count = b.avgPersonCount;
        if (wanted.has('avg_confidence')) row.avg_confidence = b.avgConfidence;
        if (wanted.has('activities')) row.activities = b.activities;
        if (wanted.has('frame_count')) row.frame_count = b.frameCount;
        if (wanted.has('unique_tracks')) row.unique_tracks = b.uniqueTracks;
        return row;
      });
      return { body: { results, query_metadata: { execution_time_ms: performance.now() - began, total_records_scanned: result.recordsScanned, cache_hit: false } } };
    },
  });

  const TrackRecord = z.object({
    track_id: z.number().int(),
    person_id: z.number().int().nullable(),
    environment_id: z.string(),
    first_seen: z.string(),
    last_seen: z.string(),
    duration_seconds: z.number(),
    total_frames: z.number().int(),
    average_confidence: z.number(),
    status: z.string().describe('tentative, active, lost, ended (from the tracker) or unknown'),
    trajectory: z.array(z.object({ timestamp: z.string(), center_x: z.number(), center_y: z.number(), position: z.object({ x: z.number(), y: z.number() }), confidence: z.number() })).optional(),
    statistics: z.object({ movement_distance: z.number(), average_speed: z.number(), time_stationary: z.number(), time_moving: z.number() }),
  });
  const tracking = defineRoute({
    method: 'get',
    path: '/pose/tracking/{track_id}',
    summary: 'Track data',
    tags: ['pose'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'pose_read',
    params: z.object({ track_id: Id }),
    query: z.object({ start_time: TimeParam.optional(), end_time: TimeParam.optional(), include_trajectory: QueryBoolean.default(false), environment_id: z.string().min(1).max(128).optional() }),
    success: { status: 200, description: 'The track', A: TrackRecord, B: TrackRecord },
    errors: [404, 422, 503],
    async handler({ params, query }) {
      const start = query.start_time ? parseTime(query.start_time) : undefined;
      const end = query.end_time ? parseTime(query.end_time) : undefined;
      rangeCheck(start, end);
      const track = await (await services.storageForReading()).tracks.get(params.track_id, { start, end, environmentId: query.environment_id, includeTrajectory: query.include_trajectory });
      if (!track) throw ApiErrors.notFound('track', String(params.track_id));
      return {
        body: {
          track_id: track.trackId,
          person_id: track.personId,
          environment_id: track.environmentId,
          first_seen: iso(track.firstSeen),
          last_seen: iso(track.lastSeen),
          duration_seconds: track.durationSeconds,
          total_frames: track.totalFrames,
          average_confidence: track.averageConfidence,
          status: track.status,
          ...(query.include_trajectory
            ? { trajectory: (track.trajectory ?? []).map((t) => ({ timestamp: iso(t.timestamp), center_x: t.centerX, center_y: t.centerY, position: t.position, confidence: t.confidence })) }
            : {}),
          statistics: {
            movement_distance: track.statistics.movementDistance,
            average_speed: track.statistics.averageSpeed,
            time_stationary: track.statistics.timeStationary,
            time_moving: track.statistics.timeMoving,
          },
        },
      };
    },
  });

  const Packet = z.object({
    timestamp: TimeParam,
    antenna_data: z.array(z.array(z.object({ real: z.number(), imag: z.number() })).min(1).max(4096)).min(1).max(64),
    metadata: z
      .object({
        router_id: z.string().max(128).optional(),
        sampling_rate: z.number().int().positive().optional(),
        signal_strength: z.number().optional(),
        receiver_id: z.string().max(128).optional().describe('Extension: the receiving device (the link is router_id → receiver_id)'),
        tx_count: z.number().int().min(1).max(8).optional().describe('Extension: transmit streams; antenna_data rows are then tx-major (tx0rx0, tx0rx1, ...)'),
        subcarrier_indices: z.array(z.number().int().min(-2048).max(2048)).max(4096).optional().describe('Extension: physical subcarrier index of each column'),
        center_frequency_hz: z.number().positive().optional().describe('Extension'),
      })
      .optional(),
  });
  const ProcessBody = z.object({
    csi_data: z.union([Packet, z.array(Packet).min(1).max(10_000)]).describe('One CSI packet, or (extension) a sequence of packets in time order'),
    processing_options: z
      .object({
        confidence_threshold: z.number().min(0).max(1).optional(),
        max_persons: z.number().int().positive().max(64).optional(),
        enable_tracking: z.boolean().default(false),
        return_dense_pose: z.boolean().default(false),
      })
      .prefault({}),
  });
  const ProcessResult = {
    A: z.object({ processing_id: z.string(), status: z.string(), processing_time_ms: z.number(), poses: z.array(PoseFrameA), node_types: z.array(z.string()) }),
    B: z.object({ processing_id: z.string(), status: z.string(), processing_time_ms: z.number(), poses: z.array(PoseFrameB), node_types: z.array(z.string()) }),
  };
  const process = defineRoute({
    method: 'post',
    path: '/pose/process',
    summary: 'Process submitted CSI',
    description: 'Runs the submitted CSI through the configured signal chain, pose model and (with enable_tracking) tracker as a job.',
    tags: ['pose'],
    spec: true,
    specConvention: 'B',
    access: 'operator',
    category: 'pose_process',
    body: ProcessBody,
    success: { status: 200, description: 'Processing result', A: ProcessResult.A, B: ProcessResult.B },
    errors: [400, 413, 422, 500, 503, 504],
    async handler({ body, convention, principal }) {
      const b = body as z.output<typeof ProcessBody>;
      const packets = Array.isArray(b.csi_data) ? b.csi_data : [b.csi_data];
      const outcome = await services.processor.process(packets, b.processing_options, principal?.userId);
      const include = { includeDensePose: b.processing_options.return_dense_pose };
      return {
        body: {
          processing_id: outcome.processingId,
          status: 'completed',
          processing_time_ms: outcome.processingTimeMs,
          poses: outcome.frames.map((f) => (convention === 'A' ? frameA(f, include) : frameB(f, include))),
          node_types: outcome.nodeTypes,
        },
      };
    },
  });

  return [latest, history, query, tracking, process];
}
