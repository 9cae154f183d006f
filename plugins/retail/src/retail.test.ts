import { describe, expect, it } from 'vitest';
import type { AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { observeTruth, type SceneSpec } from '@wiflow/analytics-common';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import { MultiPersonTracker } from '@wiflow/plugin-tracker';
import { runNode } from '@wiflow/core/testing';
import { RetailAnalyzer, computeRetailMetrics, retailNode, type RetailOptionsInput } from './index.js';

const ROOM: [number, number] = [10, 6];
const zones = [
  { id: 'entrance', name: 'Entrance', polygon: [[0, 0], [2, 0], [2, 6], [0, 6]] as [number, number][] },
  { id: 'display', name: 'Display', polygon: [[3, 0], [6, 0], [6, 3], [3, 3]] as [number, number][] },
  { id: 'fitting', name: 'Fitting rooms', polygon: [[7, 0], [10, 0], [10, 3], [7, 3]] as [number, number][] },
  { id: 'checkout', name: 'Checkout', polygon: [[7, 3.6], [10, 3.6], [10, 6], [7, 6]] as [number, number][] },
];
const options: RetailOptionsInput = { zones, funnel: ['entrance', 'display', 'fitting', 'checkout'], zone_capacity: { display: 1 } };

// Three shoppers with known paths (the truth):
// A: entrance 5 s → display 20 s → fitting 30 s → checkout 10 s → leaves (whole funnel).
// B: entrance 5 s → display 10 s → leaves (two stages).
// C: entrance 5 s → walks along y = 3.3 between the zones → checkout 15 s → leaves (checkout out of funnel order).
const scene: SceneSpec = {
  durationS: 150, rateHz: 5, people: [
    { id: 1, script: [{ action: 'enter', at: [0.3, 3] }, { action: 'walk', path: [[1, 3]] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[4.5, 1.5]] }, { action: 'stand', duration: 20 },
      { action: 'walk', path: [[8.5, 1.5]] }, { action: 'stand', duration: 30 }, { action: 'walk', path: [[8.5, 4.8]] }, { action: 'stand', duration: 10 }, { action: 'walk', path: [[6.5, 3.3], [2.5, 3.3], [0.3, 3.3]] }, { action: 'leave' }] },
    { id: 2, script: [{ action: 'absent', duration: 10 }, { action: 'enter', at: [0.3, 2] }, { action: 'walk', path: [[1, 2]] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[4.5, 1]] }, { action: 'stand', duration: 10 },
      { action: 'walk', path: [[2.5, 3.3], [0.3, 3.3]] }, { action: 'leave' }] },
    { id: 3, script: [{ action: 'absent', duration: 20 }, { action: 'enter', at: [0.3, 4.5] }, { action: 'walk', path: [[1, 4.5]] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[2.5, 3.3], [6.5, 3.3], [8.5, 5]] }, { action: 'stand', duration: 15 },
      { action: 'walk', path: [[6.5, 5.5], [0.3, 5.5]] }, { action: 'leave' }] },
  ],
};

function trackedFrames(seed = 1): PoseFrame[] {
  const tracker = new MultiPersonTracker();
  return observeTruth(simulatorTruth(scene, ROOM), { seed, noise: { room: ROOM } }).map((f) => tracker.update(f));
}

describe('retail visits when identities flicker', () => {
  /** Frames at 4 Hz of people standing still: [x, y, trackId per stretch of frames]. */
  const standing = (people: { x: number; y: number; ids: [number, number, number][] }[], seconds: number): PoseFrame[] =>
    Array.from({ length: seconds * 4 }, (_, i) => ({
      timestamp: 1_700_000_000_000 + i * 250, frameId: i, environmentId: 'shop', processingTimeMs: 0,
      persons: people.flatMap((p) => p.ids.filter(([from, to]) => i >= from && i < to).map(([, , trackId]) => ({
        id: 0, trackId, trackStatus: 'active' as const, confidence: 0.9, keypoints: [], keypoints3d: [], boundingBox: { x: 0, y: 0, width: 0, height: 0 }, position: { x: p.x, y: p.y }, densePose: null, activity: null,
      }))),
      metadata: { modelId: 'test', modelHash: null, modelVersion: '0', processingMode: 'job', provenance: 'simulated', csiQuality: null, linkCount: 1, pipeline: 'test' },
    }) as unknown as PoseFrame);

  it('one person whose track id changes after a moment unseen is one visit; two people are two', () => {
    // Customer at (2, 2): track 1 for 15 s, unseen 2 s, then track 5 half a metre away; customer at (8, 5): track 2 all along.
    const frames = standing([{ x: 2, y: 2, ids: [[0, 60, 1], [68, 180, 5]] }, { x: 8, y: 5, ids: [[0, 180, 2]] }], 45);
    frames.slice(68).forEach((f) => (f.persons[0].position = { x: 2.5, y: 2 }));
    expect(computeRetailMetrics(frames, {}).metrics.traffic.total_visitors).toBe(2);
    // Without continuation every new id is a new visitor (what users saw before: 10 visitors for 3).
    expect(computeRetailMetrics(frames, { visit_continuation_seconds: 0 }).metrics.traffic.total_visitors).toBe(3);
  });

  it('a person shown for a moment is not a visitor (min_visit_seconds)', () => {
    // Track 3 appears for 1 s beside two customers who stay: a phantom, not a third visitor.
    const frames = standing([{ x: 2, y: 2, ids: [[0, 120, 1]] }, { x: 8, y: 5, ids: [[0, 120, 2]] }, { x: 5, y: 1, ids: [[20, 24, 3]] }], 30);
    const m = computeRetailMetrics(frames, {}).metrics.traffic;
    expect([m.total_visitors, m.unique_visitors]).toEqual([2, 2]);
    expect(computeRetailMetrics(frames, { min_visit_seconds: 0 }).metrics.traffic.total_visitors).toBe(3);
    // The estimator's extra tracks in the validation shops lived 3-10 s beside real visitors
    // (plugins/tracker/pilot/identity-findings.md): a 6 s track is not a visitor either; a
    // customer who stays 12 s is.
    const ghost = standing([{ x: 2, y: 2, ids: [[0, 120, 1]] }, { x: 5, y: 1, ids: [[20, 44, 3]] }, { x: 8, y: 5, ids: [[60, 108, 4]] }], 30);
    expect(computeRetailMetrics(ghost, {}).metrics.traffic.total_visitors).toBe(2);
    expect(computeRetailMetrics(ghost, { min_visit_seconds: 3 }).metrics.traffic.total_visitors).toBe(3);
  });

  it('a new id far from anyone who left, or long after, is a new visitor', () => {
    const far = standing([{ x: 2, y: 2, ids: [[0, 60, 1]] }, { x: 8, y: 5, ids: [[68, 180, 5]] }], 45);
    expect(computeRetailMetrics(far, {}).metrics.traffic.total_visitors).toBe(2);
    const late = standing([{ x: 2, y: 2, ids: [[0, 60, 1], [120, 180, 5]] }], 45);
    expect(computeRetailMetrics(late, {}).metrics.traffic.total_visitors).toBe(2);
  });
});

