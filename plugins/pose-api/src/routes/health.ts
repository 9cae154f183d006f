import { z } from 'zod';
import { defineRoute, iso, parseTime, TimeParam, type RouteDefinition } from '../http/route.js';
import type { ApiServices } from '../services.js';
import { ApiErrors } from '../errors.js';
import { nodeFailing } from '../system/system-controller.js';
import { ClusterStatusSchema } from '../cluster/cluster-status.js';
import { referenceStatus, ReferenceStatusSchema } from '../system/reference-status.js';

const NN = z.number().nullable();
const Health = z.object({ status: z.enum(['healthy', 'degraded', 'unhealthy']), timestamp: z.string(), version: z.string(), uptime: z.number().int() });
const Component = z.object({ status: z.string() }).catchall(z.unknown());
const Detailed = z.object({
  overall_status: z.enum(['healthy', 'degraded', 'unhealthy']),
  timestamp: z.string(),
  version: z.string(),
  uptime: z.number().int(),
  components: z.object({
    api: Component,
    database: Component,
    redis: Component,
    neural_network: Component,
    csi_processor: Component,
    cluster: ClusterStatusSchema.extend({ status: z.enum(['healthy', 'degraded']).describe('degraded while an instance is down') })
      .optional()
      .describe('Cluster mode only: every instance from its heartbeats (extension)'),
    empty_room_reference: ReferenceStatusSchema.describe("pose.locate's empty-room references per link; degraded while one is stale (extension)"),
  }),
  metrics: z.object({ cpu_usage: z.number(), memory_usage: z.number(), disk_usage: NN, network_io: z.object({ bytes_in: z.number().int(), bytes_out: z.number().int() }) }),
});
const Metrics = z.object({
  current: z.object({
    timestamp: z.string(),
    performance: z.object({ frames_per_second: z.number(), average_latency_ms: NN, processing_queue_size: z.number().int(), error_rate: NN }),
    resources: z.object({ cpu_usage: z.number(), memory_usage: z.number(), gpu_usage: NN, disk_io: z.object({ read_mb_per_sec: NN, write_mb_per_sec: NN }) }),
    business: z.object({ active_persons: z.number().int(), detections_per_minute: z.number(), tracking_accuracy: NN }),
  }),
  historical: z.array(z.object({ timestamp: z.string(), frames_per_second: NN, average_latency_ms: NN, cpu_usage: NN })),
});

