import { afterEach, describe, expect, it, vi } from 'vitest';
import { ArrivalWaiters } from './index.js';

describe('ArrivalWaiters', () => {
  afterEach(() => vi.useRealTimers());

  it('resolves a wait on the arrival that makes its condition hold, and at once when it already holds', async () => {
    const arrivals: string[] = [];
    const waiters = new ArrivalWaiters();
    let resolved = false;
    const wait = waiters.until(() => arrivals.length >= 2, 'two arrivals', 60_000, () => `${arrivals.length}`).then(() => (resolved = true));
    arrivals.push('a');
    waiters.arrived();
    await Promise.resolve();
    expect(resolved).toBe(false);
    arrivals.push('b');
    waiters.arrived();
    await wait;
    expect(resolved).toBe(true);
    await waiters.until(() => arrivals.length === 2, 'nothing new', 1, () => '');
  });

  it('rejects after the timeout, naming what it waited for and what had arrived', async () => {
    vi.useFakeTimers();
    const waiters = new ArrivalWaiters();
    const wait = waiters.until(() => false, 'an alert', 5000, () => '3 messages: a, b, c');
    const failed = expect(wait).rejects.toThrow('timed out after 5000 ms waiting for an alert; got 3 messages: a, b, c');
    await vi.advanceTimersByTimeAsync(5000);
    await failed;
  });
});
