import type { Document } from 'mongodb';
import type { JobQuery, JobRecord, JobRepository, JobSummaryRecord, Page, PageRequest } from '@wiflow/core';
import { checkJobQuery, checkJobRecord, checkKeepCount, checkPageRequest, makePage } from '@wiflow/storage-kit';
import { userKey, type MongoContext } from '../context.js';

/**
 * Jobs (collection `jobs`, _id = job id): the queried fields beside the summary (`body`) and
 * the outputs and log (`detail`, read only by `get`, left out of list reads), both sealed like
 * messages. `seq` (reserved on first save) is the tie-break of `createdAt`; replacing a job
 * keeps it, and so its place.
 */
export class MongoJobRepository implements JobRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #jobs() {
    return this.#ctx.db.collection('jobs');
  }

  async save(input: JobRecord): Promise<void> {
    this.#ctx.ensureOpen();
    const { outputs, events, ...job } = checkJobRecord(input);
    const fields = { userKey: userKey(job.userId), flowId: job.flowId, runnerId: job.runnerId, status: job.status, createdAt: job.createdAt, body: this.#ctx.sealBody(job), detail: this.#ctx.sealBody({ outputs, events }) };
    const updated = await this.#jobs.updateOne({ _id: job.id as never }, { $set: fields });
    if (updated.matchedCount > 0) return;
    const seq = await this.#ctx.reserveSeq('jobs', 1);
    // Two first saves of one id race: the loser's upsert finds the winner's document and only sets the fields.
    await this.#jobs.updateOne({ _id: job.id as never }, { $set: fields, $setOnInsert: { seq } }, { upsert: true });
  }

  async get(id: string): Promise<JobRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#jobs.findOne({ _id: id as never });
    return doc ? { ...this.#ctx.openBody<JobSummaryRecord>(doc.body), ...this.#ctx.openBody<Pick<JobRecord, 'outputs' | 'events'>>(doc.detail) } : null;
  }

  async list(query: JobQuery, paging: PageRequest): Promise<Page<JobSummaryRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    checkJobQuery(query);
    const filter: Document = {};
    if (query.userId !== undefined) filter.userKey = userKey(query.userId);
    if (query.flowId !== undefined) filter.flowId = query.flowId;
    if (query.runnerId !== undefined) filter.runnerId = query.runnerId;
    if (query.statuses?.length) filter.status = { $in: query.statuses };
    const [total, docs] = await Promise.all([
      this.#jobs.countDocuments(filter),
      this.#jobs.find(filter, { projection: { detail: 0 } }).sort({ createdAt: -1, seq: -1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => this.#ctx.openBody<JobSummaryRecord>(d.body)), total, paging);
  }

  async keepNewest(keep: number): Promise<number> {
    this.#ctx.ensureOpen();
    checkKeepCount(keep);
    const old = await this.#jobs.find({}, { projection: { _id: 1 } }).sort({ createdAt: -1, seq: -1 }).skip(keep).toArray();
    if (!old.length) return 0;
    return (await this.#jobs.deleteMany({ _id: { $in: old.map((d) => d._id) } })).deletedCount;
  }
}