/** Health and metrics routes. */
export function healthRoutes(services: ApiServices): RouteDefinition[] {
  const { host } = services;
  const uptime = () => Math.floor((Date.now() - host.system.startedAt) / 1000);

  async function storageStatus(): Promise<{ status: string; [k: string]: unknown }> {
    if (!host.hasStorage) return { status: 'not_configured' };
    try {
      const health = await host.storage.health();
      return { status: health.status, kind: host.storage.kind, ...health.details };
    } catch (error) {
      return { status: 'unhealthy', error: String(error) };
    }
  }

  function overall(storage: string): 'healthy' | 'degraded' | 'unhealthy' {
    if (host.system.state !== 'started') return 'unhealthy';
    if (storage === 'unhealthy' || storage === 'degraded' || storage === 'not_configured') return 'degraded';
    return 'healthy';
  }

  const health = defineRoute({
    method: 'get',
    path: '/health',
    summary: 'Basic health (no authentication)',
    tags: ['health'],
    spec: true,
    specConvention: 'B',
    access: 'public',
    category: 'health',
    bare: true,
    success: { status: 200, description: 'Health', A: Health, B: Health },
    errors: [],
    async handler() {
      const storage = await storageStatus();
      return { body: { status: overall(storage.status), timestamp: new Date().toISOString(), version: host.system.version, uptime: uptime() } };
    },
  });

  const detailed = defineRoute({
    method: 'get',
    path: '/health/detailed',
    summary: 'Detailed health',
    tags: ['health'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'health',
    success: { status: 200, description: 'Component health and process figures', A: Detailed, B: Detailed },
    errors: [],
    async handler() {
      const database = await storageStatus();
      const r = services.resources.snapshot();
      const nodes = services.system.components();
      const model = nodes.filter((n) => n.role === 'model');
      const csi = nodes.filter((n) => n.role === 'csi');
      const running = services.system.running;
      const stateOf = (list: typeof nodes) => (!running ? 'stopped' : list.length ? (list.some(nodeFailing) ? 'unhealthy' : 'healthy') : 'not_configured');
      const cluster = services.clusterStatus();
      const clusterDegraded = cluster !== null && cluster.instances_down > 0;
      const references = referenceStatus(nodes, running);
      const status = overall(database.status);
      return {
        body: {
          overall_status: status === 'healthy' && (clusterDegraded || references.status === 'stale') ? 'degraded' : status,
          timestamp: new Date().toISOString(),
          version: host.system.version,
          uptime: uptime(),
          components: {
            api: { status: 'healthy', system_state: services.system.state, websocket_clients: services.websocketClientCount() },
            database,
            redis: { status: 'not_configured', note: 'wiflow uses no Redis' },
            neural_network: { status: stateOf(model), nodes: model.map((n) => n.type), inference_time_ms: model.length ? model.reduce((a, n) => a + n.counters.latencyMeanMs, 0) : null, errors: model.reduce((a, n) => a + n.counters.errors, 0) },
            csi_processor: { status: stateOf(csi), nodes: csi.map((n) => n.type), messages_in: csi.reduce((a, n) => a + n.counters.in, 0), dropped: csi.reduce((a, n) => a + n.counters.dropped, 0) },
            ...(cluster ? { cluster: { status: clusterDegraded ? ('degraded' as const) : ('healthy' as const), ...cluster } } : {}),
            empty_room_reference: references,
          },
          metrics: { cpu_usage: r.cpuUsage * 100, memory_usage: r.memoryUsage * 100, disk_usage: r.diskUsage === null ? null : r.diskUsage * 100, network_io: { bytes_in: r.networkBytesIn, bytes_out: r.networkBytesOut } },
        },
      };
    },
  });

  const metrics = defineRoute({
    method: 'get',
    path: '/metrics',
    summary: 'System metrics',
    tags: ['health'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'health',
    query: z.object({
      start_time: TimeParam.optional(),
      end_time: TimeParam.optional(),
      metric_type: z.enum(['performance', 'resources', 'business', 'all']).default('all').describe('Which group of current figures to include'),
    }),
    success: { status: 200, description: 'Current figures and sampled history', A: Metrics.extend({ current: Metrics.shape.current.partial({ performance: true, resources: true, business: true }) }), B: Metrics.extend({ current: Metrics.shape.current.partial({ performance: true, resources: true, business: true }) }) },
    errors: [422],
    async handler({ query }) {
      const r = services.resources.snapshot();
      const nodes = services.system.components();
      const totalIn = nodes.reduce((a, n) => a + n.counters.in, 0);
      const errors = nodes.reduce((a, n) => a + n.counters.errors, 0);
      const type = query.metric_type as string;
      const current: Record<string, unknown> = { timestamp: new Date().toISOString() };
      if (type === 'all' || type === 'performance') {
        current.performance = {
          frames_per_second: services.hub.framesPerSecond(),
          average_latency_ms: nodes.length ? nodes.reduce((a, n) => a + n.counters.latencyMeanMs, 0) : null,
          processing_queue_size: nodes.reduce((a, n) => a + n.counters.queued, 0),
          error_rate: totalIn ? errors / totalIn : null,
        };
      }
      if (type === 'all' || type === 'resources') {
        current.resources = {
          cpu_usage: r.cpuUsage * 100,
          memory_usage: r.memoryUsage * 100,
          gpu_usage: null,
          disk_io: { read_mb_per_sec: r.diskReadBytesPerSec === null ? null : r.diskReadBytesPerSec / 1e6, write_mb_per_sec: r.diskWriteBytesPerSec === null ? null : r.diskWriteBytesPerSec / 1e6 },
        };
      }
      if (type === 'all' || type === 'business') {
        current.business = { active_persons: services.hub.activePersons(), detections_per_minute: services.hub.detectionsPerMinute(), tracking_accuracy: null };
      }
      let historical: z.output<typeof Metrics>['historical'] = [];
      if (host.hasStorage) {
        const end = query.end_time ? parseTime(query.end_time) : Date.now();
        const start = query.start_time ? parseTime(query.start_time) : end - 3_600_000;
        if (end < start) throw ApiErrors.validation([{ field: 'end_time', message: 'must not be before start_time', received: query.end_time }]);
        const page = await host.storage.metrics.find({ start, end, kinds: ['performance'], source: 'pose-api', order: 'asc' }, { page: 1, perPage: 1000 });
        historical = page.items.map((s) => ({ timestamp: iso(s.timestamp), frames_per_second: s.values.frames_per_second ?? null, average_latency_ms: s.values.average_latency_ms ?? null, cpu_usage: s.values.cpu_usage ?? null }));
      }
      return { body: { current, historical } };
    },
  });

  return [health, detailed, metrics];
}
