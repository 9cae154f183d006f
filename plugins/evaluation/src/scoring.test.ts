import type { Person, PoseFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { BucketScorer, confirmedTracks, DETECTED_RADIUS_M, floorStatistics, trueVisits } from './index.js';

const person = (x: number, y: number, trackId: number, trackStatus: 'active' | 'tentative' = 'active'): Person =>
  ({ id: trackId, trackId, trackStatus, confidence: 0.9, position: { x, y }, keypoints: [], keypoints3d: [] }) as unknown as Person;

/** A tracked frame at `t` seconds whose truth holds people at `truth`. */
const frame = (t: number, persons: Person[], truth: [number, number][]): PoseFrame =>
  ({ timestamp: 1_000_000 + t * 1000, frameId: t, environmentId: 'room', persons, metadata: {}, truth: { time: 1_000_000 + t * 1000, environmentId: 'room', events: [], persons: truth.map(([x, y], id) => ({ id, position: { x, y }, keypoints3d: [], activity: 'standing' })) } }) as unknown as PoseFrame;

describe('end-to-end scoring', () => {
  it('scores count and floor error only after 5 s of track, per true person count', () => {
    const scorer = new BucketScorer();
    scorer.addSession([
      frame(0, [], [[1, 1]]), // warm-up: not scored
      frame(5, [person(1.3, 1.4, 1)], [[1, 1]]), // 0.5 m off, count right
      frame(6, [person(1, 1, 1), person(4, 4, 2)], [[1, 1]]), // a phantom: count wrong, the real one exact
      frame(7, [person(2, 2, 1, 'tentative')], [[2, 2], [3, 3]]), // tentative tracks are not shown: none reported
    ]);
    const f = scorer.figures();
    expect(f['1'].frames).toBe(2);
    expect(f['1'].countExact).toBe(0.5);
    expect(f['1'].floorErrorM.mean).toBe(0.25);
    expect(f['2']).toMatchObject({ frames: 1, countExact: 0, detectedShare: 0, floorErrorM: { mean: null } });
    expect(f['3'].frames).toBe(0);
    expect(f.all.frames).toBe(3);
    expect(f.all.detectedShare).toBe(0.5);
  });

  it('counts a true person as detected only with a shown person within 1 m; the ungated share stays as matchedShare', () => {
    const scorer = new BucketScorer();
    scorer.addSession([
      frame(0, [], [[1, 1]]), // warm-up
      frame(5, [person(1.6, 1.7, 1)], [[1, 1]]), // 0.92 m off: detected
      frame(6, [person(4, 1, 1)], [[1, 1]]), // 3 m away: matched for the floor error, not detected
      // Two true people, two shown: the cheapest pairing is one near and one 2.2 m off; one is detected.
      frame(7, [person(1.5, 1, 1), person(3, 3, 2)], [[1, 1], [2, 1]]),
    ]);
    expect(DETECTED_RADIUS_M).toBe(1);
    const f = scorer.figures();
    expect(f['1']).toMatchObject({ frames: 2, detectedShare: 0.5, matchedShare: 1 });
    expect(f['2']).toMatchObject({ frames: 1, detectedShare: 0.5, matchedShare: 1 });
    expect(f.all).toMatchObject({ detectedShare: 0.5, matchedShare: 1 });
  });

  it('floor statistics are mean, median and nearest-rank 90th percentile', () => {
    expect(floorStatistics([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])).toEqual({ mean: 0.55, median: 0.5, p90: 0.9 });
    expect(floorStatistics([])).toEqual({ mean: null, median: null, p90: null });
  });

  it('counts true visits with the retail revisit gap and tracks a user was shown', () => {
    const frames = [frame(0, [person(1, 1, 7)], [[1, 1]]), frame(1, [person(1, 1, 7), person(2, 2, 8, 'tentative')], [[1, 1]]), frame(400, [person(1, 1, 9)], [[1, 1]])];
    expect(trueVisits(frames, 300)).toBe(2);
    expect(confirmedTracks(frames)).toBe(2);
  });
});
