import { randomUUID } from 'node:crypto';
import { param } from '../http/params.js';
import express, { Router, type Request } from 'express';
import { flowIoSchemas, type FlowData } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { requireRole } from '../http/roles.js';
import { openSse } from '../http/sse.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import { asFlowData, validateFlowData } from '../flows/flow-data.js';
import { FlowDataRequestSchema } from '../jobs/run-model.js';
import type { FlowService } from '../flows/flow-service.js';
import { Deployments } from './deployments.js';

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
    const job = await studio.runtime.runJob(data, { inputs: { value: probe }, timeoutMs: 5000, labels: { source: 'health' } });
    const result = await job.done;
    if (result.status !== 'completed' || result.outputs.value !== probe) chat = `error: engine probe ${result.status}${result.error ? `: ${result.error}` : ''}`;
  } catch (error) {
    chat = `error: ${(error as Error).message}`;
  }
  return { db, chat };
}

/** `/api/v1/studio`: config, node types, validation, deployments with live counters; plus `/health` and `/health_check`. */
export function studioRoutes(studio: StudioContext, flows: FlowService): { studio: Router; health: Router } {
  const router = Router();
  const health = Router();
  const json = jsonBody('50mb');
  const auth = requireUser(studio.runtime, () => studio.config.autoLogin);
  const deployments = new Deployments(studio, flows);
  /** Deployments being started, by reservation id: their owner. */
  const pending = new Map<string, string>();

  health.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  health.get('/health_check', async (_req, res) => {
    const { db, chat } = await healthChecks(studio);
    const ok = db === 'ok' && chat === 'ok';
    const body = { status: ok ? 'ok' : 'nok', db, chat };
    if (ok) res.json(body);
    else res.status(500).json({ detail: body });
  });

  router.get('/config', (req, res) => {
    res.json(configResponse(studio, req));
  });

  router.get('/node-types', auth, (_req, res) => {
    res.json(studio.runtime.registry.describe());
  });

  router.post('/validate', auth, ...json, (req, res) => {
    const body = parseWith(z.object({ data: FlowDataRequestSchema }), req.body, 'body');
    const data = body.data as unknown as Record<string, unknown>;
    const validity = validateFlowData(studio.runtime, data);
    res.json({ ...validity, io: flowIoSchemas(asFlowData(data)) });
  });

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

  router.get('/deployments', auth, async (req, res) => {
    const { flow_id: flowId } = parseWith(z.object({ flow_id: z.guid().optional() }), req.query, 'query');
    const list = await deployments.list(principalOf(res).userId);
    res.json(flowId ? list.filter((view) => view.flow_id === flowId) : list);
  });

  router.post('/deployments', auth, requireRole('operator', 'deploy flows'), ...json, async (req, res) => {
    const principal = principalOf(res);
    const userId = principal.userId;
    const body = parseWith(z.object({ flow_id: z.guid() }), req.body, 'body');
    const flow = await studio.ownedFlow(userId, body.flow_id);
    const validity = validateFlowData(studio.runtime, flow.data);
    if (!validity.valid) {
      const error = StudioErrors.invalidFlow(validity.problems.length);
      Object.assign(error, { details: { problems: validity.problems } });
      throw error;
    }
    const data = asFlowData(flow.data);
    await deployments.assertFree(flow.id, data);
    const access = await studio.runAccess(userId, principal.roles);
    checkDeploymentQuota(userId);
    // Held while the pipeline starts, so concurrent requests cannot all pass the quota check.
    const reservation = `pending:${randomUUID()}`;
    pending.set(reservation, userId);
    let deployed;
    try {
      deployed = await studio.runtime.deploy(data, { flowId: flow.id, name: flow.name, access });
    } finally {
      pending.delete(reservation);
    }
    deployments.own(deployed.id, userId);
    const maxMinutes = studio.config.quotas.deploymentMaxMinutes;
    if (maxMinutes > 0) {
      const timer = setTimeout(() => {
        deployments.disown(deployed.id);
        void studio.runtime.undeploy(deployed.id).catch((error) => studio.runtime.logger.warn('could not undeploy a pipeline past its time', { error: String(error) }));
      }, maxMinutes * 60_000);
      timer.unref();
    }
    res.status(201).json(await deployments.view(deployed));
  });

  router.get('/deployments/:id', auth, async (req, res) => {
    res.json(await deployments.get(principalOf(res).userId, param(req, 'id')));
  });

  router.get('/deployments/:id/counters', auth, async (req, res) => {
    const view = await deployments.get(principalOf(res).userId, param(req, 'id'));
    res.json({ id: view.id, flow_id: view.flow_id, counters: view.counters, at: new Date().toISOString() });
  });

  router.get('/deployments/:id/counters/stream', auth, async (req, res) => {
    const userId = principalOf(res).userId;
    const id = param(req, 'id');
    const first = await deployments.get(userId, id);
    const interval = parseWith(z.object({ interval_ms: z.coerce.number().int().min(100).max(60_000).default(1000) }), req.query, 'query').interval_ms;
    const sse = openSse(res);
    let seq = 0;
    const tick = () => {
      const deployed = studio.runtime.pipelines.get(id);
      if (!deployed) {
        sse.send('undeployed', { id }, ++seq);
        sse.close();
        clearInterval(timer);
        return;
      }
      sse.send('counters', { id, flow_id: first.flow_id, counters: deployed.pipeline.counters(), at: new Date().toISOString() }, ++seq);
    };
    const timer = setInterval(tick, interval);
    tick();
    res.on('close', () => clearInterval(timer));
  });

  router.delete('/deployments/:id', auth, requireRole('operator', 'undeploy flows'), async (req, res) => {
    const id = param(req, 'id');
    await deployments.get(principalOf(res).userId, id);
    if (deployments.ownerOf(id) === undefined) throw StudioErrors.serverDeployment(id);
    await studio.runtime.undeploy(id);
    deployments.disown(id);
    res.status(204).end();
  });

  return { studio: router, health };
}
