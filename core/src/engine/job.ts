import type { ServiceReader } from '../runtime/services.js';
import { randomUUID } from 'node:crypto';
import { CoreErrors } from '../errors.js';
import type { FileAccess } from '../security/file-access.js';
import type { CompiledFlow } from '../flows/compiler.js';
import type { RuntimeHooks } from '../hooks/hooks.js';
import type { Logger } from '../runtime/logger.js';
import type { JobRepository } from '../storage/storage.js';
import type { JobRecord, JobSummaryRecord } from '../storage/records.js';
import { JobLog } from './job-log.js';
import { toJobRecord } from './job-record.js';
import type { NodeCounters } from './node-runner.js';
import { Pipeline } from './pipeline.js';

/** JobStatus of the flow service models. */
export type JobStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'timed_out';

/** What to run and under which limits. */
export interface JobRequest {
  flow: CompiledFlow;
  inputs?: Record<string, unknown>;
  /** Milliseconds before the job is stopped as timed_out (default: the manager's). */
  timeoutMs?: number;
  flowId?: string;
  /** The flow's name, kept with the job (the flow may be renamed or deleted later). */
  flowName?: string;
  userId?: string;
  /** Free-form labels kept with the job (session id, source). */
  labels?: Record<string, string>;
  /** Where the job's nodes may open files (default: anywhere). */
  files?: FileAccess;
  /**
   * false: keep the job in memory only, never in storage (probes and per-request runs whose
   * answer carries the result: the flow service's health probe, `POST /pose/process`).
   * Default true.
   */
  stored?: boolean;
}

/** A job's public state. */
export interface JobSnapshot {
  id: string;
  status: JobStatus;
  flowId: string | null;
  flowName: string | null;
  userId: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  outputs: Record<string, unknown>;
  error: string | null;
  /** The error's code when known (`WIFLOW_JOB_TIMED_OUT`, `WIFLOW_JOB_INTERRUPTED`). */
  errorCode: string | null;
  labels: Record<string, string>;
}

/**
 * One job: a pipeline run in job mode with its log, outputs and status. A job read back from
 * storage (`Job.restore`) has ended: it has its stored log and outputs and no flow to run.
 */
export class Job {
  readonly id: string;
  readonly log: JobLog;
  readonly createdAt: number;
  /** What was asked, less the compiled flow (a restored job has none). */
  readonly request: Omit<JobRequest, 'flow'>;
  status: JobStatus = 'queued';
  startedAt: number | null = null;
  finishedAt: number | null = null;
  outputs: Record<string, unknown> = {};
  error: string | null = null;
  errorCode: string | null = null;
  pipeline: Pipeline | undefined;
  /** Events the stored copy this job was restored from had already left out. */
  eventsOmitted = 0;
  /** The runtime that ran it (set by the manager that stores it; kept from a stored record). */
  runnerId: string | null = null;
  readonly #flow: CompiledFlow | null;
  readonly #done: Promise<JobSnapshot>;
  #resolve!: (s: JobSnapshot) => void;
  #timer: NodeJS.Timeout | undefined;

  /** A new job, queued. */
  constructor(request: JobRequest);
  /** A job storage kept (see `Job.restore`). */
  constructor(request: Omit<JobRequest, 'flow'>, stored: JobRecord);
  constructor(request: Omit<JobRequest, 'flow'> & { flow?: CompiledFlow }, stored?: JobRecord) {
    const { flow, ...rest } = request;
    this.#flow = flow ?? null;
    this.request = rest;
    this.#done = new Promise((resolve) => (this.#resolve = resolve));
    if (!stored) {
      this.id = randomUUID();
      this.createdAt = Date.now();
      this.log = new JobLog();
      this.log.append('job_queued', { job_id: this.id });
      return;
    }
    this.id = stored.id;
    this.createdAt = stored.createdAt;
    this.log = JobLog.restore(stored.events, { open: stored.finishedAt === null });
    this.status = stored.status;
    this.startedAt = stored.startedAt;
    this.finishedAt = stored.finishedAt;
    this.outputs = { ...stored.outputs };
    this.error = stored.error;
    this.errorCode = stored.errorCode;
    this.eventsOmitted = stored.eventsOmitted;
    this.runnerId = stored.runnerId;
    if (this.finished) this.#resolve(this.snapshot());
  }

