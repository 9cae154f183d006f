import { describe, expect, it } from 'vitest';
import type { AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { PendingRecords } from './pending-writes.js';

const frame = (timestamp: number, persons: number): PoseFrame =>
  ({ timestamp, persons: Array.from({ length: persons }, () => ({})) }) as unknown as PoseFrame;
const event = (id: string): AnalyticsEvent => ({ id }) as unknown as AnalyticsEvent;

describe('PendingRecords (what a storage write buffer holds between writes)', () => {
  it('counts a pose frame as itself and its persons, and hands everything over in one batch', () => {
    const pending = new PendingRecords();
    pending.addFrames([frame(1, 2), frame(2, 0)]);
    pending.addEvents([event('a')]);
    expect(pending.records).toBe(5);
    const { batch, count } = pending.take();
    expect(count).toBe(5);
    expect(batch.frames.map((f) => f.timestamp)).toEqual([1, 2]);
    expect(batch.events).toHaveLength(1);
    expect(pending.records).toBe(0);
    expect(pending.take().batch.frames).toEqual([]);
  });

  it('puts a failed batch back in front of what came since, keeping the order a retry writes', () => {
    const pending = new PendingRecords();
    pending.addFrames([frame(1, 0)]);
    const failed = pending.take();
    pending.addFrames([frame(2, 0)]);
    expect(pending.putBack(failed.batch, failed.count, 100)).toBe(0);
    expect(pending.records).toBe(2);
    expect(pending.take().batch.frames.map((f) => f.timestamp)).toEqual([1, 2]);
  });

  it('drops the oldest pose frames beyond the limit and says how many records it dropped', () => {
    const pending = new PendingRecords();
    pending.addFrames([frame(1, 1), frame(2, 1), frame(3, 1)]);
    const failed = pending.take();
    pending.addEvents([event('e')]);
    // 7 records wait against a limit of 4: frames 1 and 2 (2 records each) go, the event stays.
    expect(pending.putBack(failed.batch, failed.count, 4)).toBe(4);
    expect(pending.records).toBe(3);
    const { batch } = pending.take();
    expect(batch.frames.map((f) => f.timestamp)).toEqual([3]);
    expect(batch.events).toHaveLength(1);
  });
});
