import { param } from '../http/params.js';
import express, { Router, type Response } from 'express';
import { z } from 'zod';
import type { Job, Principal } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { authenticate, principalOf, requireUser } from '../http/auth.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import type { FlowRunner, StartedRun } from './flow-runner.js';
import { resumeSeq, streamJobNdjson, streamJobSse, toWireEvent } from './job-events.js';
import { BuildFlowBodySchema, BuildPublicBodySchema } from './run-model.js';

const DeliveryQuery = z.object({
  event_delivery: z.enum(['polling', 'streaming', 'direct']).optional(),
  start_component_id: z.string().optional(),
  stop_component_id: z.string().optional(),
  timeout_ms: z.coerce.number().int().positive().optional(),
});

/** `/api/v1/build` and `/api/v1/build_public_tmp`: start a build job, read its event log (polling, SSE, direct), cancel it. */
export function buildRoutes(studio: StudioContext, runner: FlowRunner): { build: Router; publicBuild: Router } {
  const build = Router();
  const publicBuild = Router();
  const json = jsonBody('50mb');
  const auth = requireUser(studio, () => studio.config.autoLogin);
  /** Polling cursor per job: polling without `since` drains what was not yet delivered (Langflow's queue semantics). */
  const pollCursor = new Map<string, number>();

  function settle(run: StartedRun): void {
    void runner.result(run).catch((error) => studio.logger.warn('could not store run messages', { error: String(error) }));
    void run.job.done.then(() => setTimeout(() => pollCursor.delete(run.job.id), 10 * 60_000).unref());
  }

  function answer(res: Response, req: express.Request, run: StartedRun, delivery: string): void {
    res.setHeader('X-Job-Id', run.job.id);
    if (delivery === 'direct') streamJobNdjson(req, res, run.job, 0, { event: 'job_id', data: { job_id: run.job.id } });
    else res.json({ job_id: run.job.id });
  }

  /** The job if the caller may see it: its owner, or anyone for public builds. */
  async function visibleJob(req: express.Request, id: string): Promise<Job> {
    const job = await studio.flows.jobs.find(id);
    if (!job) throw StudioErrors.jobNotFound(id);
    if (job.request.labels?.source === 'public') return job;
    const principal: Principal | undefined = await authenticate(studio, req, studio.config.autoLogin);
    if (!principal) throw StudioErrors.unauthenticated();
    if (job.request.userId !== principal.userId) throw StudioErrors.jobNotFound(id);
    return job;
  }

  build.post('/:flow_id/flow', auth, ...json, async (req, res) => {
    const principal = principalOf(res);
    const flow = await studio.ownedFlow(principal.userId, param(req, 'flow_id'));
    const query = parseWith(DeliveryQuery, req.query, 'query');
    const body = parseWith(BuildFlowBodySchema, req.body ?? {}, 'body');
    const run = await runner.start({
      userId: principal.userId,
      ownerRoles: principal.roles,
      flow,
      data: (body.data as Record<string, unknown> | null | undefined) ?? null,
      inputRequest: body.inputs,
      files: body.files,
      timeoutMs: query.timeout_ms,
      source: 'build',
    });
    await runner.recordInput(run);
    settle(run);
    answer(res, req, run, query.event_delivery ?? studio.config.eventDelivery);
  });

  build.get('/:job_id/events', async (req, res) => {
    const job = await visibleJob(req, param(req, 'job_id'));
    const delivery = parseWith(DeliveryQuery, req.query, 'query').event_delivery ?? studio.config.eventDelivery;
    const resume = resumeSeq(req);
    if (delivery === 'streaming') {
      streamJobSse(req, res, job, resume ?? 0);
      return;
    }
    if (delivery === 'direct') {
      streamJobNdjson(req, res, job, resume ?? 0);
      return;
    }
    const after = resume ?? pollCursor.get(job.id) ?? 0;
    const events = job.log.since(after);
    if (events.length) pollCursor.set(job.id, events[events.length - 1].seq);
    res.setHeader('Content-Type', 'application/x-ndjson');
    res.send(events.map((e) => `${JSON.stringify(toWireEvent(e))}\n`).join(''));
  });

  build.post('/:job_id/cancel', async (req, res) => {
    const job = await visibleJob(req, param(req, 'job_id'));
    if (job.finished) {
      res.json({ success: false, message: `Job ${job.id} already ended with status ${job.status}` });
      return;
    }
    await job.cancel('cancelled by request');
    res.json({ success: true, message: 'Flow build cancelled successfully' });
  });

  publicBuild.post('/:flow_id/flow', ...json, async (req, res) => {
    const flow = await studio.storage.flows.get(param(req, 'flow_id')).catch(() => null);
    if (!flow) throw StudioErrors.flowNotFound(param(req, 'flow_id'));
    if (flow.accessType !== 'PUBLIC' || !flow.userId) throw StudioErrors.notPublic(flow.id);
    const query = parseWith(DeliveryQuery, req.query, 'query');
    const body = parseWith(BuildPublicBodySchema, req.body ?? {}, 'body');
    const run = await runner.start({ userId: flow.userId, flow, inputRequest: body.inputs, files: body.files, timeoutMs: query.timeout_ms, source: 'public', filesOfFlowOnly: true });
    await runner.recordInput(run);
    settle(run);
    answer(res, req, run, query.event_delivery ?? studio.config.eventDelivery);
  });

  return { build, publicBuild };
}
