import { Router } from 'express';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { principalOf, requireUser } from '../http/auth.js';
import { parseWith } from '../http/validation.js';

/** Query of GET /api/v1/studio/jobs. */
const JobListQuery = z.object({
  flow_id: z.guid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/**
 * `GET /api/v1/studio/jobs`: the caller's recent jobs, newest first (`?flow_id=` for one flow).
 * The runtime keeps jobs in memory (every active job and the last 500 finished ones), so the list
 * starts empty after a restart; outputs are left out (read them from the job's events).
 */
export function jobListRoutes(studio: StudioContext): Router {
  const router = Router();
  const auth = requireUser(studio.runtime, () => studio.config.autoLogin);
  router.get('/jobs', auth, (req, res) => {
    const query = parseWith(JobListQuery, req.query, 'query');
    const jobs = studio.runtime.jobs.list({ userId: principalOf(res).userId, flowId: query.flow_id }).slice(0, query.limit);
    res.json(
      jobs.map((job) => {
        const s = job.snapshot();
        const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
        return { job_id: s.id, flow_id: s.flowId, status: s.status, source: s.labels.source ?? null, created_at: iso(s.createdAt), started_at: iso(s.startedAt), finished_at: iso(s.finishedAt), error: s.error };
      }),
    );
  });
  return router;
}
