import { describe, expect, it } from 'vitest';
import type { AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import { observeTruth } from '@wiflow/analytics-common';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import trackerPlugin, { TRACKER_SERVICE, type TrackerService } from '@wiflow/plugin-tracker';
import healthcarePlugin from './index.js';

describe('flow: untracked poses → tracker.track → healthcare.monitor', () => {
  it('tracks simulated detections and raises the fall of the script', async () => {
    const truth = [...simulatorTruth({ durationS: 40, rateHz: 10, people: [
      { id: 1, start: { x: 2, y: 2 }, script: [{ action: 'walk', path: [[5, 2]], speed: 1 }, { action: 'fall', type: 'backward', lieDuration: 60, getUp: false }] },
      { id: 2, start: { x: 6, y: 5 }, script: [{ action: 'walk', path: [[1, 5], [6, 5]], speed: 0.8 }] },
    ] })];
    const poses: PoseFrame[] = observeTruth(truth, { seed: 11 });
    const runtime = await createTestRuntime({ plugins: [trackerPlugin, healthcarePlugin] });
    const flow = buildFlow(
      { feed: ['test.feed', { input: 'poses' }], track: ['tracker.track', {}], health: ['healthcare.monitor', { allow_ground_truth_poses: true }], events: ['test.collect', { output: 'events' }], tracks: ['test.collect', { output: 'tracks' }] },
      ['feed.out -> track.poses', 'track.poses -> health.poses', 'health.events -> events.in', 'track.tracks -> tracks.in'],
    );
    const result = await runFlow(runtime, flow, { poses }, 60_000);
    expect(result.status).toBe('completed');
    const falls = (result.outputs.events as AnalyticsEvent[]).filter((e) => e.type === 'fall_detection');
    const fallStart = truth.flatMap((f) => f.events).find((e) => e.type === 'fall_start')!;
    expect(falls.length).toBeGreaterThanOrEqual(1);
    expect(Math.abs(falls[0].timestamp - fallStart.time)).toBeLessThan(1500);
    const transitions = result.outputs.tracks as { transition: string }[];
    expect(transitions.filter((t) => t.transition === 'confirmed')).toHaveLength(2);
    expect(runtime.services.get(TRACKER_SERVICE).trackerCount).toBe(0); // unregistered at close
    await runtime.stop();
  }, 60_000);
});
