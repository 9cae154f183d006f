import { createHash } from 'node:crypto';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** A counter after one hit: hits in the window (this one included), when the window ends (ms); the pose API's `WindowState`. */
type WindowState = { count: number; resetAt: number };

/** Hits of one counter waiting for this instance's next update of it. */
interface CounterQueue {
  resetAt: number;
  waiting: { resolve(state: WindowState): void; reject(error: unknown): void }[];
}

/**
 * Fixed-window rate-limit counters shared by every API instance of a cluster, in a NATS
 * KV bucket. An update is a compare-and-set on the key's revision (retried on conflict), so
 * concurrent instances never lose a count. Within one instance, hits on a counter that arrive
 * while an update of it is in flight are added together by the next update (each still gets
 * its own count), so a busy caller costs one round trip per update, not per request, and
 * compare-and-set conflicts come only from other instances (the benchmark showed 32 requests
 * of one caller in flight on one instance exhausting 50 retries without this). The bucket's
 * TTL removes finished windows, so nothing has to sweep them (the reason for NATS KV over the
 * storage `settings` repository, which would keep every window as a database document and
 * cost two database round trips per request).
 */
export class NatsRateLimitStore {
  #kv: Promise<KV> | undefined;
  readonly #queues = new Map<string, CounterQueue>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: { bucket?: string; ttlMs?: number; maxRetries?: number } = {},
  ) {}

  #bucket(): Promise<KV> {
    if (!this.#kv) {
      this.#kv = new Kvm(this.nc).create(this.options.bucket ?? 'wiflow_rate_limits', { ttl: this.options.ttlMs ?? 3_600_000, history: 1 });
      // A failed creation is tried again on the next hit.
      this.#kv.catch(() => (this.#kv = undefined));
    }
    return this.#kv;
  }

  /** Count one hit of `key` in the fixed window of `windowMs` that contains `now`; rejects while NATS is unreachable. */
  hit(key: string, windowMs: number, now: number): Promise<WindowState> {
    const start = Math.floor(now / windowMs) * windowMs;
    // KV keys allow only [-/_=.a-zA-Z0-9]: callers (API keys, addresses) are hashed.
    const id = `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.${start}`;
    return new Promise<WindowState>((resolve, reject) => {
      let queue = this.#queues.get(id);
      const idle = !queue;
      if (!queue) this.#queues.set(id, (queue = { resetAt: start + windowMs, waiting: [] }));
      queue.waiting.push({ resolve, reject });
      if (idle) void this.#drain(id, queue);
    });
  }

  /** Update one counter until no hit of it is waiting. */
  async #drain(id: string, queue: CounterQueue): Promise<void> {
    while (queue.waiting.length) {
      const taken = queue.waiting.splice(0);
      try {
        const total = await this.#add(id, taken.length);
        taken.forEach((hit, i) => hit.resolve({ count: total - taken.length + 1 + i, resetAt: queue.resetAt }));
      } catch (error) {
        // The caller tells these from a refusal (the pose API answers 503 SYSTEM_NOT_READY).
        const failure = new Error(`rate-limit counters: ${(error as Error).message}`, { cause: error });
        for (const hit of taken) hit.reject(failure);
      }
    }
    this.#queues.delete(id);
  }

  /** Add `n` to a counter; returns its new value. */
  async #add(id: string, n: number): Promise<number> {
    const kv = await this.#bucket();
    const retries = this.options.maxRetries ?? 50;
    for (let attempt = 0; attempt < retries; attempt++) {
      const entry = await kv.get(id);
      try {
        if (!entry || entry.operation !== 'PUT') {
          await kv.create(id, String(n));
          return n;
        }
        const count = Number(entry.string()) + n;
        await kv.update(id, String(count), entry.revision);
        return count;
      } catch (error) {
        // Another instance counted in between: read again.
        if (!/wrong last sequence|exists|key exists/i.test(String((error as Error).message))) throw error;
      }
    }
    throw new Error(`counter ${id}: ${retries} conflicting updates in a row`);
  }

  /** Forget every counter. */
  async reset(): Promise<void> {
    const kv = await this.#bucket();
    for await (const key of await kv.keys()) await kv.purge(key);
  }
}
