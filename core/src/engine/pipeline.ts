import type { ServiceReader } from '../runtime/services.js';
import { FileAccess } from '../security/file-access.js';
import { performance } from 'node:perf_hooks';
import { errorMessage } from '../errors.js';
import type { CompiledFlow } from '../flows/compiler.js';
import type { RuntimeHooks } from '../hooks/hooks.js';
import type { NodeContext } from '../nodes/define-node.js';
import { EdgeQueue } from './edge-queue.js';
import { NodeRunner, type NodeCounters } from './node-runner.js';

/** Messages a node handles per turn of the event loop before yielding. */
const BATCH = 256;

/** How a pipeline ended. */
export type PipelineOutcome =
  | { status: 'completed' }
  /** `error` names the failing node when there is one (`node X (type) …`, `source X (type) failed: …`). */
  | { status: 'failed'; error: string; nodeId?: string }
  | { status: 'stopped'; reason: string };

/** Options for one run of a compiled flow. */
export interface PipelineOptions {
  runId: string;
  mode: 'stream' | 'job';
  hooks: RuntimeHooks;
  /** Services the nodes reach by typed token. */
  services: ServiceReader;
  /** Job inputs by io.input name. */
  inputs?: Record<string, unknown>;
  /** Receives job events (progress, node logs); stream mode may ignore them. */
  onEvent?: (event: { event: string; data?: unknown }) => void;
  /** Receives job outputs set by io.output nodes. */
  onOutput?: (name: string, value: unknown, collect: 'last' | 'all') => void;
  /** Job mode: a node that throws fails the whole run. Defaults to true in job mode. */
  failFast?: boolean;
  /** Where nodes may open files (default: anywhere, for trusted callers). */
  files?: FileAccess;
}

/**
 * One running instance of a compiled flow. Stream mode: sources push until stopped, every
 * edge is a bounded queue, per-node counters are readable live. Job mode: the same, plus
 * inputs, outputs and fail-fast; it completes when every source is done and every queue is
 * drained and flushed.
 */
export class Pipeline {
  readonly runners = new Map<string, NodeRunner>();
  readonly #abort = new AbortController();
  readonly #options: PipelineOptions;
  readonly #flow: CompiledFlow;
  #inFlight = 0;
  #sourcesRunning = 0;
  #settled = false;
  #resolveDone!: (outcome: PipelineOutcome) => void;
  #idleWaiters: (() => void)[] = [];
  #traced: boolean;
  /** Resolves once when the pipeline completes, fails or is stopped. */
  readonly done: Promise<PipelineOutcome>;
  startedAt = 0;

  constructor(flow: CompiledFlow, options: PipelineOptions) {
    this.#flow = flow;
    this.#options = options;
    this.#traced = options.hooks.message.isUsed();
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    for (const node of flow.nodes) this.runners.set(node.id, new NodeRunner(node));
    for (const edge of flow.edges) {
      const source = this.runners.get(edge.source)!;
      const target = this.runners.get(edge.target)!;
      const queue = new EdgeQueue(edge.capacity, edge.overflow, edge.targetPort);
      target.inputs.push(queue);
      const outlets = source.outlets.get(edge.sourcePort) ?? [];
      outlets.push({ edgeId: edge.id, queue, target });
      source.outlets.set(edge.sourcePort, outlets);
    }
  }

  /** Aborted when the pipeline stops. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Live counters of every node. */
  counters(): Record<string, NodeCounters> {
    const out: Record<string, NodeCounters> = {};
    for (const [id, runner] of this.runners) out[id] = runner.counters();
    return out;
  }

