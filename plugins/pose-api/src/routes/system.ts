import type { JobRunnerInfo } from '@wiflow/core';
import { z } from 'zod';
import { defineRoute, iso, type RouteDefinition } from '../http/route.js';
import type { ApiServices } from '../services.js';
import { nodeFailing, systemProblem, type ComponentNode } from '../system/system-controller.js';
import { PoseConfigSchema } from '../config.js';
import { ApiErrors } from '../errors.js';
import { ClusterStatusSchema } from '../cluster/cluster-status.js';
import { referenceStatus, ReferenceStatusSchema } from '../system/reference-status.js';

const Step = z.object({ step: z.string(), status: z.enum(['pending', 'in_progress', 'completed', 'failed']), progress: z.number().min(0).max(1) });
const NumOrNull = z.number().nullable();
const State = z.enum(['stopped', 'starting', 'running', 'stopping', 'restarting']);

/** Component state from the nodes that play a role ('not_configured' when the flow has none). */
function componentStatus(nodes: ComponentNode[], running: boolean, healthyWord: 'active' | 'healthy'): string {
  if (!running) return 'stopped';
  if (!nodes.length) return 'not_configured';
  if (nodes.some(nodeFailing)) return 'error';
  return healthyWord;
}

function sum(values: (number | null | undefined)[]): number | null {
  const real = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return real.length ? real.reduce((a, b) => a + b, 0) : null;
}

