import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { portTypes, type DeployedPipeline, type FlowData, type NodeCounters, type PortSpec } from '@wiflow/core';
import type { PoseApiHost } from '../host.js';
import type { ApiConfig } from '../config.js';
import { ApiErrors, ApiError } from '../errors.js';
import type { PoseHub } from '../hub/pose-hub.js';

/** States of the system (spec section 3; 'stopped' is the spec's "not running"). */
export type SystemState = 'stopped' | 'starting' | 'running' | 'stopping' | 'restarting';

/** The pipeline's id in the runtime. */
export const PIPELINE_ID = 'pose-api:system';

/** Which part of the pipeline a node belongs to, by its node type's category and id. */
export type ComponentRole = 'csi' | 'model' | 'tracker' | 'analytics' | 'publish' | 'other';

/** A node of the running pipeline with its live counters. */
export interface ComponentNode {
  id: string;
  type: string;
  role: ComponentRole;
  counters: NodeCounters;
  /** Messages out per second over the last sampling interval (null before two samples). */
  outRate: number | null;
  /** CsiFrames out per second (its CsiFrame ports only) over the last interval; null before two samples or without such ports. */
  csiFrameRate: number | null;
  /** Wall-clock ms when the node last emitted (null before it did). */
  lastOutputAt: number | null;
}

/** A node's latest problem: a handler error, or a `lastError` it reports in its stats. */
export function nodeProblem(node: ComponentNode): string | null {
  const fromStats = node.counters.stats?.lastError;
  return node.counters.lastError ?? (typeof fromStats === 'string' && fromStats ? fromStats : null);
}

/** Whether a node is failing: it has a problem and has produced nothing. */
export function nodeFailing(node: ComponentNode): boolean {
  return node.counters.out === 0 && nodeProblem(node) !== null;
}

/** The system's last error, else the first failing node's problem. */
export function systemProblem(lastError: string | null, nodes: ComponentNode[]): string | null {
  if (lastError) return lastError;
  const failing = nodes.find(nodeFailing);
  return failing ? `${failing.id} (${failing.type}): ${nodeProblem(failing)}` : null;
}

/** One step of a start/stop: what it is and how far. */
export interface StepReport {
  step: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  progress: number;
}

function roleOf(type: string, category: string): ComponentRole {
  if (type === 'pose.publish') return 'publish';
  if (category === 'tracking' || type.startsWith('tracker.')) return 'tracker';
  if (category === 'models' || type.startsWith('pose.')) return 'model';
  if (category === 'sources' || category === 'signal' || type.startsWith('csi.') || type.startsWith('sim.')) return 'csi';
  if (category === 'analytics') return 'analytics';
  return 'other';
}

/**
 * Starts, stops and restarts the configured pipeline flow through the runtime's engine and
 * keeps the state machine of spec section 3:
 * stopped → starting → running → stopping → stopped; running → restarting → running.
 * A start that fails (bad flow, a node that cannot start) returns to stopped with `lastError`.
 */
export class SystemController {
  state: SystemState = 'stopped';
  sessionId: string | null = null;
  startedAt: number | null = null;
  lastError: string | null = null;
  /** How the last run ended (completed, stopped, failed). */
  lastOutcome: string | null = null;
  steps: StepReport[] = [];
  #deployed: DeployedPipeline | undefined;
  #transition: Promise<void> = Promise.resolve();
  readonly #rates = new Map<string, { out: number; csiOut: number | null; at: number; rate: number | null; csiRate: number | null; lastOutputAt: number | null }>();

  constructor(
    private readonly host: Pick<PoseApiHost, 'flows' | 'hasStorage' | 'storage'>,
    private readonly hub: PoseHub,
    private readonly config: () => ApiConfig,
  ) {}

  get running(): boolean {
    return this.state === 'running';
  }

  /** Resolves when the current transition settled (tests, shutdown). */
  settled(): Promise<void> {
    return this.#transition;
  }