  /** Instantiate every node (in topological order), then start the sources. */
  async start(): Promise<void> {
    this.startedAt = Date.now();
    for (const node of this.#flow.nodes) {
      const runner = this.runners.get(node.id)!;
      try {
        runner.instance = await node.definition.create(this.#context(runner));
      } catch (error) {
        this.#fail(`node ${node.id} (${node.definition.type}) failed to start: ${errorMessage(error)}`, node.id);
        await this.#closeAll();
        return;
      }
    }
    const sources = [...this.runners.values()].filter((r) => r.instance?.run);
    this.#sourcesRunning = sources.length;
    for (const runner of sources) {
      void this.#runSource(runner);
    }
    if (sources.length === 0) void this.#maybeFinish();
  }

  /** Stop sources, optionally let queued messages drain (bounded by `drainMs`), then close nodes. */
  async stop(reason = 'stopped', drainMs = 2000): Promise<PipelineOutcome> {
    if (!this.#settled) {
      this.#abort.abort(reason);
      if (drainMs > 0 && this.#inFlight > 0) {
        await Promise.race([this.#waitIdle(), new Promise((r) => setTimeout(r, drainMs).unref())]);
      }
      for (const runner of this.runners.values()) {
        for (const q of runner.inputs) this.#inFlight -= q.clear();
      }
      this.#settle({ status: 'stopped', reason });
      await this.#closeAll();
    }
    return this.done;
  }

  async #runSource(runner: NodeRunner): Promise<void> {
    try {
      await runner.instance!.run!();
    } catch (error) {
      if (!this.#abort.signal.aborted) {
        this.#nodeFailed(runner, error, undefined);
        this.#sourceFailure ??= { error: `source ${runner.node.id} (${runner.node.definition.type}) failed: ${errorMessage(error)}`, nodeId: runner.node.id };
      }
    } finally {
      this.#sourcesRunning--;
      void this.#maybeFinish();
    }
  }

  #context(runner: NodeRunner): NodeContext {
    const options = this.#options;
    const node = runner.node;
    return {
      id: node.id,
      config: node.config,
      mode: options.mode,
      signal: this.#abort.signal,
      jobInputs: options.inputs ?? {},
      emit: (port, value) => this.#emit(runner, port, value),
      idle: () => this.#waitIdle(),
      progress: (fraction, message) => options.onEvent?.({ event: 'progress', data: { node_id: node.id, fraction, message } }),
      log: (event) => options.onEvent?.({ event: event.event, data: { node_id: node.id, ...(event.data as object) } }),
      services: options.services,
      setOutput: (name, value, collect) => options.onOutput?.(name, value, collect),
      files: options.files ?? FileAccess.unconfined,
    };
  }

  /** Deliver a value to every edge of an output port. */
  #emit(runner: NodeRunner, port: string, value: unknown): void | Promise<void> {
    if (this.#settled) return;
    const outlets = runner.outlets.get(port);
    runner.countOut++;
    runner.countOutByPort.set(port, (runner.countOutByPort.get(port) ?? 0) + 1);
    if (!outlets) return;
    const now = performance.now();
    let wait: Promise<void> | undefined;
    for (let i = 0; i < outlets.length; i++) {
      const outlet = outlets[i];
      const result = outlet.queue.push(value, now);
      if (result === 'dropped') {
        outlet.target.countDropped++;
      } else {
        this.#inFlight++;
        if (result === 'full') wait = outlet.queue.waitForRoom();
      }
      if (this.#traced) {
        this.#options.hooks.message.call({ runId: this.#options.runId, edgeId: outlet.edgeId, from: runner.node.id, fromPort: port, to: outlet.target.node.id, toPort: outlet.queue.targetPort, value, time: now });
      }
      this.#schedule(outlet.target);
    }
    if (wait) {
      runner.blockedOn = wait;
      return wait;
    }
  }

  #schedule(runner: NodeRunner): void {
    if (runner.scheduled || runner.busy) return;
    runner.scheduled = true;
    setImmediate(this.#drain, runner);
  }

  readonly #drain = (runner: NodeRunner): void => {
    runner.scheduled = false;
    if (runner.busy || this.#settled) return;
    runner.busy = true;
    let handled = 0;
    while (handled < BATCH) {
      if (runner.blockedOn) return this.#continue(runner);
      const queue = runner.nextQueue();
      if (!queue) break;
      const enqueuedAt = queue.peekTime();
      const value = queue.shift();
      runner.countIn++;
      handled++;
      let result: void | Promise<void>;
      try {
        result = runner.instance?.receive?.(queue.targetPort, value);
      } catch (error) {
        this.#nodeFailed(runner, error, value);
        this.#delivered(runner, enqueuedAt);
        continue;
      }
      if (result && typeof (result as Promise<void>).then === 'function') {
        void (result as Promise<void>).then(
          () => this.#afterAsync(runner, enqueuedAt),
          (error) => {
            this.#nodeFailed(runner, error, value);
            this.#afterAsync(runner, enqueuedAt);
          },
        );
        return;
      }
      this.#delivered(runner, enqueuedAt);
    }
    this.#continue(runner);
  };

  /** After a turn: wait for a full downstream queue if an emit hit one, else drain on. */
  #continue(runner: NodeRunner): void {
    if (runner.blockedOn) {
      const blocked = runner.blockedOn;
      runner.blockedOn = undefined;
      runner.busy = true;
      void blocked.then(() => this.#resume(runner));
      return;
    }
    runner.busy = false;
    if (runner.queued() > 0) this.#schedule(runner);
  }

  #resume(runner: NodeRunner): void {
    runner.busy = false;
    if (runner.queued() > 0) this.#schedule(runner);
  }

