import { performance } from 'node:perf_hooks';
import type { CompiledNode } from '../flows/compiler.js';
import type { NodeInstance } from '../nodes/define-node.js';
import type { EdgeQueue } from './edge-queue.js';
import { LatencyHistogram } from './latency-histogram.js';

/** The live figures of one node, readable while a pipeline runs. */
export interface NodeCounters {
  /** Messages handed to the node. */
  in: number;
  /** Messages the node emitted (per edge delivery counted once per emit). */
  out: number;
  /** Messages dropped from the node's input queues (drop-oldest overflow). */
  dropped: number;
  /** Messages whose handler threw. */
  errors: number;
  /** Messages waiting in the node's input queues. */
  queued: number;
  /** Time from enqueue to handler completion, milliseconds. */
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  /** Last error message, if any. */
  lastError: string | null;
  /** Node-specific figures from `stats()`. */
  stats?: Record<string, number | string | null>;
}

/** An outgoing connection of a node: the queue and who drains it. */
export interface Outlet {
  edgeId: string;
  queue: EdgeQueue;
  target: NodeRunner;
}

/** Runs one node: drains its input queues in turn and keeps its counters. */
export class NodeRunner {
  instance: NodeInstance | undefined;
  readonly inputs: EdgeQueue[] = [];
  readonly outlets = new Map<string, Outlet[]>();
  readonly latency = new LatencyHistogram();
  countIn = 0;
  countOut = 0;
  /** Emits per output port (a source's CSI frames apart from its other outputs, e.g. the simulator's truth). */
  readonly countOutByPort = new Map<string, number>();
  countDropped = 0;
  countErrors = 0;
  lastError: string | null = null;
  /** Set while a handler's emit hit a full `block` queue. */
  blockedOn: Promise<void> | undefined;
  scheduled = false;
  busy = false;
  #nextInput = 0;

  constructor(readonly node: CompiledNode) {}

  /** Messages waiting across all input queues. */
  queued(): number {
    let n = 0;
    for (const q of this.inputs) n += q.length;
    return n;
  }

  /** Pick the next queue with a message, round-robin so no input starves. */
  nextQueue(): EdgeQueue | undefined {
    const count = this.inputs.length;
    for (let i = 0; i < count; i++) {
      const q = this.inputs[(this.#nextInput + i) % count];
      if (q.length > 0) {
        this.#nextInput = (this.#nextInput + i + 1) % count;
        return q;
      }
    }
    return undefined;
  }

  counters(): NodeCounters {
    let stats: Record<string, number | string | null> | undefined;
    try {
      stats = this.instance?.stats?.();
    } catch {
      stats = undefined;
    }
    return {
      in: this.countIn,
      out: this.countOut,
      dropped: this.countDropped,
      errors: this.countErrors,
      queued: this.queued(),
      latencyP50Ms: this.latency.percentile(0.5),
      latencyP99Ms: this.latency.percentile(0.99),
      latencyMeanMs: this.latency.mean,
      lastError: this.lastError,
      ...(stats ? { stats } : {}),
    };
  }

  now(): number {
    return performance.now();
  }
}
