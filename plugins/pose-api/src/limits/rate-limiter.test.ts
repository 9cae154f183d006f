import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, RateLimiter } from '../index.js';

describe('RateLimiter', () => {
  it('counts fixed windows per category and caller, resets at the window end, sweeps old counters', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore();
    const limiter = new RateLimiter(store, () => now);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await limiter.check('auth', 'ip:1', 2, 60));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([[true, 1], [true, 0], [false, 0]]);
    expect(results[0].resetSeconds).toBe(1020);
    expect((await limiter.check('auth', 'ip:2', 2, 60)).allowed).toBe(true);
    expect((await limiter.check('pose_read', 'ip:1', 2, 60)).allowed).toBe(true);
    now = 1_020_000;
    expect((await limiter.check('auth', 'ip:1', 2, 60)).remaining).toBe(1);
    now += 120_000;
    await limiter.check('auth', 'ip:3', 2, 60);
    expect(store.size).toBe(1);
  });
});