  #afterAsync(runner: NodeRunner, enqueuedAt: number): void {
    this.#delivered(runner, enqueuedAt);
    this.#continue(runner);
  }

  #delivered(runner: NodeRunner, enqueuedAt: number): void {
    runner.latency.record(performance.now() - enqueuedAt);
    this.#inFlight--;
    if (this.#inFlight === 0) {
      if (this.#idleWaiters.length) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
      if (this.#sourcesRunning === 0) void this.#maybeFinish();
    }
  }

  #nodeFailed(runner: NodeRunner, error: unknown, value: unknown): void {
    runner.countErrors++;
    runner.lastError = errorMessage(error);
    this.#options.hooks.nodeError.call({ runId: this.#options.runId, nodeId: runner.node.id, nodeType: runner.node.definition.type, error, value });
    const failFast = this.#options.failFast ?? this.#options.mode === 'job';
    if (failFast) this.#fail(`node ${runner.node.id} (${runner.node.definition.type}): ${runner.lastError}`, runner.node.id);
  }

  #fail(error: string, nodeId?: string): void {
    if (this.#settled) return;
    this.#abort.abort(error);
    this.#settle({ status: 'failed', error, nodeId });
    void this.#closeAll();
  }

  #waitIdle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #finishing = false;
  /** The first source that threw: the pipeline ends as failed once everything drained. */
  #sourceFailure: { error: string; nodeId: string } | undefined;
  /** Sources done and queues empty: flush nodes layer by layer, then complete. */
  async #maybeFinish(): Promise<void> {
    if (this.#settled || this.#finishing || this.#sourcesRunning > 0 || this.#inFlight > 0) return;
    this.#finishing = true;
    try {
      for (const layer of this.#flow.layers) {
        for (const id of layer) {
          const runner = this.runners.get(id)!;
          if (!runner.instance?.flush) continue;
          try {
            await runner.instance.flush();
          } catch (error) {
            this.#nodeFailed(runner, error, undefined);
          }
          await this.#waitIdle();
          if (this.#settled) return;
        }
      }
      if (this.#abort.signal.aborted) return;
      this.#settle(this.#sourceFailure ? { status: 'failed', ...this.#sourceFailure } : { status: 'completed' });
      await this.#closeAll();
    } finally {
      this.#finishing = false;
    }
  }

  #settle(outcome: PipelineOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    if (!this.#abort.signal.aborted) this.#abort.abort(outcome.status);
    this.#resolveDone(outcome);
  }

  #closed = false;
  async #closeAll(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const runner of this.runners.values()) {
      try {
        await runner.instance?.close?.();
      } catch (error) {
        runner.lastError = errorMessage(error);
      }
    }
  }
}
