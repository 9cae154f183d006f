/** A counter's state after one hit. */
export interface WindowState {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

/**
 * Where hit counters live. The in-memory store serves one process; a cluster swaps in a
 * shared one (Redis, NATS KV) with the same fixed-window semantics.
 */
export interface RateLimitStore {
  /** Count one hit of `key` in the fixed window of `windowMs` that contains `now`. */
  hit(key: string, windowMs: number, now: number): WindowState | Promise<WindowState>;
  /** Forget every counter (tests, config changes). */
  reset(): void | Promise<void>;
}

/** Fixed-window counters in a Map, swept of expired windows as they are touched. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, WindowState>();
  #lastSweep = 0;

  hit(key: string, windowMs: number, now: number): WindowState {
    if (now - this.#lastSweep > 60_000) this.#sweep(now);
    let state = this.#windows.get(key);
    if (!state || state.resetAt <= now) {
      const start = Math.floor(now / windowMs) * windowMs;
      state = { count: 0, resetAt: start + windowMs };
      this.#windows.set(key, state);
    }
    state.count++;
    return state;
  }

  reset(): void {
    this.#windows.clear();
  }

  /** Counters held (for tests of the sweep). */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, state] of this.#windows) if (state.resetAt <= now) this.#windows.delete(key);
  }
}

/** The verdict for one request: the X-RateLimit-* figures and whether it may proceed. */
export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Window end, epoch seconds. */
  resetSeconds: number;
  windowSeconds: number;
}

/** Applies per-category limits over a store. */
export class RateLimiter {
  #store: RateLimitStore;

  constructor(
    store: RateLimitStore = new MemoryRateLimitStore(),
    private readonly now: () => number = Date.now,
  ) {
    this.#store = store;
  }

  /** Where the counters live. */
  get store(): RateLimitStore {
    return this.#store;
  }

  /** Count in another store from now on (cluster mode: counters shared by every API instance). */
  use(store: RateLimitStore): void {
    this.#store = store;
  }

  /** Count a request of `caller` in `category` against `limit` per `windowSeconds`. */
  async check(category: string, caller: string, limit: number, windowSeconds: number): Promise<RateLimitVerdict> {
    const state = await this.#store.hit(`${category}|${caller}`, windowSeconds * 1000, this.now());
    return {
      allowed: state.count <= limit,
      limit,
      remaining: Math.max(0, limit - state.count),
      resetSeconds: Math.ceil(state.resetAt / 1000),
      windowSeconds,
    };
  }
}
