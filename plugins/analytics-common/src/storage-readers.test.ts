import { describe, expect, it } from 'vitest';
import type { Alert, AnalyticsEvent, CursorPage, PoseFrame } from '@wiflow/core';
import { createEvent, alertFromEvent, eventsFromStorage, occupancyFromStorage, readFrames, summaryFromStorage, type AnalyticsStorage } from './index.js';

const T0 = Date.UTC(2026, 0, 5, 8);

// A small stand-in for a storage plugin: range filter and cursor paging over arrays.
function arrayStorage(frames: PoseFrame[], events: AnalyticsEvent[], alerts: Alert[]): AnalyticsStorage & { calls: number } {
  const state = { calls: 0 };
  const scan = <T extends { timestamp: number }>(items: T[]) => async (q: { start?: number; end?: number }, p: { cursor?: string | null; limit: number }): Promise<CursorPage<T>> => {
    state.calls++;
    const all = items.filter((i) => (q.start === undefined || i.timestamp >= q.start) && (q.end === undefined || i.timestamp < q.end));
    const from = p.cursor ? Number(p.cursor) : 0;
    const page = all.slice(from, from + p.limit);
    const next = from + p.limit < all.length ? String(from + p.limit) : null;
    return { items: page, nextCursor: next, hasMore: next !== null, totalCount: all.length };
  };
  return Object.assign(state, {
    poses: { scanFrames: scan(frames) } as unknown as AnalyticsStorage['poses'],
    events: { scan: scan(events) } as unknown as AnalyticsStorage['events'],
    alerts: { scan: scan(alerts) } as unknown as AnalyticsStorage['alerts'],
  });
}

function frame(t: number, tracks: number[]): PoseFrame {
  return {
    timestamp: t, frameId: 0, environmentId: 'e', processingTimeMs: 4, metadata: {} as PoseFrame['metadata'],
    persons: tracks.map((tr, i) => ({ id: i, trackId: tr, confidence: 0.9, keypoints: [], boundingBox: { x: 0, y: 0, width: 1, height: 1 }, keypoints3d: [], position: { x: 0, y: 0 }, trackStatus: 'active' as const })),
  };
}

describe('analytics from storage', () => {
  const frames = Array.from({ length: 3600 }, (_, s) => frame(T0 + s * 1000, s < 1800 ? [1] : [1, 2]));
  const fall = createEvent({ type: 'fall_detection', severity: 'high', timestamp: T0 + 100_000, environmentId: 'e', confidence: 0.9, source: 't' });
  const entry = createEvent({ type: 'zone_entry', severity: 'low', timestamp: T0 + 200_000, environmentId: 'e', confidence: 0.9, source: 't' });
  const alert = alertFromEvent(fall, { message: 'fall', actionsRequired: [] });

  it('pages through frames and computes summary and occupancy', async () => {
    const storage = arrayStorage(frames, [fall, entry], [alert]);
    const read = await readFrames(storage, { start: T0, end: T0 + 3_600_000 }, { pageSize: 500 });
    expect(read).toHaveLength(3600);
    expect(storage.calls).toBe(8);
    const summary = await summaryFromStorage(storage, { start: T0, end: T0 + 3_600_000 });
    expect(summary.detection_stats.unique_persons).toBe(2);
    expect(summary.activity_stats.fall_detections).toBe(1);
    expect(summary.activity_stats.alert_count).toBe(1);
    const occ = await occupancyFromStorage(storage, { start: T0, end: T0 + 3_600_000, interval: '15min' });
    expect(occ.time_series.map((p) => p.occupancy)).toEqual([1, 1, 2, 2]);
    expect(occ.summary.total_person_hours).toBeCloseTo(1.5, 2);
  });

  it('filters events by category using stored alerts, and refuses oversized ranges', async () => {
    const storage = arrayStorage(frames, [fall, entry], [alert]);
    expect((await eventsFromStorage(storage, { start: T0, end: T0 + 3_600_000, eventType: 'alert' })).map((e) => e.type)).toEqual(['fall_detection']);
    expect((await eventsFromStorage(storage, { start: T0, end: T0 + 3_600_000, eventType: 'activity' })).map((e) => e.type)).toEqual(['zone_entry']);
    await expect(readFrames(storage, { start: T0, end: T0 + 3_600_000 }, { maxItems: 100 })).rejects.toThrow(/shorter range/);
  });
});
