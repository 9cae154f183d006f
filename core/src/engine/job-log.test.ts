import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { JobLog } from '../index.js';

describe('JobLog.read', () => {
  it('follows a log of many live events on one signal without piling abort listeners on it', async () => {
    const log = new JobLog();
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const seen: number[] = [];
      const listenerCounts: number[] = [];
      const reading = (async () => {
        for await (const event of log.read(0, controller.signal)) {
          seen.push(event.seq);
          listenerCounts.push(getEventListeners(controller.signal, 'abort').length);
          if (event.seq === 30) return;
        }
      })();
      // Each append wakes the reader, which waits again before the next one.
      for (let i = 0; i < 30; i++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        log.append('tick', i);
      }
      await reading;
      expect(seen).toHaveLength(30);
      expect(Math.max(...listenerCounts)).toBeLessThanOrEqual(1);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('ends a follow when the signal aborts', async () => {
    const log = new JobLog();
    const controller = new AbortController();
    log.append('first');
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of log.read(0, controller.signal)) seen.push(event.event);
    })();
    await new Promise<void>((resolve) => setImmediate(resolve));
    controller.abort();
    await reading;
    expect(seen).toEqual(['first']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('JobLog.restore', () => {
  it('keeps stored sequence numbers, gaps included, for since and resumption, closed unless asked open', async () => {
    const stored = [1, 2, 7, 9].map((seq) => ({ seq, event: `e${seq}`, data: null, timestamp: seq }));
    const log = JobLog.restore(stored);
    expect(log.closed).toBe(true);
    expect(log.lastSeq).toBe(9);
    expect(log.since(0).map((e) => e.seq)).toEqual([1, 2, 7, 9]);
    expect(log.since(2).map((e) => e.seq)).toEqual([7, 9]);
    expect(log.since(5).map((e) => e.seq)).toEqual([7, 9]);
    expect(log.since(9)).toEqual([]);
    const read: number[] = [];
    for await (const e of log.read(1)) read.push(e.seq);
    expect(read).toEqual([2, 7, 9]);
    const open = JobLog.restore(stored, { open: true });
    expect(open.append('job_failed')?.seq).toBe(10);
    open.close();
    expect(open.append('late')).toBeUndefined();
  });
});
