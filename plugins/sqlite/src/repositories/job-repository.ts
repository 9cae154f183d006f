import type { JobQuery, JobRecord, JobRepository, JobSummaryRecord, Page, PageRequest } from '@wiflow/core';
import { checkJobQuery, checkJobRecord, checkKeepCount, checkPageRequest, makePage } from '@wiflow/storage-kit';
import { userKey, type SqliteContext } from '../context.js';
import { SqlWhere } from '../sql-where.js';

/**
 * Jobs (table `jobs`): the queried fields as columns, the summary (`body`) apart from the
 * outputs and log (`detail`, read only by `get`), both sealed like messages
 * (`privacy.enableEncryption`). `seq` is the order of first save, the tie-break of `created_at`;
 * replacing a job keeps its row and so its place.
 */
export class SqliteJobRepository implements JobRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async save(input: JobRecord): Promise<void> {
    this.#ctx.ensureOpen();
    const { outputs, events, ...summary } = checkJobRecord(input);
    const job = summary;
    this.#ctx.db
      .prepare(
        `INSERT INTO jobs (id, user_id, flow_id, runner_id, status, created_at, body, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, flow_id = excluded.flow_id, runner_id = excluded.runner_id, status = excluded.status, created_at = excluded.created_at, body = excluded.body, detail = excluded.detail`,
      )
      .run(job.id, userKey(job.userId), job.flowId, job.runnerId, job.status, job.createdAt, this.#ctx.sealBody(job), this.#ctx.sealBody({ outputs, events }));
  }

  async get(id: string): Promise<JobRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body, detail FROM jobs WHERE id = ?').get(id) as { body: string; detail: string } | undefined;
    return row ? { ...this.#ctx.openBody<JobSummaryRecord>(row.body), ...this.#ctx.openBody<Pick<JobRecord, 'outputs' | 'events'>>(row.detail) } : null;
  }

  async list(query: JobQuery, paging: PageRequest): Promise<Page<JobSummaryRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    checkJobQuery(query);
    const where = new SqlWhere();
    if (query.userId !== undefined) where.add('user_id = ?', userKey(query.userId));
    if (query.flowId !== undefined) where.add('flow_id = ?', query.flowId);
    if (query.runnerId !== undefined) where.add('runner_id = ?', query.runnerId);
    where.in('status', query.statuses);
    const total = (this.#ctx.db.prepare(`SELECT COUNT(*) AS n FROM jobs ${where.sql}`).get(...where.params) as { n: number }).n;
    const rows = this.#ctx.db
      .prepare(`SELECT body FROM jobs ${where.sql} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => this.#ctx.openBody<JobSummaryRecord>(r.body)), total, paging);
  }

  async keepNewest(keep: number): Promise<number> {
    this.#ctx.ensureOpen();
    checkKeepCount(keep);
    return this.#ctx.db.prepare('DELETE FROM jobs WHERE seq NOT IN (SELECT seq FROM jobs ORDER BY created_at DESC, seq DESC LIMIT ?)').run(keep).changes;
  }
}
