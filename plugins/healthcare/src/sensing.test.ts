import { describe, expect, it } from 'vitest';
import type { SensingFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import { healthcareNode, SENSING_MOBILITY_RULE, type HealthcareSensingRecord } from './index.js';

const T0 = Date.UTC(2026, 0, 1, 8);

/** One room second as sense.room emits it. */
function second(s: number, patch: Partial<SensingFrame>): SensingFrame {
  return { time: T0 + (s + 1) * 1000, second: s, scope: 'room', environmentId: 'flat', link: null, presence: true, state: 'still', motion: 0.05, breathingBpm: 14, breathingReason: null, breathingQuality: 5, activity: null, falls: [], lostFraction: 0, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'replay', ...patch };
}

/** A morning: empty 2 min, walking 3 min, a fall, 35 min still (breathing), walking 1 min. */
function morning(): SensingFrame[] {
  const frames: SensingFrame[] = [];
  let s = 0;
  for (; s < 120; s++) frames.push(second(s, { presence: false, state: 'empty', motion: 0.02, breathingBpm: null, breathingReason: 'empty' }));
  for (; s < 300; s++) frames.push(second(s, { state: 'moving', motion: 0.8, activity: 'walking', breathingBpm: null, breathingReason: 'moving' }));
  frames.push(second(s++, { state: 'moving', motion: 0.95, activity: 'fall', falls: [{ time: T0 + 300_400, confidence: 0.93 }], breathingBpm: null, breathingReason: 'moving' }));
  for (; s < 303; s++) frames.push(second(s, { state: 'moving', motion: 0.7, activity: 'other', breathingBpm: null, breathingReason: 'moving' }));
  for (; s < 303 + 35 * 60; s++) frames.push(second(s, {}));
  const end = s + 60;
  for (; s < end; s++) frames.push(second(s, { state: 'moving', motion: 0.8, activity: 'walking', breathingBpm: null, breathingReason: 'moving' }));
  return frames;
}

describe('healthcare.monitor on sensing frames', () => {
  it('counts falls, activity, rest and inactivity from the sensing frames, and says what CSI cannot tell', async () => {
    const result = await runNode(healthcareNode, { inputs: { sensing: morning() }, config: { report_interval_seconds: 3600 } });
    expect(result.status).toBe('completed');
    expect(result.outputs.events ?? []).toEqual([]);
    const record = (result.outputs.metrics as HealthcareSensingRecord[]).at(-1)!;
    expect(record.source).toBe('sensing');
    expect(record.estimators).toEqual([{ estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay' }]);
    const m = record.metrics;
    expect(m.fall_events.count).toBe(1);
    // The person lay still after the fall: no movement 3 s or more after it until the walk 35 min later.
    expect(m.fall_events.events[0]).toMatchObject({ timestamp: new Date(T0 + 300_400).toISOString(), confidence: 0.93, environment_id: 'flat', scope: 'room', response_time_seconds: null, location: null, recovery_detected: true, fall_duration: 2103 });
    expect(m.activity_summary.walking_minutes).toBe(4);
    expect(m.activity_summary.empty_minutes).toBe(2);
    expect(m.activity_summary.still_minutes).toBe(35);
    // The shipped estimator reports no posture for a still person: the postures are null, with the reason.
    expect(m.activity_summary.lying_minutes).toBeNull();
    expect(m.activity_summary.sitting_minutes).toBeNull();
    expect(m.activity_summary.posture_reason).toMatch(/no posture/);
    // 35 still minutes ≥ sleep_min_minutes (20): one rest period; the walk after it is not inside it.
    expect(m.sleep_quality).toMatchObject({ periods: 1, total_sleep_hours: 0.58, sleep_efficiency: 1, restlessness_events: 0 });
    expect(m.inactivity_alerts).toBe(1);
    expect(m.breathing).toEqual({ median_bpm: 14, rest_median_bpm: 14, seconds_with_rate: 35 * 60, null_reason: null });
    expect(m.mobility_rule).toBe(SENSING_MOBILITY_RULE);
    // Awake and present: 4 walking minutes + 3 s after the fall; walk starts: 2 (the fall second is not one).
    expect(m.mobility_score).toBe(Math.round(100 * (0.6 * 1 + 0.4 * Math.min(1, 2 / (243 / 3600) / 4))));
    expect((result.counters?.stats as { sensed_falls: number }).sensed_falls).toBe(1);
  });

  it('counts postures when the estimator reports them, and a rest period only from lying or unknown posture', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 25 * 60; s++) frames.push(second(s, { activity: 'sitting' }));
    for (let s = 25 * 60; s < 50 * 60; s++) frames.push(second(s, { activity: 'lying' }));
    const result = await runNode(healthcareNode, { inputs: { sensing: frames } });
    const m = (result.outputs.metrics as HealthcareSensingRecord[]).at(-1)!.metrics;
    expect(m.activity_summary).toMatchObject({ sitting_minutes: 25, lying_minutes: 25, standing_minutes: 0, posture_reason: null });
    expect(m.sleep_quality.periods).toBe(1);
    expect(m.sleep_quality.total_sleep_hours).toBe(Math.round((25 / 60) * 100) / 100);
  });

  it('gives no breathing rate when the frames gave none, and says the most common reason', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 30; s++) frames.push(second(s, { breathingBpm: null, breathingQuality: null, breathingReason: s < 20 ? 'too_short' : 'no_periodicity' }));
    for (let s = 30; s < 40; s++) frames.push(second(s, { presence: false, state: 'empty', breathingBpm: null, breathingReason: 'empty' }));
    const result = await runNode(healthcareNode, { inputs: { sensing: frames } });
    const m = (result.outputs.metrics as HealthcareSensingRecord[]).at(-1)!.metrics;
    expect(m.breathing).toEqual({ median_bpm: null, rest_median_bpm: null, seconds_with_rate: 0, null_reason: 'too_short' });
  });

  it('skips what is not a sensing frame, without failing the flow', async () => {
    const frames = [second(0, {}), { nonsense: true } as unknown as SensingFrame, second(1, {})];
    const result = await runNode(healthcareNode, { inputs: { sensing: frames } });
    expect(result.status).toBe('completed');
    expect((result.counters?.stats as { ignored_sensing_frames: number }).ignored_sensing_frames).toBe(1);
  });

  it('refuses ground-truth poses unless allowed for evaluation', async () => {
    const frame = { timestamp: T0, frameId: 1, environmentId: 'flat', processingTimeMs: 0, persons: [], metadata: { modelId: 'sim-ground-truth', modelHash: '', modelVersion: '1', processingMode: 'simulated', provenance: 'simulated', csiQuality: null, linkCount: 0, pipeline: 'truth' } };
    const result = await runNode(healthcareNode, { inputs: { poses: [frame, frame] } });
    expect(result.status).toBe('completed');
    expect((result.counters?.stats as { ground_truth_frames_refused: number; pose_frames: number })).toMatchObject({ ground_truth_frames_refused: 2, pose_frames: 0 });
  });
});
