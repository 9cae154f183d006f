import { param } from '../http/params.js';
import express, { Router, type Request, type Response } from 'express';
import { flowInterface, type FlowRecord, type Principal } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { authenticate, principalOf, requireUser } from '../http/auth.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import type { FlowRunner, RunRequest } from './flow-runner.js';
import { ExperimentalRunBodySchema, SimplifiedAPIRequestSchema } from './run-model.js';
import { framingOf, streamRuns } from './run-stream.js';

const FAILURE_STATUS: Record<string, number> = { failed: 500, timed_out: 504, cancelled: 499 };

/** `/api/v1/run` (simplified, advanced) and `/api/v1/webhook`. */
export function runRoutes(studio: StudioContext, runner: FlowRunner): { run: Router; webhook: Router } {
  const run = Router();
  const webhook = Router();
  const json = jsonBody('50mb');
  const auth = requireUser(studio, () => studio.config.autoLogin);

  /** Run each request one after the other and answer with RunResponse, or stream their events in the framing the request asks for. */
  async function execute(req: Request, res: Response, requests: RunRequest[], outputs: string[] | null | undefined, stream: boolean): Promise<void> {
    const results: Record<string, unknown>[] = [];
    let sessionId: string | null = null;
    if (!stream) {
      for (const request of requests) {
        const started = await runner.start(request);
        res.setHeader('X-Job-Id', started.job.id);
        await runner.recordInput(started);
        const onClose = () => void (!started.job.finished && started.job.cancel('client disconnected'));
        res.on('close', onClose);
        const { snapshot, runOutputs } = await runner.result(started, outputs);
        res.off('close', onClose);
        sessionId = started.sessionId;
        if (snapshot.status !== 'completed') {
          res.status(FAILURE_STATUS[snapshot.status] ?? 500).json({ detail: snapshot.error ?? snapshot.status, status: snapshot.status, job_id: snapshot.id, code: `WIFLOW_JOB_${snapshot.status.toUpperCase()}` });
          return;
        }
        results.push({ ...runOutputs, job_id: snapshot.id });
      }
      res.json({ outputs: results, session_id: sessionId });
      return;
    }
    await streamRuns(res, runner, requests, outputs, framingOf(req));
  }

  run.post('/advanced/:flow', auth, ...json, async (req, res) => {
    const principal = principalOf(res);
    const flow = await studio.flowByIdOrName(principal.userId, param(req, 'flow'));
    const body = parseWith(ExperimentalRunBodySchema, req.body ?? {}, 'body');
    const inputs = body.inputs?.length ? body.inputs : [null];
    const requests: RunRequest[] = inputs.map((inputRequest) => ({ userId: principal.userId, ownerRoles: principal.roles, flow, inputRequest, tweaks: body.tweaks, sessionId: body.session_id, source: 'run' }));
    await execute(req, res, requests, body.outputs, body.stream);
  });

  run.post('/:flow', auth, ...json, async (req, res) => {
    const principal = principalOf(res);
    const flow = await studio.flowByIdOrName(principal.userId, param(req, 'flow'));
    const raw = (req.body ?? {}) as Record<string, unknown>;
    const body = parseWith(SimplifiedAPIRequestSchema, raw.input_request && typeof raw.input_request === 'object' ? raw.input_request : raw, raw.input_request ? 'body.input_request' : 'body');
    const stream = req.query.stream === 'true' || req.query.stream === '1' || raw.stream === true;
    const request: RunRequest = {
      userId: principal.userId,
      ownerRoles: principal.roles,
      flow,
      inputRequest: body.input_value != null ? { input_value: body.input_value, components: [], type: body.input_type ?? 'chat' } : null,
      named: body.inputs,
      tweaks: body.tweaks,
      sessionId: body.session_id,
      timeoutMs: body.timeout_ms,
      source: 'run',
    };
    const outputs = body.output_component ? [body.output_component] : null;
    await execute(req, res, [request], outputs, stream);
  });

  /** Who calls a webhook (anyone, unless `webhookAuthEnable`), found before the body is read. */
  const webhookCaller = async (req: Request, res: Response, next: express.NextFunction) => {
    const principal = await authenticate(studio, req, studio.config.autoLogin);
    if (studio.config.webhookAuthEnable && !principal) throw StudioErrors.unauthenticated();
    res.locals.principal = principal;
    next();
  };

  webhook.post('/:flow', webhookCaller, ...jsonBody('10mb'), express.text({ type: ['text/*'], limit: '10mb' }), async (req, res) => {
    const principal = res.locals.principal as Principal | undefined;
    let flow: FlowRecord;
    if (principal) flow = await studio.flowByIdOrName(principal.userId, param(req, 'flow'));
    else flow = await studio.flowByIdOrName(null, param(req, 'flow'));
    if (studio.config.webhookAuthEnable && flow.userId !== principal?.userId) throw StudioErrors.flowNotFound(param(req, 'flow'));
    if (!flow.webhook) throw StudioErrors.webhookDisabled(flow.id);
    if (!flow.userId) throw StudioErrors.flowNotFound(param(req, 'flow'));
    const declared = flowInterface(flow.data).inputs;
    const payload: unknown = req.body;
    const named: Record<string, unknown> = {};
    if (declared.some((d) => d.name === 'payload')) named.payload = payload;
    else if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
      for (const d of declared) if (d.name in (payload as object)) named[d.name] = (payload as Record<string, unknown>)[d.name];
    } else if (declared.length === 1 && payload !== undefined) named[declared[0].name] = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const started = await runner.start({ userId: flow.userId, flow, named, source: 'webhook' });
    void runner.result(started).catch((error) => studio.logger.warn('webhook run result failed', { error: String(error) }));
    res.status(202).json({ message: 'Task started in the background', status: 'in progress', job_id: started.job.id });
  });

  return { run, webhook };
}
