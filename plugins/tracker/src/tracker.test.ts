import { describe, expect, it } from 'vitest';
import { NO_OBSERVATION_NOISE, simulateScene, observeTruth } from '@wiflow/analytics-common';
import { MultiPersonTracker, evaluateTracking, scoreTracking, trackObserved, TRACKING_SCENES, toTrackRecord, FloorKalman } from './index.js';

describe('Kalman filter', () => {
  it('learns a constant velocity from noisy positions', () => {
    const k = new FloorKalman(0, 0, 0.5, 0.1);
    let seed = 3;
    const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.2;
    for (let i = 1; i <= 50; i++) {
      k.predict(0.1);
      k.update(i * 0.1 * 1.2 + noise(), 2 + noise());
    }
    expect(k.state[2]).toBeCloseTo(1.2, 0);
    expect(Math.abs(k.state[3])).toBeLessThan(0.3);
    expect(k.mahalanobis2(k.state[0], k.state[1])).toBeCloseTo(0, 5);
  });
});

describe('MultiPersonTracker', () => {
  it('confirms a track after min_hits, keeps its id, and ends it after max_age and the re-id window', () => {
    const truth = simulateScene({ durationS: 4, rateHz: 10, people: [{ id: 1, start: { x: 1, y: 1 }, script: [{ action: 'walk', path: [[5, 1]], speed: 1 }] }] });
    const frames = observeTruth(truth, { noise: NO_OBSERVATION_NOISE });
    const tracker = new MultiPersonTracker({ tracking_min_hits: 3, tracking_max_age: 5, reid_window_seconds: 1 });
    const out = frames.map((f) => tracker.update(f));
    expect(out[0].persons[0].trackStatus).toBe('tentative');
    expect(out[2].persons[0].trackStatus).toBe('active');
    const ids = new Set(out.map((f) => f.persons[0].trackId));
    expect(ids.size).toBe(1);
    const last = out[out.length - 1].persons[0];
    expect(last.velocity!.x).toBeCloseTo(1, 1);
    expect(last.trackAge).toBe(frames.length);
    const t0 = frames[frames.length - 1].timestamp;
    tracker.update({ ...frames[0], timestamp: t0 + 100, persons: [] });
    expect(tracker.track([...ids][0]!)!.status).toBe('lost');
    for (let i = 2; i < 30; i++) tracker.update({ ...frames[0], timestamp: t0 + i * 100, persons: [] });
    const summary = tracker.track([...ids][0]!, { includeTrajectory: true })!;
    expect(summary.status).toBe('ended');
    expect(summary.statistics.movementDistance).toBeGreaterThan(3.3);
    expect(summary.statistics.movementDistance).toBeLessThan(4.5);
    expect(summary.statistics.averageSpeed).toBeGreaterThan(0.8);
    expect(summary.trajectory!.length).toBe(frames.length);
    const record = toTrackRecord(summary);
    expect(record.track_id).toBe(summary.trackId);
    expect(record.statistics.movement_distance).toBe(summary.statistics.movementDistance);
    expect(record.trajectory![0].timestamp).toBe(new Date(frames[0].timestamp).toISOString());
  });

  it('re-identifies a person who disappears for 3 s beyond max_age', () => {
    const truth = simulateScene({ durationS: 12, rateHz: 10, people: [{ id: 1, start: { x: 2, y: 2 }, script: [{ action: 'stand', duration: 3 }, { action: 'absent', duration: 3 }, { action: 'enter', at: [2.4, 2.1] }, { action: 'stand', duration: 5 }] }] });
    const frames = observeTruth(truth, { noise: NO_OBSERVATION_NOISE });
    const tracker = new MultiPersonTracker({ tracking_max_age: 10, reid_window_seconds: 8 });
    const out = frames.map((f) => tracker.update(f));
    const ids = new Set(out.flatMap((f) => f.persons.map((p) => p.trackId)));
    expect(ids.size).toBe(1);
    expect(tracker.counters.reidentifications).toBe(1);
    const transitions = tracker.takeTransitions().map((t) => t.reason);
    expect(transitions).toContain('re-identified');
  });

  it('counts time stationary for a person standing still', () => {
    const truth = simulateScene({ durationS: 10, rateHz: 10, people: [{ id: 1, start: { x: 2, y: 2 }, script: [{ action: 'stand', duration: 20 }] }] });
    const { tracker } = trackObserved(truth, { seed: 2 });
    const [t] = tracker.tracks();
    expect(t.statistics.timeStationary).toBeGreaterThan(7);
    expect(t.statistics.movementDistance).toBeLessThan(1);
  });

  it('rejects bad frames and options with clear errors', () => {
    const tracker = new MultiPersonTracker();
    expect(() => tracker.update({} as never)).toThrow(/timestamp/);
    const frame = observeTruth(simulateScene({ durationS: 1, rateHz: 10, people: [{ id: 1, start: { x: 1, y: 1 }, script: [] }] }), { noise: NO_OBSERVATION_NOISE });
    tracker.update(frame[5]);
    expect(() => tracker.update(frame[2])).toThrow(/older than the previous/);
    expect(() => tracker.update({ ...frame[6], persons: [{ position: { x: NaN, y: 0 } } as never] })).toThrow(/floor position/);
    expect(() => new MultiPersonTracker({ tracking_min_hits: 0 })).toThrow(/tracking_min_hits/);
  });
});

describe('tracking metrics', () => {
  it('scores a perfect tracker 1 and counts an identity swap', () => {
    const truth = simulateScene({ durationS: 4, rateHz: 10, people: [
      { id: 1, start: { x: 0, y: 0 }, script: [{ action: 'walk', path: [[4, 0]], speed: 1 }] },
      { id: 2, start: { x: 0, y: 3 }, script: [{ action: 'walk', path: [[4, 3]], speed: 1 }] },
    ] });
    const frames = observeTruth(truth, { noise: NO_OBSERVATION_NOISE });
    const perfect = frames.map((f) => ({ ...f, persons: f.truth!.persons.map((p, i) => ({ ...f.persons[i], trackId: p.id, trackStatus: 'active' as const, position: p.position })) }));
    const s = scoreTracking(perfect);
    expect(s.mota).toBe(1);
    expect(s.idf1).toBe(1);
    // Swap the two ids halfway.
    const swapped = perfect.map((f, k) => ({ ...f, persons: f.persons.map((p) => ({ ...p, trackId: k < 20 ? p.trackId : 3 - (p.trackId as number) })) }));
    const w = scoreTracking(swapped);
    expect(w.idSwitches).toBe(2);
    expect(w.idf1).toBeCloseTo(Math.max(20, frames.length - 20) / frames.length, 2);
    expect(w.mota).toBeCloseTo(1 - 2 / (2 * frames.length), 5);
  });

  it('reaches IDF1 ≥ 0.90 with three people crossing paths (noisy detections)', () => {
    const result = evaluateTracking({ scenes: ['crossing-3'], seeds: 3 });
    expect(result.truth).toBe('simulator');
    const score = result.scenes[0].score;
    expect(score.idf1).toBeGreaterThanOrEqual(0.9);
    expect(score.mota).toBeGreaterThan(0.8);
    expect(TRACKING_SCENES.map((s) => s.name)).toEqual(['crossing-3', 'passing-2', 'room-4']);
  }, 60_000);
});
