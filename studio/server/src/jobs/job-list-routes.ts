import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { flowServiceRouter } from '../http/route-kit.js';

/** Query of GET /api/v1/studio/jobs. */
const JobListQuery = z.object({
  flow_id: z.guid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** One job of the list. */
const JobSummary = z.object({
  job_id: z.string(),
  flow_id: z.string().nullable(),
  /** The flow's name when the job ran (kept if the flow is renamed or deleted). */
  flow_name: z.string().nullable(),
  status: z.string(),
  source: z.string().nullable(),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
  /** The error's code when known, e.g. WIFLOW_JOB_INTERRUPTED (the server stopped mid-job). */
  error_code: z.string().nullable(),
});

/**
 * `GET /api/v1/studio/jobs`: the caller's recent jobs, newest first (`?flow_id=` for one flow):
 * the runtime's and the stored ones (`jobs.keepStored`, so the list survives a restart); outputs
 * are left out (read them from the job's events).
 */
export function jobListRoutes(studio: StudioContext): Router {
  const list = defineRoute({
    method: 'get',
    path: '/jobs',
    summary: "The caller's recent jobs, newest first",
    tags: ['jobs'],
    spec: false,
    access: 'viewer',
    query: JobListQuery,
    success: { status: 200, description: 'Jobs', A: z.array(JobSummary), B: z.array(JobSummary) },
    errors: [422],
    async handler({ query, principal }) {
      const { flow_id: flowId, limit } = query as z.output<typeof JobListQuery>;
      const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
      const jobs = await studio.flows.jobs.history({ userId: principal!.userId, flowId }, limit);
      return {
        body: jobs.map((s) => ({
          job_id: s.id,
          flow_id: s.flowId,
          flow_name: s.flowName,
          status: s.status,
          source: s.labels.source ?? null,
          created_at: iso(s.createdAt),
          started_at: iso(s.startedAt),
          finished_at: iso(s.finishedAt),
          error: s.error,
          error_code: s.errorCode,
        })),
      };
    },
  });
  return flowServiceRouter(studio, [list]);
}
