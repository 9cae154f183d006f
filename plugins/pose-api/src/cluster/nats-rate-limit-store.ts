import { createHash } from 'node:crypto';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ApiErrors } from '../errors.js';
import type { RateLimitStore, WindowState } from '../limits/rate-limiter.js';

/**
 * Fixed-window rate-limit counters shared by every API instance of a cluster, in a NATS
 * KV bucket. A hit is a compare-and-set on the key's revision (retried on conflict), so
 * concurrent instances never lose a count. The bucket's TTL removes finished windows, so
 * nothing has to sweep them (the reason for NATS KV over the storage `settings`
 * repository, which would keep every window as a database document and cost two database
 * round trips per request).
 */
export class NatsRateLimitStore implements RateLimitStore {
  #kv: Promise<KV> | undefined;

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

  async hit(key: string, windowMs: number, now: number): Promise<WindowState> {
    try {
      return await this.#hit(key, windowMs, now);
    } catch (error) {
      // Answer 503 SYSTEM_NOT_READY rather than 500 while NATS is unreachable.
      throw ApiErrors.clusterUnavailable(`rate-limit counters: ${(error as Error).message}`);
    }
  }

  async #hit(key: string, windowMs: number, now: number): Promise<WindowState> {
    const kv = await this.#bucket();
    const start = Math.floor(now / windowMs) * windowMs;
    const resetAt = start + windowMs;
    // KV keys allow only [-/_=.a-zA-Z0-9]: callers (API keys, addresses) are hashed.
    const id = `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.${start}`;
    const retries = this.options.maxRetries ?? 50;
    for (let attempt = 0; attempt < retries; attempt++) {
      const entry = await kv.get(id);
      try {
        if (!entry || entry.operation !== 'PUT') {
          await kv.create(id, '1');
          return { count: 1, resetAt };
        }
        const count = Number(entry.string()) + 1;
        await kv.update(id, String(count), entry.revision);
        return { count, resetAt };
      } catch (error) {
        // Another instance counted in between: read again.
        if (!/wrong last sequence|exists|key exists/i.test(String((error as Error).message))) throw error;
      }
    }
    throw new Error(`rate-limit counter ${key}: ${retries} conflicting updates in a row`);
  }

  async reset(): Promise<void> {
    const kv = await this.#bucket();
    for await (const key of await kv.keys()) await kv.purge(key);
  }
}