  /** Read the configured flow: a JSON file (FlowData or a flow document with `data`), or a stored flow. */
  async loadFlow(): Promise<{ data: FlowData; flowId: string | null; source: string; name: string | null }> {
    const { flow, flowId } = this.config().pipeline;
    if (flowId) {
      if (!this.host.hasStorage) throw ApiErrors.storageUnavailable();
      const record = await this.host.storage.flows.get(flowId);
      if (!record?.data) throw ApiErrors.pipelineFailed(`stored flow ${flowId} not found or empty`);
      return { data: record.data as unknown as FlowData, flowId, source: `flow ${flowId}`, name: record.name ?? null };
    }
    if (!flow) throw ApiErrors.pipelineNotConfigured();
    const file = path.resolve(flow);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw ApiErrors.pipelineFailed(`cannot read ${file}: ${(error as Error).message}`);
    }
    const document = parsed as { id?: string; name?: string; data?: FlowData; nodes?: unknown };
    const data = (document.nodes ? document : document.data) as FlowData | undefined;
    if (!data || !Array.isArray(data.nodes) || !Array.isArray(data.edges)) throw ApiErrors.pipelineFailed(`${file} holds no flow (nodes and edges)`);
    return { data, flowId: document.id ?? null, source: file, name: typeof document.name === 'string' ? document.name : path.basename(file, '.json') };
  }

  /** Begin a start: validate and compile now (errors answer the request), deploy in the background. */
  async start(): Promise<{ sessionId: string; steps: StepReport[] }> {
    if (this.state !== 'stopped') throw this.state === 'running' || this.state === 'starting' ? ApiErrors.alreadyRunning(this.state) : ApiErrors.transitionInProgress(this.state);
    this.state = 'starting';
    this.lastError = null;
    const sessionId = randomUUID();
    this.sessionId = sessionId;
    this.steps = [
      { step: 'load_flow', status: 'in_progress', progress: 0 },
      { step: 'compile_flow', status: 'pending', progress: 0 },
      { step: 'start_nodes', status: 'pending', progress: 0 },
    ];
    let loaded: Awaited<ReturnType<SystemController['loadFlow']>>;
    try {
      loaded = await this.loadFlow();
      this.#step('load_flow', 'completed');
      this.#step('compile_flow', 'in_progress');
      await this.host.flows.prepare(loaded.data);
      this.#step('compile_flow', 'completed');
      this.#step('start_nodes', 'in_progress');
    } catch (error) {
      this.state = 'stopped';
      this.sessionId = null;
      const apiError = error instanceof ApiError ? error : ApiErrors.pipelineFailed(describe(error));
      this.lastError = apiError.message;
      throw apiError;
    }
    const steps = this.steps.map((s) => ({ ...s }));
    this.#transition = this.#deploy(loaded);
    return { sessionId, steps };
  }

  async #deploy(loaded: { data: FlowData; flowId: string | null; source: string; name: string | null }): Promise<void> {
    try {
      const deployed = await this.host.flows.deploy(loaded.data, { id: PIPELINE_ID, flowId: loaded.flowId ?? undefined, name: loaded.name ?? undefined, source: loaded.source });
      this.#deployed = deployed;
      const early = await Promise.race([deployed.pipeline.done, Promise.resolve(null)]);
      if (early && early.status === 'failed') throw new Error(early.error);
      this.#rates.clear();
      this.startedAt = Date.now();
      this.state = 'running';
      this.#step('start_nodes', 'completed');
      void deployed.pipeline.done.then((outcome) => {
        if (this.#deployed !== deployed) return;
        this.lastOutcome = outcome.status;
        if (outcome.status === 'failed') this.lastError = outcome.error;
        if (this.state === 'running') this.#settleStopped();
      });
    } catch (error) {
      this.#step('start_nodes', 'failed');
      this.lastError = describe(error);
      this.lastOutcome = 'failed';
      await this.host.flows.undeploy(PIPELINE_ID, 0).catch(() => undefined);
      this.#deployed = undefined;
      this.state = 'stopped';
      this.sessionId = null;
    }
  }

  #settleStopped(): void {
    this.state = 'stopped';
    this.#deployed = undefined;
    this.startedAt = null;
    this.hub.clearLatest();
  }

  #step(step: string, status: StepReport['status']): void {
    const entry = this.steps.find((s) => s.step === step);
    if (entry) {
      entry.status = status;
      entry.progress = status === 'completed' ? 1 : entry.progress;
    }
  }

  /** Begin a stop; `drainMs` 0 drops queued messages (force). */
  stop(options: { force?: boolean; saveState?: boolean } = {}): { sessionId: string | null; steps: StepReport[] } {
    if (this.state !== 'running') throw this.state === 'stopped' ? ApiErrors.notRunning(this.state) : ApiErrors.transitionInProgress(this.state);
    this.state = 'stopping';
    const sessionId = this.sessionId;
    this.steps = [
      { step: 'stop_sources', status: 'in_progress', progress: 0 },
      { step: 'drain_queues', status: 'pending', progress: 0 },
      { step: 'flush_storage', status: options.saveState === false ? 'completed' : 'pending', progress: options.saveState === false ? 1 : 0 },
    ];
    const steps = this.steps.map((s) => ({ ...s }));
    this.#transition = this.#undeploy(options);
    return { sessionId, steps };
  }

  async #undeploy(options: { force?: boolean; saveState?: boolean }): Promise<void> {
    this.#deployed = undefined;
    await this.host.flows.undeploy(PIPELINE_ID, options.force ? 0 : 2000).catch((error) => (this.lastError = describe(error)));
    this.#step('stop_sources', 'completed');
    this.#step('drain_queues', 'completed');
    await this.hub.flush();
    if (options.saveState !== false && this.host.hasStorage) {
      this.#step('flush_storage', 'in_progress');
      await this.host.storage.flush().catch((error) => (this.lastError = describe(error)));
      this.#step('flush_storage', 'completed');
    }
    this.lastOutcome = 'stopped';
    this.#settleStopped();
    this.sessionId = null;
  }

  /** Restart: stop the running pipeline and start it again under a new session. */
  async restart(): Promise<{ previousSessionId: string | null; newSessionId: string }> {
    if (this.state !== 'running') throw this.state === 'stopped' ? ApiErrors.notRunning(this.state) : ApiErrors.transitionInProgress(this.state);
    const previousSessionId = this.sessionId;
    const loaded = await this.loadFlow();
    await this.host.flows.prepare(loaded.data).catch((error) => {
      throw ApiErrors.pipelineFailed(describe(error));
    });
    this.state = 'restarting';
    const newSessionId = randomUUID();
    this.#transition = (async () => {
      this.#deployed = undefined;
      await this.host.flows.undeploy(PIPELINE_ID, 2000);
      await this.hub.flush();
      this.hub.clearLatest();
      this.sessionId = newSessionId;
      await this.#deploy(loaded);
    })();
    return { previousSessionId, newSessionId };
  }

  /** Stop for runtime shutdown (no error when not running). */
  async shutdown(): Promise<void> {
    await this.#transition.catch(() => undefined);
    if (this.state === 'running') {
      this.stop({ saveState: true });
      await this.#transition;
    }
  }

  /** Nodes of the running pipeline with counters and sampled rates. */
  components(): ComponentNode[] {
    const deployed = this.#deployed;
    if (!deployed || this.state !== 'running') return [];
    const now = Date.now();
    const out: ComponentNode[] = [];
    for (const [id, runner] of deployed.pipeline.runners) {
      const definition = runner.node.definition;
      const counters = runner.counters();
      const rate = this.#rates.get(id);
      out.push({ id, type: definition.type, role: roleOf(definition.type, definition.category), counters, outRate: rate?.rate ?? null, csiFrameRate: rate?.csiRate ?? null, lastOutputAt: rate?.lastOutputAt ?? (counters.out > 0 ? now : null) });
    }
    return out;
  }

  /** Sample output counters (called on the resource monitor's tick) for per-node rates. */
  sampleRates(): void {
    const deployed = this.#deployed;
    if (!deployed) return;
    const now = Date.now();
    for (const [id, runner] of deployed.pipeline.runners) {
      const out = runner.countOut;
      const csiOut = csiFramesOut(runner.node.definition.outputs, runner.countOutByPort);
      const previous = this.#rates.get(id);
      if (!previous) {
        this.#rates.set(id, { out, csiOut, at: now, rate: null, csiRate: null, lastOutputAt: out > 0 ? now : null });
        continue;
      }
      const seconds = (now - previous.at) / 1000;
      const perSecond = (current: number, before: number, last: number | null) => (seconds > 0 ? (current - before) / seconds : last);
      this.#rates.set(id, {
        out,
        csiOut,
        at: now,
        rate: perSecond(out, previous.out, previous.rate),
        csiRate: csiOut === null || previous.csiOut === null ? null : perSecond(csiOut, previous.csiOut, previous.csiRate),
        lastOutputAt: out > previous.out ? now : previous.lastOutputAt,
      });
    }
  }

  /** Uptime of the current session in seconds (0 when not running). */
  uptimeSeconds(): number {
    return this.startedAt ? Math.floor((Date.now() - this.startedAt) / 1000) : 0;
  }
}

/** CsiFrames a node emitted so far (its ports of type CsiFrame), or null when it has no such port. */
function csiFramesOut(outputs: Record<string, PortSpec> | undefined, byPort: Map<string, number>): number | null {
  const ports = Object.entries(outputs ?? {}).filter(([, port]) => portTypes(port).includes('CsiFrame')).map(([name]) => name);
  return ports.length ? ports.reduce((total, port) => total + (byPort.get(port) ?? 0), 0) : null;
}

function describe(error: unknown): string {
  const problems = (error as { details?: { problems?: { message?: string }[] } }).details?.problems;
  const base = error instanceof Error ? error.message : String(error);
  return problems?.length ? `${base}: ${problems.map((p) => p.message ?? JSON.stringify(p)).join('; ')}` : base;
}