function statNumber(nodes: ComponentNode[], names: string[]): number | null {
  for (const node of nodes) for (const name of names) {
    const v = node.counters.stats?.[name];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/** This server as a job runner (extension): null without storage. */
const JobRunnerSchema = z
  .object({
    runner_id: z.string(),
    holds_data_directory: z.boolean(),
    held_by: z.object({ pid: z.number().int(), host: z.string(), started_at: z.string().nullable() }).nullable(),
  })
  .nullable()
  .describe(
    "This server as a job runner (extension): its runner id, whether it holds the data directory's stable id (false when another live wiflow process on the same data directory, e.g. a long `wiflow run`, started first: this server then leaves that process's unfinished jobs to it) and which process holds it; null without storage",
  );

function jobRunnerOf(info: JobRunnerInfo | null): z.output<typeof JobRunnerSchema> {
  if (!info) return null;
  return { runner_id: info.runnerId, holds_data_directory: info.holdsDataDirectory, held_by: info.heldBy && { pid: info.heldBy.pid, host: info.heldBy.host, started_at: info.heldBy.startedAt } };
}

const StatusA = z.object({
  status: State,
  uptime_seconds: z.number().int(),
  version: z.string(),
  components: z.object({
    csi_receiver: z.object({ status: z.string(), data_rate_hz: NumOrNull, packet_loss_rate: NumOrNull, last_packet_time: z.string().nullable() }),
    neural_network: z.object({ status: z.string(), model_loaded: z.boolean(), inference_time_ms: NumOrNull, gpu_utilization: NumOrNull }),
    tracking: z.object({ status: z.string(), active_tracks: z.number().int(), track_quality: NumOrNull }),
  }),
  hardware: z.object({ cpu_usage: z.number(), memory_usage: z.number(), gpu_memory_usage: NumOrNull, disk_usage: NumOrNull }),
  network: z.object({ connected_routers: z.number().int().nullable(), signal_strength: NumOrNull, interference_level: NumOrNull }),
  counters: z.object({ frames_published: z.number().int(), frames_written: z.number().int(), node_errors: z.number().int(), dropped: z.number().int() }),
  last_error: z.string().nullable(),
  cluster: ClusterStatusSchema.optional().describe('Cluster mode only: every instance from its heartbeats (extension)'),
  empty_room_reference: ReferenceStatusSchema.describe("pose.locate's empty-room references: each link fresh, stale or not yet checked, and how to re-record (extension)"),
  job_runner: JobRunnerSchema,
});
const StatusB = z.object({
  status: State,
  uptime_seconds: z.number().int(),
  session_id: z.string().nullable(),
  started_at: z.string().nullable(),
  components: z.object({
    csi_processor: z.object({ status: z.string(), last_heartbeat: z.string().nullable() }),
    neural_network: z.object({ status: z.string(), model_loaded: z.boolean(), inference_queue_size: z.number().int() }),
    tracker: z.object({ status: z.string(), active_tracks: z.number().int() }),
    database: z.object({ status: z.string(), connection_pool: z.string().nullable() }),
  }),
  performance: z.object({ frames_processed: z.number(), average_fps: z.number(), average_latency_ms: NumOrNull, cpu_usage: z.number(), memory_usage: z.number(), gpu_usage: NumOrNull }),
  last_error: z.string().nullable(),
  cluster: ClusterStatusSchema.optional().describe('Cluster mode only: every instance from its heartbeats (extension)'),
  empty_room_reference: ReferenceStatusSchema.describe("pose.locate's empty-room references: each link fresh, stale or not yet checked, and how to re-record (extension)"),
  job_runner: JobRunnerSchema,
});

/** System control and status routes. */
export function systemRoutes(services: ApiServices): RouteDefinition[] {
  const { system, hub } = services;

  function activeTracks(): number {
    const ids = new Set<number>();
    for (const env of hub.environments()) for (const p of hub.latest(env)?.persons ?? []) if (p.trackId !== null && p.trackId !== undefined) ids.add(p.trackId);
    return ids.size;
  }

  async function statusBody(convention: 'A' | 'B') {
    const running = system.running;
    const nodes = system.components();
    const csi = nodes.filter((n) => n.role === 'csi');
    const sources = csi.filter((n) => n.counters.in === 0 || n.outRate !== null);
    const model = nodes.filter((n) => n.role === 'model');
    const tracker = nodes.filter((n) => n.role === 'tracker');
    const r = services.resources.snapshot();
    const latestOut = csi.map((n) => n.lastOutputAt).filter((v): v is number => v !== null);
    const lastPacket = latestOut.length ? iso(Math.max(...latestOut)) : null;
    const frame = hub.latest();
    const totals = nodes.reduce((acc, n) => ({ errors: acc.errors + n.counters.errors, dropped: acc.dropped + n.counters.dropped }), { errors: 0, dropped: 0 });
    const cluster = services.clusterStatus();
    const clusterPart = cluster ? { cluster } : {};
    if (convention === 'A') {
      return {
        status: system.state,
        uptime_seconds: system.uptimeSeconds(),
        version: services.host.system.version,
        components: {
          csi_receiver: {
            status: componentStatus(csi, running, 'active'),
            data_rate_hz: sum(sources.filter((n) => n.counters.in === 0).map((n) => n.csiFrameRate)),
            packet_loss_rate: statNumber(csi, ['packet_loss_rate', 'packetLossRate', 'lossRate']),
            last_packet_time: lastPacket,
          },
          neural_network: {
            status: componentStatus(model, running, 'active'),
            model_loaded: running && model.length > 0,
            inference_time_ms: model.length ? sum(model.map((n) => n.counters.latencyMeanMs)) : null,
            gpu_utilization: null,
          },
          tracking: { status: componentStatus(tracker, running, 'active'), active_tracks: activeTracks(), track_quality: statNumber(tracker, ['track_quality', 'trackQuality']) },
        },
        hardware: { cpu_usage: r.cpuUsage, memory_usage: r.memoryUsage, gpu_memory_usage: null, disk_usage: r.diskUsage },
        network: {
          connected_routers: frame ? frame.metadata.linkCount : null,
          signal_strength: statNumber(csi, ['rssi', 'signal_strength', 'rssiDbm']),
          interference_level: null,
        },
        counters: { frames_published: hub.counters.framesPublished, frames_written: hub.counters.framesWritten, node_errors: totals.errors, dropped: totals.dropped },
        last_error: systemProblem(system.lastError, nodes),
        ...clusterPart,
        empty_room_reference: referenceStatus(nodes, running),
        job_runner: jobRunnerOf(services.host.system.jobRunner),
      };
    }
    let database = { status: 'not_configured', connection_pool: null as string | null };
    if (services.host.hasStorage) {
      const health = await services.host.storage.health().catch((error): { status: string; details: Record<string, unknown> } => ({ status: 'unhealthy', details: { error: String(error) } }));
      const pool = health.details.connection_pool ?? health.details.pool;
      database = { status: health.status, connection_pool: typeof pool === 'string' ? pool : null };
    }
    return {
      status: system.state,
      uptime_seconds: system.uptimeSeconds(),
      session_id: system.sessionId,
      started_at: system.startedAt ? iso(system.startedAt) : null,
      components: {
        csi_processor: { status: componentStatus(csi, running, 'healthy'), last_heartbeat: lastPacket },
        neural_network: { status: componentStatus(model, running, 'healthy'), model_loaded: running && model.length > 0, inference_queue_size: model.reduce((a, n) => a + n.counters.queued, 0) },
        tracker: { status: componentStatus(tracker, running, 'healthy'), active_tracks: activeTracks() },
        database,
      },
      performance: {
        frames_processed: hub.counters.framesPublished,
        average_fps: hub.framesPerSecond(),
        average_latency_ms: running && nodes.length ? sum(nodes.map((n) => n.counters.latencyMeanMs)) : null,
        cpu_usage: r.cpuUsage * 100,
        memory_usage: r.memoryUsage * 100,
        gpu_usage: null,
      },
      last_error: systemProblem(system.lastError, nodes),
      ...clusterPart,
      empty_room_reference: referenceStatus(nodes, running),
      job_runner: jobRunnerOf(services.host.system.jobRunner),
    };
  }

  const status = defineRoute({
    method: 'get',
    path: '/system/status',
    summary: 'System status',
    tags: ['system'],
    spec: true,
    access: 'viewer',
    category: 'pose_read',
    success: { status: 200, description: 'Status with real component states and process figures', A: StatusA, B: StatusB },
    errors: [],
    async handler({ convention }) {
      return { body: await statusBody(convention) };
    },
  });

  const StartBody = z
    .object({
      configuration: z
        .object({
          domain: PoseConfigSchema.unwrap().shape.domain.unwrap().optional(),
          environment_id: z.string().min(1).max(128).optional(),
          calibration_required: z.boolean().optional(),
          detection_settings: z
            .object({ confidence_threshold: z.number().min(0).max(1).optional(), max_persons: z.number().int().positive().max(64).optional(), enable_tracking: z.boolean().optional() })
            .strict()
            .optional(),
          hardware_settings: z.object({ csi_sampling_rate: z.number().int().positive().max(10_000).optional(), buffer_size: z.number().int().positive().max(1_000_000).optional() }).strict().optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .prefault({});
  const start = defineRoute({
    method: 'post',
    path: '/system/start',
    summary: 'Start the system',
    description: 'Applies the given configuration, loads and compiles the configured pipeline flow, and deploys it; 202 while it starts (poll /system/status).',
    tags: ['system'],
    spec: true,
    access: 'operator',
    category: 'config',
    body: StartBody,
    success: {
      status: 202,
      description: 'Starting',
      A: z.object({ status: z.literal('starting'), estimated_ready_time: z.string(), initialization_steps: z.array(Step), session_id: z.string() }),
      B: z.object({ status: z.literal('starting'), session_id: z.string(), estimated_startup_time: z.number().int(), configuration_applied: z.record(z.string(), z.unknown()) }),
    },
    errors: [409, 422, 500, 503],
    async handler({ body, convention }) {
      const c = (body as z.output<typeof StartBody>).configuration ?? {};
      const patch: Record<string, unknown> = {};
      if (c.domain) patch.domain = c.domain;
      if (c.environment_id) patch.environment = { id: c.environment_id };
      if (c.calibration_required === false && c.environment_id) patch.environment = { id: c.environment_id };
      if (c.detection_settings) {
        const d = c.detection_settings;
        patch.detection = { ...(d.confidence_threshold !== undefined && { confidence_threshold: d.confidence_threshold }), ...(d.max_persons !== undefined && { max_persons: d.max_persons }), ...(d.enable_tracking !== undefined && { tracking_enabled: d.enable_tracking }) };
      }
      if (c.hardware_settings) patch.hardware = c.hardware_settings;
      // The same 409 a start gives, before any configuration changes.
      if (system.state !== 'stopped') throw system.state === 'running' || system.state === 'starting' ? ApiErrors.alreadyRunning(system.state) : ApiErrors.transitionInProgress(system.state);
      if (Object.keys(patch).length) {
        const result = services.host.config.update({ pose: patch });
        if (result.errors.length) {
          throw ApiErrors.validation(result.errors.map((e) => ({ field: e.field.replace(/^pose\./, 'configuration.'), message: e.message, received: e.received })));
        }
      }
      const began = Date.now();
      const { sessionId, steps } = await system.start();
      const estimateMs = 2000;
      if (convention === 'A') return { status: 202, body: { status: 'starting', estimated_ready_time: iso(began + estimateMs), initialization_steps: steps, session_id: sessionId } };
      return { status: 202, body: { status: 'starting', session_id: sessionId, estimated_startup_time: Math.ceil(estimateMs / 1000), configuration_applied: c } };
    },
  });

  const StopBody = z.object({ force: z.boolean().default(false), save_state: z.boolean().default(true) }).strict().prefault({});
  const stop = defineRoute({
    method: 'post',
    path: '/system/stop',
    summary: 'Stop the system',
    tags: ['system'],
    spec: true,
    access: 'operator',
    category: 'config',
    body: StopBody,
    success: {
      status: 202,
      description: 'Stopping',
      A: z.object({ status: z.literal('stopping'), estimated_stop_time: z.string(), shutdown_steps: z.array(Step) }),
      B: z.object({ status: z.literal('stopping'), session_id: z.string().nullable(), shutdown_initiated: z.string() }),
    },
    errors: [409, 422],
    async handler({ body, convention }) {
      const b = body as z.output<typeof StopBody>;
      const now = Date.now();
      const { sessionId, steps } = system.stop({ force: b.force, saveState: b.save_state });
      if (convention === 'A') return { status: 202, body: { status: 'stopping', estimated_stop_time: iso(now + (b.force ? 500 : 2500)), shutdown_steps: steps } };
      return { status: 202, body: { status: 'stopping', session_id: sessionId, shutdown_initiated: iso(now) } };
    },
  });

  const RestartResult = z.object({ status: z.literal('restarting'), previous_session_id: z.string().nullable(), new_session_id: z.string(), estimated_restart_time: z.number().int() });
  const restart = defineRoute({
    method: 'post',
    path: '/system/restart',
    summary: 'Restart the system',
    tags: ['system'],
    spec: true,
    specConvention: 'B',
    access: 'operator',
    category: 'config',
    success: { status: 202, description: 'Restarting', A: RestartResult, B: RestartResult },
    errors: [409, 500, 503],
    async handler() {
      const { previousSessionId, newSessionId } = await system.restart();
      return { status: 202, body: { status: 'restarting', previous_session_id: previousSessionId, new_session_id: newSessionId, estimated_restart_time: 4 } };
    },
  });

  return [status, start, stop, restart];
}
