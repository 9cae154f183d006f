import { randomUUID } from 'node:crypto';
import { param } from '../http/params.js';
import { Router, type Request } from 'express';
import { defineRoute, flowIoSchemas, isJobFlow, type FlowData } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { openSse } from '../http/sse.js';
import { JsonObject, flowServiceRouter, type FlowServiceRoute } from '../http/route-kit.js';
import { parseWith } from '../http/validation.js';
import { asFlowData, validateFlowData } from '../flows/flow-data.js';
import { FlowDataRequestSchema } from '../jobs/run-model.js';
import type { FlowService } from '../flows/flow-service.js';
import { Deployments, failureOf, statusOf } from './deployments.js';

/** The base URL clients reach this server at: `studio.publicUrl`, or the request's own. */
export function baseUrlOf(studio: StudioContext, req: Request): string {
  if (studio.config.publicUrl) return studio.config.publicUrl.replace(/\/$/, '');
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** ConfigResponse: every field required except `type` (the constant "full"). */
export function configResponse(studio: StudioContext, req: Request): Record<string, unknown> {
  const c = studio.config;
  return {
    type: 'full',
    feature_flags: { mvp_components: c.featureFlags.mvp_components, ext_deployments: c.featureFlags.ext_deployments },
    max_file_size_upload: Math.floor(c.maxFileSizeUploadMb),
    event_delivery: c.eventDelivery,
    voice_mode_available: c.voiceModeAvailable,
    frontend_timeout: c.frontendTimeout,
    mcp_base_url: `${baseUrlOf(studio, req)}/api/v1/mcp`,
    serialization_max_items_length: c.serializationMaxItemsLength,
    serialization_max_text_length: c.serializationMaxTextLength,
    auto_saving: c.autoSaving,
    auto_saving_interval: c.autoSavingInterval,
    health_check_max_retries: c.healthCheckMaxRetries,
    webhook_polling_interval: c.webhookPollingInterval,
    public_flow_cleanup_interval: c.publicFlowCleanupInterval,
    public_flow_expiration: c.publicFlowExpiration,
    webhook_auth_enable: c.webhookAuthEnable,
    default_folder_name: c.defaultFolderName,
    hide_getting_started_progress: c.hideGettingStartedProgress,
    allow_custom_components: c.allowCustomComponents,
  };
}

/** Real checks behind /health_check: a storage read plus its own health, and a one-node job through the engine. */
export async function healthChecks(studio: StudioContext): Promise<{ db: string; chat: string }> {
  let db = 'ok';
  try {
    const storage = studio.storage;
    await storage.settings.get('studio', 'health');
    const health = await storage.health();
    if (health.status === 'unhealthy') db = `error: storage unhealthy ${JSON.stringify(health.details)}`;
  } catch (error) {
    db = `error: ${(error as Error).message}`;
  }
  let chat = 'ok';
  try {
    const probe = `probe-${Date.now()}`;
    const data: FlowData = {
      nodes: [
        { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'value' } } },
        { id: 'out', position: { x: 200, y: 0 }, data: { nodeType: 'io.output', config: { name: 'value', collect: 'last' } } },
      ],
      edges: [{ id: 'e', source: 'in', sourceHandle: 'value', target: 'out', targetHandle: 'value' }],
    };
    const job = await studio.flows.runJob(data, { inputs: { value: probe }, timeoutMs: 5000, labels: { source: 'health' }, stored: false });
    const result = await job.done;
    if (result.status !== 'completed' || result.outputs.value !== probe) chat = `error: engine probe ${result.status}${result.error ? `: ${result.error}` : ''}`;
  } catch (error) {
    chat = `error: ${(error as Error).message}`;
  }
  return { db, chat };
}

const HealthCheck = z.object({ status: z.enum(['ok', 'nok']), db: z.string(), chat: z.string() });
const DeploymentId = z.object({ id: z.string() });
const ValidateBody = z.object({ data: FlowDataRequestSchema });
const DeploymentListQuery = z.object({ flow_id: z.guid().optional() });
const DeployBody = z.object({ flow_id: z.guid() });
const CountersQuery = z.object({ interval_ms: z.coerce.number().int().min(100).max(60_000).default(1000) });
const Counters = z.object({
  id: z.string(),
  flow_id: z.string().nullable(),
  /** Whether the pipeline still runs, so a poller learns that it stopped or failed, and why. */
  status: z.enum(['running', 'stopped', 'failed']),
  error: z.string().nullable(),
  counters: JsonObject,
  at: z.string(),
});

