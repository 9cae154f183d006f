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
