import type { ServiceReader } from '../runtime/services.js';
import { randomUUID } from 'node:crypto';
import { CoreErrors } from '../errors.js';
import type { FileAccess } from '../security/file-access.js';
import type { CompiledFlow } from '../flows/compiler.js';
import type { RuntimeHooks } from '../hooks/hooks.js';
import { JobLog } from './job-log.js';
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
  userId?: string;
  /** Free-form labels kept with the job (session id, source). */
  labels?: Record<string, string>;
  /** Where the job's nodes may open files (default: anywhere). */
  files?: FileAccess;
}

/** A job's public state. */
export interface JobSnapshot {
  id: string;
  status: JobStatus;
  flowId: string | null;
  userId: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  outputs: Record<string, unknown>;
  error: string | null;
  labels: Record<string, string>;
}

/** One job: a pipeline run in job mode with its log, outputs and status. */
export class Job {
  readonly id = randomUUID();
  readonly log = new JobLog();
  readonly createdAt = Date.now();
  status: JobStatus = 'queued';
  startedAt: number | null = null;
  finishedAt: number | null = null;
  outputs: Record<string, unknown> = {};
  error: string | null = null;
  pipeline: Pipeline | undefined;
  readonly #done: Promise<JobSnapshot>;
  #resolve!: (s: JobSnapshot) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly request: JobRequest) {
    this.#done = new Promise((resolve) => (this.#resolve = resolve));
    this.log.append('job_queued', { job_id: this.id });
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
      userId: this.request.userId ?? null,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      outputs: this.outputs,
      error: this.error,
      labels: this.request.labels ?? {},
    };
  }

  /** Start the pipeline (called by the manager when a slot is free). */
  async run(hooks: RuntimeHooks, services: ServiceReader, defaultTimeoutMs: number): Promise<void> {
    if (this.finished) return;
    this.status = 'in_progress';
    this.startedAt = Date.now();
    this.log.append('job_started', { job_id: this.id, nodes: this.request.flow.layers });
    const pipeline = new Pipeline(this.request.flow, {
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
      this.#timer = setTimeout(() => void this.#end('timed_out', CoreErrors.jobTimedOut(timeoutMs).message), timeoutMs);
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

  async #end(status: JobStatus, error: string | null): Promise<void> {
    if (this.finished) return;
    this.finishedAt = Date.now();
    this.status = status;
    this.error = error;
    if (this.#timer) clearTimeout(this.#timer);
    if (status !== 'completed' && this.pipeline) void this.pipeline.stop(status, 0);
    this.log.append(status === 'completed' ? 'job_completed' : `job_${status}`, { job_id: this.id, status, error, outputs: this.outputs });
    this.log.append('end', { status });
    this.log.close();
    this.#resolve(this.snapshot());
  }
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
  /** Finished jobs kept for reading their logs. */
  keepFinished: number;
}

/** Runs jobs under concurrency limits; jobs over a limit wait as `queued`. */
export class JobManager {
  readonly #jobs = new Map<string, Job>();
  readonly #queue: Job[] = [];
  readonly #running = new Set<Job>();
  readonly limits: JobLimits;

  constructor(
    private readonly hooks: RuntimeHooks,
    private readonly services: ServiceReader,
    limits: Partial<JobLimits> = {},
  ) {
    this.limits = { maxConcurrent: 8, maxPerUser: 4, maxPerFlow: 4, defaultTimeoutMs: 300_000, keepFinished: 500, ...limits };
  }

  /** Queue a job and start it as soon as the limits allow. */
  submit(request: JobRequest): Job {
    const job = new Job(request);
    this.#jobs.set(job.id, job);
    this.#queue.push(job);
    void job.done.then(() => {
      this.#running.delete(job);
      const i = this.#queue.indexOf(job);
      if (i >= 0) this.#queue.splice(i, 1);
      this.#prune();
      this.#pump();
    });
    this.#pump();
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
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
    }
  }

  #prune(): void {
    const finished = [...this.#jobs.values()].filter((j) => j.finished);
    for (let i = 0; i < finished.length - this.limits.keepFinished; i++) this.#jobs.delete(finished[i].id);
  }
}
