import { describe, expect, it } from 'vitest';
import type { AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { observeTruth, simulateScene, type SceneSpec, NO_OBSERVATION_NOISE } from '@wiflow/analytics-common';
import { MultiPersonTracker } from '@wiflow/plugin-tracker';
import { runNode } from '@wiflow/core/testing';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import { HealthcareMonitor, computeHealthcareMetrics, evaluateFalls, healthcareNode, mobilityScore, type HealthcareOptionsInput } from './index.js';

const T0 = Date.UTC(2026, 0, 1);

/** Tracked, noisy pose frames of a scene; truth from the simulator's people unless 'kinematic'. */
function tracked(spec: SceneSpec, seed = 1, source: 'simulator' | 'kinematic' = 'simulator', noise?: typeof NO_OBSERVATION_NOISE): PoseFrame[] {
  const tracker = new MultiPersonTracker();
  const truth = source === 'simulator' ? [...simulatorTruth(spec)] : simulateScene(spec);
  return observeTruth(truth, { seed, noise }).map((f) => tracker.update(f));
}

function run(frames: PoseFrame[], options: HealthcareOptionsInput = {}) {
  const monitor = new HealthcareMonitor(options);
  const events = new Map<string, AnalyticsEvent>();
  const alerts = [];
  for (const f of frames) {
    const out = monitor.update(f);
    for (const e of out.events) events.set(e.eventId, e);
    alerts.push(...out.alerts);
  }
  return { monitor, events: [...events.values()], alerts };
}

describe('fall detection', () => {
  it('detects a forward fall at the known time, with location, response time and recovery', () => {
    const spec: SceneSpec = { durationS: 60, rateHz: 10, people: [{ id: 1, start: { x: 2, y: 3 }, script: [
      { action: 'walk', path: [[4, 3]], speed: 1 }, { action: 'fall', type: 'forward', lieDuration: 20, getUp: true }, { action: 'stand', duration: 20 },
    ] }] };
    const { events, alerts, monitor } = run(tracked(spec));
    const falls = events.filter((e) => e.type === 'fall_detection');
    expect(falls).toHaveLength(1);
    const fall = falls[0];
    // Truth: the walk of 2 m at 1 m/s ends at t = 2 s, where the fall starts.
    expect(Math.abs(fall.timestamp - (T0 + 2000))).toBeLessThan(1000);
    expect(fall.location!.x).toBeGreaterThan(4.2); // the body lands ahead of the feet
    expect(fall.location!.x).toBeLessThan(5.2);
    expect(fall.metadata.recovery_detected).toBe(true);
    expect(fall.metadata.response_time_seconds as number).toBeGreaterThan(2);
    expect(fall.metadata.response_time_seconds as number).toBeLessThan(5);
    expect(fall.metadata.fall_duration as number).toBeGreaterThan(18);
    expect(fall.severity === 'high' || fall.severity === 'critical').toBe(true);
    expect(alerts.filter((a) => a.alertType === 'fall_detection')).toHaveLength(1);
    expect(alerts[0].eventId).toBe(fall.eventId);
    expect(monitor.falls()[0].recovered).toBe(true);
  }, 30_000);

  it('escalates to critical after a long lie and detects every fall type', () => {
    for (const type of ['backward', 'sideways', 'slump'] as const) {
      const spec: SceneSpec = { durationS: 90, rateHz: 10, people: [{ id: 1, start: { x: 3, y: 3 }, script: [{ action: 'stand', duration: 3 }, { action: 'fall', type, lieDuration: 120, getUp: false }] }] };
      const { events, alerts } = run(tracked(spec, 5), { long_lie_seconds: 60 });
      const falls = events.filter((e) => e.type === 'fall_detection');
      expect(falls, type).toHaveLength(1);
      expect(falls[0].severity).toBe('critical');
      expect(falls[0].metadata.recovery_detected).toBe(false);
      expect(alerts.map((a) => a.severity)).toContain('critical');
    }
  }, 60_000);

  it('raises no fall for sitting down, bending, lying down on a bed or on the floor (simulator motions)', () => {
    const spec: SceneSpec = { durationS: 200, rateHz: 10, people: [{ id: 1, start: { x: 3, y: 3 }, script: [
      { action: 'sit', duration: 10 }, { action: 'stand', duration: 3 }, { action: 'bend', duration: 4 }, { action: 'walk', path: [[1, 1]], speed: 1 },
      { action: 'lie', duration: 40, surfaceHeight: 0.5 }, { action: 'stand', duration: 3 }, { action: 'lie', duration: 40, surfaceHeight: 0 }, { action: 'stand', duration: 10 },
    ] }] };
    const { events } = run(tracked(spec, 9));
    expect(events.filter((e) => e.type === 'fall_detection')).toEqual([]);
  }, 30_000);
});

describe('inactivity, activity minutes, sleep, mobility', () => {
  it('raises inactivity after threshold_minutes without movement, once, and not in an excluded zone', () => {
    const spec: SceneSpec = { durationS: 400, rateHz: 2, people: [{ id: 1, start: { x: 3, y: 3 }, script: [{ action: 'walk', path: [[4, 3]], speed: 1 }, { action: 'sit', duration: 1000 }] }] };
    const frames = tracked(spec, 2, 'kinematic');
    const { events, alerts } = run(frames, { threshold_minutes: 5 });
    const inactivity = events.filter((e) => e.type === 'inactivity');
    expect(inactivity).toHaveLength(1);
    // Sitting began at ~1 s + 1.6 s sit-down; the alert comes about 5 min later.
    expect((inactivity[0].timestamp - T0) / 1000).toBeGreaterThan(299);
    expect((inactivity[0].timestamp - T0) / 1000).toBeLessThan(320);
    expect(alerts.filter((a) => a.alertType === 'inactivity')).toHaveLength(1);
    const excluded = run(frames, { threshold_minutes: 5, inactivity_exclude_zones: [{ id: 'chair', polygon: [[3.5, 2.5], [4.5, 2.5], [4.5, 3.5], [3.5, 3.5]] }] });
    expect(excluded.events.filter((e) => e.type === 'inactivity')).toEqual([]);
  });

  it('counts activity minutes by posture against the scripted durations', () => {
    const spec: SceneSpec = { durationS: 600, rateHz: 2, people: [{ id: 1, start: { x: 1, y: 1 }, script: [
      { action: 'walk', path: [[7, 1], [7, 5], [1, 5], [1, 1], [7, 1]], speed: 1 }, // 26 m: 26 s
      { action: 'stand', duration: 60 }, { action: 'sit', duration: 180 }, { action: 'lie', duration: 300, surfaceHeight: 0.5 },
    ] }] };
    const rec = computeHealthcareMetrics(tracked(spec, 3, 'kinematic'), { period: 'day' });
    const a = rec.metrics.activity_summary;
    expect(a.walking_minutes).toBeGreaterThan(0.3);
    expect(a.walking_minutes).toBeLessThan(0.6);
    expect(a.standing_minutes).toBeGreaterThan(0.8);
    expect(a.standing_minutes).toBeLessThan(1.3);
    expect(a.sitting_minutes).toBeGreaterThan(2.7);
    expect(a.sitting_minutes).toBeLessThan(3.3);
    expect(a.lying_minutes).toBeGreaterThan(4.7);
    expect(a.lying_minutes).toBeLessThan(5.6);
    expect(rec.metrics.fall_events.count).toBe(0);
    expect(rec.period).toBe('day');
    expect(rec.date).toBe('2026-01-01');
    expect(rec.metrics.mobility_score).toBeGreaterThan(0);
  });

  it('measures sleep hours, efficiency and restlessness from a night in bed with turns', () => {
    const spec: SceneSpec = { durationS: 3600, rateHz: 2, people: [{ id: 1, start: { x: 1, y: 1 }, script: [
      { action: 'lie', duration: 1500, surfaceHeight: 0.5 }, { action: 'roll', duration: 4 }, { action: 'lie', duration: 1800, surfaceHeight: 0.5 },
    ] }] };
    // The kinematic generator can turn a lying person over ('roll'; the simulator has no such step).
    const monitor = new HealthcareMonitor({ threshold_minutes: 1e6 });
    for (const f of tracked(spec, 4, 'kinematic')) monitor.update(f);
    const [fig] = monitor.trackFigures();
    expect(fig.sleep.periods).toBe(1);
    expect(fig.sleep.totalSleepHours).toBeGreaterThan(0.85);
    expect(fig.sleep.totalSleepHours).toBeLessThan(1.0);
    expect(fig.sleep.efficiency).toBeGreaterThan(0.9);
    expect(fig.sleep.restlessnessEvents).toBeGreaterThanOrEqual(1);
    expect(fig.sleep.restlessnessEvents).toBeLessThanOrEqual(3);
  }, 30_000);

  it('scores mobility by the documented rule', () => {
    expect(mobilityScore({ walking: 1800, standing: 1800, sitting: 3600, lying: 0 }, 1.0, 4)).toBe(100);
    expect(mobilityScore({ walking: 0, standing: 0, sitting: 3600, lying: 3600 }, null, 0)).toBe(0);
    expect(mobilityScore({ walking: 900, standing: 900, sitting: 5400, lying: 0 }, 0.5, 2)).toBe(Math.round(100 * (0.5 * 0.5 + 0.3 * 0.5 + 0.2 * 0.5)));
  });

  it('rejects bad options and frames with clear errors', () => {
    expect(() => new HealthcareMonitor({ threshold_minutes: -1 })).toThrow(/threshold_minutes/);
    expect(() => new HealthcareMonitor().update({} as PoseFrame)).toThrow(/timestamp/);
  });
});

describe('healthcare.monitor node and fall evaluation', () => {
  it('runs as a node: events, alerts and a metrics record', async () => {
    const spec: SceneSpec = { durationS: 40, rateHz: 10, people: [{ id: 1, start: { x: 2, y: 3 }, script: [{ action: 'stand', duration: 3 }, { action: 'fall', type: 'sideways', lieDuration: 60, getUp: false }] }] };
    const result = await runNode(healthcareNode, { inputs: { poses: tracked(spec) }, config: { report_interval_seconds: 10, allow_ground_truth_poses: true } });
    expect(result.status).toBe('completed');
    expect((result.outputs.events as AnalyticsEvent[]).some((e) => e.type === 'fall_detection')).toBe(true);
    expect(result.outputs.alerts.length).toBeGreaterThanOrEqual(1);
    const last = result.outputs.metrics.at(-1) as { metrics: { fall_events: { count: number } } };
    expect(last.metrics.fall_events.count).toBe(1);
  });

  it('measures sensitivity and false alarms on a small simulated set', () => {
    const r = evaluateFalls({ trialsPerType: 2, dayHours: 0.25 });
    expect(r.truth).toBe('simulator');
    expect(r.trials).toBe(8);
    expect(r.sensitivity).toBeGreaterThanOrEqual(0.75);
    expect(r.dayFalseAlarms).toBe(0);
    expect(r.lieDowns.trials).toBe(2);
  }, 60_000);
});
