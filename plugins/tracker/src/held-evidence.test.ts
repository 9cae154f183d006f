import { describe, expect, it } from 'vitest';
import type { Person, PoseFrame } from '@wiflow/core';
import { MultiPersonTracker, type TrackerOptionsInput } from './index.js';

/** A person as pose.locate gives it: its own track id, active, with the evidence of this estimate (absent: not measured). */
function upstreamPerson(trackId: number, x: number, evidence?: number | null): Person {
  return { id: 0, trackId, trackStatus: 'active', confidence: 0.9, keypoints: [], boundingBox: { x: 0, y: 0, width: 0, height: 0 }, keypoints3d: [], position: { x, y: 2 }, ...(evidence !== undefined ? { evidence } : {}) };
}
/** Frames at 5 Hz of one upstream id 7 standing at x = 2, its evidence per estimate given. */
function frames(evidence: readonly (number | null | undefined)[]): PoseFrame[] {
  return evidence.map((e, i) => ({ timestamp: i * 200, frameId: i, environmentId: 'room', processingTimeMs: 0, persons: [upstreamPerson(7, 2, e)], metadata: {} as PoseFrame['metadata'] }));
}
const statuses = (tracker: MultiPersonTracker, input: PoseFrame[]) => input.map((f) => tracker.update(f).persons[0]?.trackStatus);
/** The suggested opt-in setting (upstream_min_evidence 0.5; the default is off). */
const gated = (extra: TrackerOptionsInput = {}) => new MultiPersonTracker({ upstream_min_evidence: 0.5, ...extra });

describe('held evidence (upstream_min_evidence)', () => {
  it('is off by default: a tracker built with defaults never holds an id with evidence, however weak', () => {
    const tracker = new MultiPersonTracker();
    expect(statuses(tracker, frames([0.01, 0, null, 0.02, 0]))).toEqual(Array(5).fill('active'));
    expect(tracker.tracks()).toHaveLength(1);
  });

  it('holds an id back (tentative, not listed, no transitions) until the mean of its evidence reaches the bar, then shows it once', () => {
    const tracker = gated();
    // Mean of 0.2, 0.2, 0.2, then 1.4: (0.6 + 1.4) / 4 = 0.5 on the 4th estimate.
    const out = statuses(tracker, frames([0.2, 0.2, 0.2, 1.4, 0.1]));
    expect(out).toEqual(['tentative', 'tentative', 'tentative', 'active', 'active']);
    const changes = tracker.takeTransitions();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ from: 'tentative', to: 'active', reason: 'confirmed', timestamp: 600 });
    expect(tracker.tracks()).toHaveLength(1);
  });

  it('an id that never reaches the bar is never shown and reports nothing, not even when it ends', () => {
    const tracker = gated();
    const input = frames([0.3, null, 0.4, 0.3, 0.2]);
    expect(statuses(tracker, input)).toEqual(Array(5).fill('tentative'));
    expect(tracker.update({ ...input[4], timestamp: 1200, persons: [] }).persons).toEqual([]);
    expect(tracker.tracks()).toEqual([]);
    expect(tracker.activeCount()).toBe(0);
    tracker.finish();
    expect(tracker.takeTransitions()).toEqual([]);
  });

  it('shows a strong id at once', () => {
    expect(statuses(gated(), frames([2.5, 0.1]))).toEqual(['active', 'active']);
  });

  it('the mean is over the last window only: weak estimates older than upstream_evidence_window_s leave it', () => {
    // 0.3 for 10 s (held), then 0.6: shown once the window holds enough of the 0.6 estimates.
    const input = frames([...Array(50).fill(0.3), ...Array(50).fill(0.6)]);
    const out = statuses(gated({ upstream_evidence_window_s: 10 }), input);
    const shownAt = out.indexOf('active');
    // Since birth the mean only reaches 0.5 after 100 estimates (never here); over the last 10 s it does once 2/3 are 0.6.
    expect(shownAt).toBeGreaterThan(50);
    expect(shownAt).toBeLessThan(90);
    expect(out.slice(0, shownAt).every((s) => s === 'tentative')).toBe(true);
    const short = statuses(gated({ upstream_evidence_window_s: 2 }), input).indexOf('active');
    expect(short).toBeLessThan(shownAt);
  });

  it('once shown, stays shown however weak its evidence becomes', () => {
    const out = statuses(gated(), frames([1, ...Array(80).fill(0), null, null]));
    expect(out.every((s) => s === 'active')).toBe(true);
  });

  it('never holds back detections without evidence (a bring-your-own estimator), nor anyone when off (0, the default)', () => {
    expect(statuses(gated(), frames([undefined, undefined, undefined]))).toEqual(['active', 'active', 'active']);
    expect(statuses(new MultiPersonTracker({ upstream_min_evidence: 0 }), frames([0.1, 0, null]))).toEqual(['active', 'active', 'active']);
    // Untracked detections without evidence are tracked as before: tentative for tracking_min_hits, then active.
    const own = gated({ tracking_min_hits: 2 });
    const bare = frames([undefined, undefined]).map((f) => ({ ...f, persons: f.persons.map((p) => ({ ...p, trackId: null, trackStatus: undefined })) }));
    expect(statuses(own, bare)).toEqual(['tentative', 'active']);
  });

  it('a held id keeps what it gathered, weak estimates included, when the estimator loses the person and finds them again under a new id', () => {
    const tracker = gated();
    const input: PoseFrame[] = [0.1, 0.1, 0.1, undefined, 0.9].map((e, i) => ({
      timestamp: i * 200, frameId: i, environmentId: 'room', processingTimeMs: 0, metadata: {} as PoseFrame['metadata'],
      persons: e === undefined ? [] : [upstreamPerson(i < 3 ? 7 : 9, 2 + 0.05 * i, e)],
    }));
    const out = input.map((f) => tracker.update(f).persons[0]);
    // Re-identified as the same id, still held: (0.3 + 0.9) / 4 = 0.3 (as a new id, 0.9 alone would show it).
    expect(out[4]).toMatchObject({ trackId: out[0].trackId, trackStatus: 'tentative' });
    expect(statuses(gated(), frames([0.9]))).toEqual(['active']);
  });
});