describe('retail analytics on a simulated store', () => {
  const frames = trackedFrames();
  it('counts visitors, the funnel in order, dwell per zone and the peak hour', () => {
    const m = computeRetailMetrics(frames, options).metrics;
    expect(m.traffic.unique_visitors).toBe(3);
    expect(m.traffic.total_visitors).toBe(3);
    expect(m.traffic.peak_hour).toBe('00:00');
    expect(m.traffic.peak_count).toBe(3);
    expect(m.conversion_funnel).toEqual({ Entrance: 3, Display: 2, 'Fitting rooms': 1, Checkout: 1 });
    const byId = Object.fromEntries(m.zones.map((z) => [z.zone_id, z]));
    expect(byId.display.visitor_count).toBe(2);
    expect(byId.checkout.visitor_count).toBe(2); // C was there, out of funnel order
    // Display: A ~20 s + B ~10 s standing (plus walking inside): mean ≈ 15–20 s.
    expect(byId.display.avg_dwell_time_minutes * 60).toBeGreaterThan(13);
    expect(byId.display.avg_dwell_time_minutes * 60).toBeLessThan(24);
    expect(byId.fitting.avg_dwell_time_minutes * 60).toBeGreaterThan(28);
    expect(byId.fitting.avg_dwell_time_minutes * 60).toBeLessThan(36);
    expect(byId.display.conversion_rate).toBeCloseTo(2 / 3, 2);
    expect(byId.fitting.conversion_rate).toBeCloseTo(1 / 2, 2);
    expect(m.heat_map.high_traffic_areas[0].intensity).toBe(1);
    expect(m.heat_map.grid.person_seconds.flat().reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
  });

  it('emits zone entries and exits with dwell, and a capacity alert once per cool-down', () => {
    const analyzer = new RetailAnalyzer(options);
    const events: AnalyticsEvent[] = [];
    const alerts = [];
    for (const f of frames) {
      const out = analyzer.update(f);
      events.push(...out.events);
      alerts.push(...out.alerts);
    }
    const exits = events.filter((e) => e.type === 'zone_exit' && e.metadata.zone_id === 'fitting');
    expect(exits).toHaveLength(1);
    expect(exits[0].metadata.dwell_seconds as number).toBeGreaterThan(28);
    // A (20 s) and B (10 s) overlap at the display between 22 s and 32 s or so.
    expect(alerts.filter((a) => a.alertType === 'zone_over_capacity')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'zone_entry' && e.metadata.funnel_stage === 'Checkout')).toHaveLength(0); // stage names are ids in events
    expect(events.filter((e) => e.type === 'zone_entry' && e.metadata.funnel_stage === 'checkout')).toHaveLength(1);
  });

  it('runs as a node and validates its options', async () => {
    const result = await runNode(retailNode, { inputs: { poses: frames }, config: options as Record<string, unknown> });
    expect(result.status).toBe('completed');
    expect(result.outputs.metrics.length).toBeGreaterThanOrEqual(1);
    expect(() => new RetailAnalyzer({ zones, funnel: ['nowhere'] })).toThrow(/funnel stage "nowhere"/);
    expect(() => new RetailAnalyzer({ zones: [{ id: 'a', polygon: [[0, 0], [1, 0]] }] })).toThrow(/zones/);
  });
});