/** `/api/v1/studio`: config, node types, validation, deployments with live counters; plus `/health` and `/health_check`. */
export function studioRoutes(studio: StudioContext, flows: FlowService): { studio: Router; health: Router } {
  const deployments = new Deployments(studio, flows);
  /** Deployments being started, by reservation id: their owner. */
  const pending = new Map<string, string>();

  const healthRoutes: FlowServiceRoute[] = [
    defineRoute({
      method: 'get',
      path: '/health',
      summary: 'Liveness',
      tags: ['health'],
      spec: false,
      access: 'public',
      success: { status: 200, description: 'Alive', A: z.object({ status: z.literal('ok') }), B: z.object({ status: z.literal('ok') }) },
      errors: [],
      handler: async () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/health_check',
      summary: 'Storage and engine checks (500 with {detail} when one fails)',
      tags: ['health'],
      spec: false,
      access: 'public',
      success: { status: 200, description: 'Every check passed', A: HealthCheck, B: HealthCheck },
      errors: [],
      async handler() {
        const { db, chat } = await healthChecks(studio);
        const ok = db === 'ok' && chat === 'ok';
        const body = { status: ok ? 'ok' : 'nok', db, chat };
        return ok ? { body } : { status: 500, body: { detail: body } };
      },
    }),
  ];

  /** 429 when the user, or the service as a whole, already runs as many pipelines as `studio.quotas` allows. */
  function checkDeploymentQuota(userId: string): void {
    const { deploymentsPerUser, deploymentsTotal } = studio.config.quotas;
    let { mine, total } = deployments.countStudioDeployments(userId);
    for (const owner of pending.values()) {
      total++;
      if (owner === userId) mine++;
    }
    if (mine >= deploymentsPerUser) throw StudioErrors.quotaExceeded(`You have ${mine} pipelines deployed, the most one user may have (studio.quotas.deploymentsPerUser = ${deploymentsPerUser}); undeploy one first`);
    if (total >= deploymentsTotal) throw StudioErrors.quotaExceeded(`The flow service runs ${total} deployed pipelines, the most it takes (studio.quotas.deploymentsTotal = ${deploymentsTotal}); try again later`);
  }

  const studioApi: FlowServiceRoute[] = [
    defineRoute({
      method: 'get',
      path: '/config',
      summary: "The frontend's ConfigResponse",
      tags: ['studio'],
      spec: true,
      access: 'public',
      success: { status: 200, description: 'Config', A: JsonObject, B: JsonObject },
      errors: [],
      handler: async ({ request }) => ({ body: configResponse(studio, request) }),
    }),
    defineRoute({
      method: 'get',
      path: '/node-types',
      summary: 'Every registered node type',
      tags: ['studio'],
      spec: false,
      access: 'viewer',
      success: { status: 200, description: 'Node types', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [],
      handler: async () => ({ body: studio.flows.registry.describe() }),
    }),
    defineRoute({
      method: 'post',
      path: '/validate',
      summary: "A flow's problems and its inputs' and outputs' schemas",
      tags: ['studio'],
      spec: false,
      access: 'viewer',
      body: ValidateBody,
      success: { status: 200, description: 'Validity', A: JsonObject, B: JsonObject },
      errors: [413, 422],
      async handler({ body }) {
        const data = (body as z.output<typeof ValidateBody>).data as unknown as Record<string, unknown>;
        const validity = validateFlowData(studio.flows, data);
        return { body: { ...validity, io: flowIoSchemas(asFlowData(data)) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/deployments',
      summary: "The caller's deployed pipelines with live counters",
      tags: ['deployments'],
      spec: false,
      access: 'viewer',
      query: DeploymentListQuery,
      success: { status: 200, description: 'Deployments', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [422],
      async handler({ query, principal }) {
        const { flow_id: flowId } = query as z.output<typeof DeploymentListQuery>;
        const list = await deployments.list(principal!.userId);
        return { body: flowId ? list.filter((view) => view.flow_id === flowId) : list };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/deployments',
      summary: 'Deploy a flow as a running pipeline',
      tags: ['deployments'],
      spec: false,
      access: 'operator',
      action: 'deploy flows',
      body: DeployBody,
      success: { status: 201, description: 'Deployed', A: JsonObject, B: JsonObject },
      errors: [404, 409, 413, 422, 429],
      async handler({ body, principal }) {
        const userId = principal!.userId;
        const flow = await studio.ownedFlow(userId, (body as z.output<typeof DeployBody>).flow_id);
        const validity = validateFlowData(studio.flows, flow.data);
        if (!validity.valid) {
          const error = StudioErrors.invalidFlow(validity.problems.length);
          Object.assign(error, { details: { problems: validity.problems } });
          throw error;
        }
        const data = asFlowData(flow.data);
        // Deployed, a job flow stops at once having done nothing: its io.input nodes emit only in a job.
        if (isJobFlow(data)) throw StudioErrors.jobFlowNotDeployable(flow.name);
        await deployments.assertFree(flow.id, data);
        const access = await studio.runAccess(userId, principal!.roles);
        checkDeploymentQuota(userId);
        // Held while the pipeline starts, so concurrent requests cannot all pass the quota check.
        const reservation = `pending:${randomUUID()}`;
        pending.set(reservation, userId);
        let deployed;
        try {
          deployed = await studio.flows.deploy(data, { flowId: flow.id, name: flow.name, access });
        } finally {
          pending.delete(reservation);
        }
        deployments.own(deployed.id, userId);
        const maxMinutes = studio.config.quotas.deploymentMaxMinutes;
        if (maxMinutes > 0) {
          const timer = setTimeout(() => {
            deployments.disown(deployed.id);
            void studio.flows.undeploy(deployed.id).catch((error) => studio.logger.warn('could not undeploy a pipeline past its time', { error: String(error) }));
          }, maxMinutes * 60_000);
          timer.unref();
        }
        return { body: await deployments.view(deployed) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/deployments/{id}',
      summary: 'One deployed pipeline',
      tags: ['deployments'],
      spec: false,
      access: 'viewer',
      params: DeploymentId,
      success: { status: 200, description: 'Deployment', A: JsonObject, B: JsonObject },
      errors: [404],
      handler: async ({ params, principal }) => ({ body: await deployments.get(principal!.userId, params.id) }),
    }),
    defineRoute({
      method: 'get',
      path: '/deployments/{id}/counters',
      summary: "A deployed pipeline's counters now",
      tags: ['deployments'],
      spec: false,
      access: 'viewer',
      params: DeploymentId,
      success: { status: 200, description: 'Counters', A: Counters, B: Counters },
      errors: [404],
      async handler({ params, principal }) {
        const view = await deployments.get(principal!.userId, params.id);
        return { body: { id: view.id, flow_id: view.flow_id, status: view.status, error: view.error, counters: view.counters, at: new Date().toISOString() } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/deployments/{id}',
      summary: 'Undeploy a pipeline',
      tags: ['deployments'],
      spec: false,
      access: 'operator',
      action: 'undeploy flows',
      params: DeploymentId,
      success: { status: 204, description: 'Undeployed', A: z.undefined(), B: z.undefined() },
      errors: [404, 409],
      async handler({ params, principal }) {
        const id = params.id as string;
        await deployments.get(principal!.userId, id);
        if (deployments.ownerOf(id) === undefined) throw StudioErrors.serverDeployment(id);
        await studio.flows.undeploy(id);
        deployments.disown(id);
        return { body: undefined };
      },
    }),
  ];

  const router = flowServiceRouter(studio, studioApi, { bodyLimit: '50mb' });
  // Server-sent events stay a bare handler: core's route kit answers one JSON value per request.
  const auth = requireUser(studio, () => studio.config.autoLogin);
  router.get('/deployments/:id/counters/stream', auth, async (req, res) => {
    const userId = principalOf(res).userId;
    const id = param(req, 'id');
    const first = await deployments.get(userId, id);
    const interval = parseWith(CountersQuery, req.query, 'query').interval_ms;
    const sse = openSse(res);
    let seq = 0;
    // An ended pipeline's counters no longer change: its last event (status stopped or failed,
    // with the error) is sent once; the stream then waits for the removal (`undeployed`).
    let ended = false;
    const tick = () => {
      const deployed = studio.flows.pipelines.get(id);
      if (!deployed) {
        sse.send('undeployed', { id }, ++seq);
        sse.close();
        clearInterval(timer);
        return;
      }
      if (ended) return;
      const status = statusOf(deployed);
      ended = status !== 'running';
      sse.send('counters', { id, flow_id: first.flow_id, status, error: failureOf(deployed), counters: deployed.pipeline.counters(), at: new Date().toISOString() }, ++seq);
    };
    const timer = setInterval(tick, interval);
    tick();
    res.on('close', () => clearInterval(timer));
  });

  return { studio: router, health: flowServiceRouter(studio, healthRoutes) };
}