  /** A job as storage kept it: its log, outputs and status; it has no flow and never runs. */
  static restore(record: JobRecord): Job {
    const request = { flowId: record.flowId ?? undefined, flowName: record.flowName ?? undefined, userId: record.userId ?? undefined, labels: { ...record.labels } };
    return new Job(request, record);
  }

  /** Resolves with the final snapshot when the job ends. */
  get done(): Promise<JobSnapshot> {
    return this.#done;
  }

  get finished(): boolean {
    return this.finishedAt !== null;
  }

  /** Live node counters while running. */
  counters(): Record<string, NodeCounters> {
    return this.pipeline?.counters() ?? {};
  }

  snapshot(): JobSnapshot {
    return {
      id: this.id,
      status: this.status,
      flowId: this.request.flowId ?? null,
      flowName: this.request.flowName ?? null,
      userId: this.request.userId ?? null,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      outputs: this.outputs,
      error: this.error,
      errorCode: this.errorCode,
      labels: this.request.labels ?? {},
    };
  }

  /** The stored form of this job (bounded: see `JOB_RECORD_LIMITS`). */
  record(): JobRecord {
    return toJobRecord({ ...this.snapshot(), eventsOmitted: this.eventsOmitted, runnerId: this.runnerId, heartbeatAt: Date.now() }, this.log.since(0));
  }

  /** Start the pipeline (called by the manager when a slot is free). */
  async run(hooks: RuntimeHooks, services: ServiceReader, defaultTimeoutMs: number): Promise<void> {
    if (this.finished || !this.#flow) return;
    this.status = 'in_progress';
    this.startedAt = Date.now();
    this.log.append('job_started', { job_id: this.id, nodes: this.#flow.layers });
    const pipeline = new Pipeline(this.#flow, {
      runId: this.id,
      mode: 'job',
      hooks,
      services,
      inputs: this.request.inputs ?? {},
      files: this.request.files,
      onEvent: (e) => this.log.append(e.event, e.data),
      onOutput: (name, value, collect) => {
        if (collect === 'all') {
          const list = (this.outputs[name] as unknown[] | undefined) ?? [];
          list.push(value);
          this.outputs[name] = list;
        } else {
          this.outputs[name] = value;
        }
        this.log.append('output', { name, value });
      },
    });
    this.pipeline = pipeline;
    const timeoutMs = this.request.timeoutMs ?? defaultTimeoutMs;
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#timer = setTimeout(() => void this.#end('timed_out', CoreErrors.jobTimedOut(timeoutMs).message, CoreErrors.jobTimedOut.code), timeoutMs);
      this.#timer.unref();
    }
    await pipeline.start();
    const outcome = await pipeline.done;
    if (outcome.status === 'completed') await this.#end('completed', null);
    else if (outcome.status === 'failed') await this.#end('failed', outcome.error);
  }

  /** Cancel: a queued job ends at once, a running one stops its pipeline. */
  async cancel(reason = 'cancelled by request'): Promise<JobSnapshot> {
    await this.#end('cancelled', reason);
    return this.snapshot();
  }

  /**
   * End a job storage still had as queued or in progress when this process started: the process
   * that ran it died. It becomes `failed` with `WIFLOW_JOB_INTERRUPTED`, its log closed as a
   * live failure's would be.
   */
  interrupt(): void {
    if (this.finished) return;
    const error = CoreErrors.jobInterrupted(this.status);
    void this.#end('failed', error.message, error.code);
  }

  async #end(status: JobStatus, error: string | null, errorCode: string | null = null): Promise<void> {
    if (this.finished) return;
    this.finishedAt = Date.now();
    this.status = status;
    this.error = error;
    this.errorCode = errorCode;
    if (this.#timer) clearTimeout(this.#timer);
    if (status !== 'completed' && this.pipeline) void this.pipeline.stop(status, 0);
    this.log.append(status === 'completed' ? 'job_completed' : `job_${status}`, { job_id: this.id, status, error, ...(errorCode ? { code: errorCode } : {}), outputs: this.outputs });
    this.log.append('end', { status });
    this.log.close();
    this.#resolve(this.snapshot());
  }
}

/** A stored job's public state, as lists give it (no outputs: read the job for them). */
function snapshotOf(item: JobSummaryRecord): JobSnapshot {
  const { id, status, flowId, flowName, userId, createdAt, startedAt, finishedAt, error, errorCode, labels } = item;
  return { id, status, flowId, flowName, userId, createdAt, startedAt, finishedAt, outputs: {}, error, errorCode, labels };
}

/** Limits on how many jobs run at once. */
export interface JobLimits {
  /** Running jobs across the runtime. */
  maxConcurrent: number;
  /** Running jobs per user. */
  maxPerUser: number;
  /** Running jobs per flow. */
  maxPerFlow: number;
  /** Default timeout per job (ms). */
  defaultTimeoutMs: number;
  /** Finished jobs kept in memory for reading their logs. */
  keepFinished: number;
  /** Jobs kept in storage (the newest; older ones are deleted as new ones end). */
  keepStored: number;
  /**
   * While a job runs, its state and new events are stored this often (ms), so a process killed
   * mid-run leaves the events up to the last checkpoint; 0: only when queued, started and ended.
   */
  checkpointMs: number;
  /**
   * How long a job of another instance sharing the database may go unwritten (ms) before this
   * runtime ends it as interrupted: its instance is taken for gone. A runtime rewrites each of
   * its unfinished jobs at least every quarter of this.
   */
  leaseMs: number;
}

/** What `JobManager.attachStore` found: the stored jobs a dead process left unfinished, now failed. */
export interface JobStoreReport {
  interrupted: number;
  /** Unfinished jobs of other instances not written for a whole `leaseMs`, now failed. */
  vanished: number;
  /** Older jobs deleted to keep `keepStored`. */
  deleted: number;
}

/** Runs jobs under concurrency limits; jobs over a limit wait as `queued`. */
export class JobManager {
  readonly #jobs = new Map<string, Job>();
  readonly #queue: Job[] = [];
  readonly #running = new Set<Job>();
  /** The last write of each job still in flight (a job's writes are chained, so they land in order). */
  readonly #writes = new Map<string, Promise<void>>();
  /** When each unfinished job was last written, and its log's last sequence number then. */
  readonly #written = new Map<string, { at: number; seq: number }>();
  #timers: NodeJS.Timeout[] = [];
  #store: JobRepository | undefined;
  #runnerId: string | null = null;
  #logger: Logger | undefined;
  readonly limits: JobLimits;

