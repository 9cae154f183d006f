import { describe, expect, it } from 'vitest';
import { createLogger, type PoseFrame, type SensingFrame } from '@wiflow/core';
import { PoseHub } from './index.js';

const T0 = Date.UTC(2026, 0, 1, 12);

function hub(): { hub: PoseHub; published: PoseFrame[] } {
  const h = new PoseHub(() => undefined, () => ({ batchSize: 10, flushIntervalMs: 10 }), createLogger({ level: 'silent' }));
  const published: PoseFrame[] = [];
  h.subscribe({ frame: (f) => published.push(f) });
  return { hub: h, published };
}

function sensing(s: number, patch: Partial<SensingFrame> = {}): SensingFrame {
  return { time: T0 + (s + 1) * 1000, second: s, scope: 'room', environmentId: 'flat', link: null, presence: true, state: 'moving', motion: 0.8, breathingBpm: null, breathingReason: 'moving', breathingQuality: null, activity: 'walking', falls: [], lostFraction: 0, estimatorId: 'wiflow-sense-v1', configHash: 'abc', provenance: 'replay', ...patch };
}

function pose(timestamp: number, persons: number, environmentId = 'flat'): PoseFrame {
  return {
    timestamp, frameId: 1, environmentId, processingTimeMs: 1,
    persons: Array.from({ length: persons }, (_, i) => ({ id: i, trackId: i + 1, confidence: 0.9, keypoints: [], boundingBox: { x: 0, y: 0, width: 1, height: 1 }, keypoints3d: [], position: { x: i, y: 0 }, activity: 'standing' as const })),
    metadata: { modelId: 'm', modelHash: 'h', modelVersion: '1', processingMode: 'realtime', provenance: 'replay', csiQuality: null, linkCount: 1, pipeline: 'p' },
  };
}

describe("PoseHub: pose frames' activity from the room's sensing", () => {
  it('takes the activity of the sensing second that covers the frame, the nearest within 15 s, or says why not', async () => {
    const { hub: h, published } = hub();
    for (let s = 0; s < 10; s++) h.publishSensing(sensing(s, s >= 5 ? { state: 'still', motion: 0.05, activity: null } : {}));
    h.publishSensing(sensing(10, { activity: 'fall', falls: [{ time: T0 + 10_500, confidence: 0.9 }] }));
    await h.publishFrame(pose(T0 + 2500, 1));
    await h.publishFrame(pose(T0 + 7500, 1));
    await h.publishFrame(pose(T0 + 10_700, 1));
    await h.publishFrame(pose(T0 + 20_000, 1)); // 9 s after the newest second: nearest within 15 s
    await h.publishFrame(pose(T0 + 40_000, 1)); // nothing within 15 s
    await h.publishFrame(pose(T0 + 2500, 3));
    await h.publishFrame(pose(T0 + 2500, 0));
    await h.publishFrame(pose(T0 + 2500, 1, 'elsewhere'));
    const activity = published.map((f) => [f.persons.map((p) => p.activity ?? null), f.metadata.activitySource?.nullReason]);
    expect(activity).toEqual([
      [['walking'], null],
      [[null], 'posture_unknown'],
      [['falling'], null],
      [['falling'], null],
      [[null], 'no_sensing_frame'],
      [[null, null, null], 'several_people'],
      [[], undefined],
      // A room without sensing keeps the pose model's activity and no activitySource.
      [['standing'], undefined],
    ]);
    expect(published[0].metadata.activitySource).toEqual({ kind: 'sensing', estimatorId: 'wiflow-sense-v1', configHash: 'abc', provenance: 'replay', nullReason: null });
    expect(published[4].metadata.activitySource).toMatchObject({ estimatorId: null, provenance: null });
  });

  it('prefers room frames over link frames of the same room, and refuses what is not a sensing frame', () => {
    const { hub: h } = hub();
    h.publishSensing(sensing(0, { scope: 'link', link: { tx: 'a', rx: 'b' }, activity: 'other' }));
    expect(h.latestSensing('flat')?.scope).toBe('link');
    h.publishSensing(sensing(1));
    h.publishSensing(sensing(2, { scope: 'link', link: { tx: 'a', rx: 'b' } }));
    expect(h.latestSensing('flat')).toMatchObject({ scope: 'room', second: 1 });
    expect(() => h.publishSensing({ nonsense: true } as unknown as SensingFrame)).toThrow(/not a SensingFrame/);
    expect(h.counters.sensingPublished).toBe(3);
  });
});