  constructor(
    private readonly hooks: RuntimeHooks,
    private readonly services: ServiceReader,
    limits: Partial<JobLimits> = {},
  ) {
    this.limits = { maxConcurrent: 8, maxPerUser: 4, maxPerFlow: 4, defaultTimeoutMs: 300_000, keepFinished: 500, keepStored: 500, checkpointMs: 1000, leaseMs: 60_000, ...limits };
  }

  /** Queue a job and start it as soon as the limits allow. */
  submit(request: JobRequest): Job {
    const job = new Job(request);
    job.runnerId = this.#runnerId;
    this.#jobs.set(job.id, job);
    this.#queue.push(job);
    this.#save(job);
    void job.done.then(() => {
      this.#running.delete(job);
      const i = this.#queue.indexOf(job);
      if (i >= 0) this.#queue.splice(i, 1);
      this.#save(job, { retain: true });
      this.#written.delete(job.id);
      this.#prune();
      this.#pump();
    });
    this.#pump();
    return job;
  }

  /**
   * Keep jobs in `store` from now on (the runtime calls this once its storage is open): each job
   * is saved when queued, when started, every `checkpointMs` while it runs and its log grows,
   * and when it ends, and only the newest `keepStored` are
   * kept. `runnerId` names this runtime (stable across its restarts): its stored jobs still
   * queued or in progress were left by a process that died (this one has run none yet), so
   * they become `failed` with `WIFLOW_JOB_INTERRUPTED`. Other runtimes' jobs (a shared
   * database) are theirs to end.
   */
  async attachStore(store: JobRepository, options: { runnerId: string; logger?: Logger }): Promise<JobStoreReport> {
    this.#store = store;
    this.#runnerId = options.runnerId;
    this.#logger = options.logger;
    for (const job of this.#jobs.values()) job.runnerId ??= options.runnerId;
    let interrupted = 0;
    for (;;) {
      const page = await store.list({ statuses: ['queued', 'in_progress'], runnerId: options.runnerId }, { page: 1, perPage: 100 });
      const left = page.items.filter((item) => !this.#jobs.has(item.id));
      if (!left.length) break;
      for (const item of left) {
        const record = await store.get(item.id);
        if (!record) continue;
        const job = Job.restore(record);
        job.interrupt();
        await store.save(job.record());
        interrupted++;
      }
    }
    const vanished = await this.#endVanished();
    const deleted = await store.keepNewest(this.limits.keepStored);
    this.#startTimers();
    return { interrupted, vanished, deleted };
  }

  /** Stop the checkpoint and lease timers (the runtime stops). */
  detachTimers(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  /**
   * Every tick: store each running job whose log grew since its last write, once `checkpointMs`
   * passed (0: never), and rewrite every unfinished job not written for a quarter of `leaseMs`
   * (its heartbeat). Every `leaseMs`: end other instances' jobs whose lease ran out.
   */
  #startTimers(): void {
    this.detachTimers();
    const { checkpointMs, leaseMs } = this.limits;
    const beat = leaseMs / 4;
    const tickMs = Math.max(10, Math.min(checkpointMs > 0 ? checkpointMs : beat, beat));
    const tick = setInterval(() => {
      const now = Date.now();
      // Only the unfinished stored jobs (`#written`), not the finished ones the manager keeps.
      for (const [id, last] of this.#written) {
        const job = this.#jobs.get(id);
        if (!job || job.finished || this.#writes.has(id)) continue;
        // A period is due within half a tick of its end (ticks do not land exactly on it).
        const due = (periodMs: number) => now - last.at >= periodMs - tickMs / 2;
        const grew = checkpointMs > 0 && job.status === 'in_progress' && job.log.lastSeq !== last.seq && due(checkpointMs);
        if (grew || due(beat)) this.#save(job);
      }
    }, tickMs);
    const sweep = setInterval(() => {
      this.#endVanished().catch((error: unknown) => this.#logger?.warn('could not check other instances\' jobs', { error: String(error) }));
    }, leaseMs);
    for (const timer of [tick, sweep]) timer.unref();
    this.#timers = [tick, sweep];
  }

  /**
   * End, as interrupted, the unfinished jobs of other instances sharing the database that were not
   * written for a whole `leaseMs` (their instance is gone: a live one rewrites them every quarter
   * of it). Records of earlier versions carry no heartbeat: their start, else their creation, counts.
   */
  async #endVanished(): Promise<number> {
    const store = this.#store;
    if (!store) return 0;
    const now = Date.now();
    const stale: string[] = [];
    for (let page = 1; ; page++) {
      const found = await store.list({ statuses: ['queued', 'in_progress'] }, { page, perPage: 100 });
      for (const item of found.items) {
        if (item.runnerId === this.#runnerId || this.#jobs.has(item.id)) continue;
        const heard = item.heartbeatAt ?? item.startedAt ?? item.createdAt;
        if (now - heard >= this.limits.leaseMs) stale.push(item.id);
      }
      if (page * 100 >= found.total || found.items.length === 0) break;
    }
    let ended = 0;
    for (const id of stale) {
      const record = await store.get(id);
      const heard = record ? (record.heartbeatAt ?? record.startedAt ?? record.createdAt) : now;
      // Read again: the instance may have written it since the list.
      if (!record || (record.status !== 'queued' && record.status !== 'in_progress') || now - heard < this.limits.leaseMs) continue;
      const job = Job.restore(record);
      job.interrupt();
      await store.save(job.record());
      this.#logger?.warn('ended a job of an instance not heard of for a whole lease', { jobId: id, runnerId: record.runnerId, leaseMs: this.limits.leaseMs });
      ended++;
    }
    return ended;
  }

  /** A job this runtime holds, or null; `find` also reads storage. */
  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  /** A job by id: one this runtime holds, else one read back from storage (ended, read-only); undefined when neither has it. */
  async find(id: string): Promise<Job | undefined> {
    const live = this.#jobs.get(id);
    if (live || !this.#store) return live;
    const record = await this.#store.get(id);
    return record ? Job.restore(record) : undefined;
  }

  /**
   * The newest `limit` jobs (of a user, of a flow): those this runtime holds and those in
   * storage (earlier runs, before restarts), newest first, as snapshots.
   */
  async history(filter: { userId?: string; flowId?: string }, limit: number): Promise<JobSnapshot[]> {
    const byId = new Map<string, JobSnapshot>();
    if (this.#store) {
      const stored = await this.#store.list({ userId: filter.userId, flowId: filter.flowId }, { page: 1, perPage: limit });
      for (const item of stored.items) byId.set(item.id, snapshotOf(item));
    }
    // What this runtime holds is newer than what it last wrote.
    for (const job of this.list(filter).slice(0, limit)) byId.set(job.id, job.snapshot());
    return [...byId.values()].sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
  }

  /** Resolves when every job write started so far has landed (before storage closes). */
  async settled(): Promise<void> {
    while (this.#writes.size) await Promise.all(this.#writes.values());
  }

  /** Cancel a job by id; unknown ids are an error. */
  async cancel(id: string): Promise<JobSnapshot> {
    const job = this.#jobs.get(id);
    if (!job) throw CoreErrors.jobNotFound(id);
    return job.cancel();
  }

  /** The jobs this runtime still keeps (the last `keepFinished` finished ones and every active one), newest first. */
  list(filter: { userId?: string; flowId?: string } = {}): Job[] {
    const out: Job[] = [];
    for (const job of this.#jobs.values()) {
      if (filter.userId !== undefined && job.request.userId !== filter.userId) continue;
      if (filter.flowId !== undefined && job.request.flowId !== filter.flowId) continue;
      out.push(job);
    }
    return out.reverse();
  }

  /** Jobs not yet finished. */
  active(): Job[] {
    return [...this.#jobs.values()].filter((j) => !j.finished);
  }

  /** Cancel everything (runtime shutdown). */
  async cancelAll(reason: string): Promise<void> {
    await Promise.all(this.active().map((j) => j.cancel(reason)));
  }

  #pump(): void {
    for (let i = 0; i < this.#queue.length && this.#running.size < this.limits.maxConcurrent; ) {
      const job = this.#queue[i];
      if (job.finished) {
        this.#queue.splice(i, 1);
        continue;
      }
      const user = job.request.userId;
      const flow = job.request.flowId;
      const userRunning = user ? [...this.#running].filter((j) => j.request.userId === user).length : 0;
      const flowRunning = flow ? [...this.#running].filter((j) => j.request.flowId === flow).length : 0;
      if ((user && userRunning >= this.limits.maxPerUser) || (flow && flowRunning >= this.limits.maxPerFlow)) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      this.#running.add(job);
      void job.run(this.hooks, this.services, this.limits.defaultTimeoutMs).catch((error) => job.cancel(String(error)));
      // run() marks the job in_progress before its first await.
      if (!job.finished) this.#save(job);
    }
  }

  /** Write a job's current state after its earlier writes; `retain`: then delete jobs beyond `keepStored`. */
  #save(job: Job, options: { retain?: boolean } = {}): void {
    const store = this.#store;
    if (!store || job.request.stored === false) return;
    const record = job.record();
    if (!job.finished) this.#written.set(job.id, { at: Date.now(), seq: job.log.lastSeq });
    const previous = this.#writes.get(job.id) ?? Promise.resolve();
    const write = previous
      .then(() => store.save(record))
      .then(async () => {
        if (options.retain) await store.keepNewest(this.limits.keepStored);
      })
      .catch((error: unknown) => this.#logger?.warn('could not store a job', { jobId: job.id, error: String(error) }))
      .finally(() => {
        if (this.#writes.get(job.id) === write) this.#writes.delete(job.id);
      });
    this.#writes.set(job.id, write);
  }

  #prune(): void {
    const finished = [...this.#jobs.values()].filter((j) => j.finished);
    for (let i = 0; i < finished.length - this.limits.keepFinished; i++) this.#jobs.delete(finished[i].id);
  }
}
