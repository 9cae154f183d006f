import type { Alert, AnalyticsEvent, SensingFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, SENSE_FALL_RULE, SENSE_INACTIVITY_RULE, SENSE_PRESENCE_RULE, SensingConfigSchema, senseAlertsNode } from '../index.js';
import { syntheticLinkFrames } from '../testing/synthetic-link.js';

const T0 = 1_700_000_000_000;

function frame(second: number, patch: Partial<SensingFrame> = {}): SensingFrame {
  return { time: T0 + (second + 1) * 1000, second, scope: 'room', environmentId: 'flat', link: null, presence: true, state: 'still', motion: 0.05, breathingBpm: 14, breathingReason: null, breathingQuality: 6, activity: null, falls: [], lostFraction: 0, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'replay', ...patch };
}

describe('sense.alerts', () => {
  it('raises a fall event per fall, one alert within the cool-down, and one inactivity event per still stretch', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 40 * 60; s++) frames.push(frame(s, { state: s < 60 ? 'moving' : 'still', motion: s < 60 ? 0.9 : 0.05 }));
    frames[30] = frame(30, { state: 'moving', motion: 0.95, activity: 'fall', falls: [{ time: T0 + 30_500, confidence: 0.97 }] });
    frames[90] = frame(90, { state: 'moving', motion: 0.95, activity: 'fall', falls: [{ time: T0 + 90_500, confidence: 0.96 }] });
    const result = await runNode(senseAlertsNode, { config: { inactivityMinutes: 30, cooldownSeconds: 300 }, inputs: { sensing: frames } });
    expect(result.status).toBe('completed');
    const events = result.outputs.events as AnalyticsEvent[];
    const alerts = result.outputs.alerts as Alert[];
    expect(events.filter((e) => e.type === 'fall_detection').map((e) => [e.timestamp, e.source])).toEqual([[T0 + 30_500, SENSE_FALL_RULE], [T0 + 90_500, SENSE_FALL_RULE]]);
    const inactivity = events.filter((e) => e.type === 'inactivity');
    expect(inactivity).toHaveLength(1);
    expect(inactivity[0]).toMatchObject({ environmentId: 'flat', source: SENSE_INACTIVITY_RULE, metadata: { breathing_bpm: 14, estimator: 'wiflow-sense-v1', provenance: 'replay' } });
    // The still stretch starts at second 91 (after the second fall): 30 minutes later.
    expect(inactivity[0].timestamp - (T0 + 92_000)).toBe(30 * 60_000);
    expect(alerts.map((a) => a.alertType)).toEqual(['fall_detection', 'inactivity']);
    expect(alerts[0].eventId).toBe(events[0].eventId);
  });

  it('raises falls that arrive out of time order in the order they happened: the cool-down keeps the older, at its own time', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 40; s++) frames.push(frame(s, { state: 'moving', motion: 0.8 }));
    // Link B decided its fall (peak at 12.2 s) in second 16, after link A's fall at 14.9 s reached the room in second 15.
    frames[15] = frame(15, { state: 'moving', motion: 0.9, falls: [{ time: T0 + 14_900, confidence: 0.8 }] });
    frames[16] = frame(16, { state: 'moving', motion: 0.9, falls: [{ time: T0 + 12_200, confidence: 0.95 }] });
    const result = await runNode(senseAlertsNode, { config: { cooldownSeconds: 60 }, inputs: { sensing: frames } });
    const falls = (result.outputs.events as AnalyticsEvent[]).filter((e) => e.type === 'fall_detection');
    expect(falls.map((e) => e.timestamp)).toEqual([T0 + 12_200, T0 + 14_900]);
    expect((result.outputs.alerts as Alert[]).map((a) => [a.alertType, a.timestamp, a.eventId])).toEqual([['fall_detection', T0 + 12_200, falls[0]!.eventId]]);
  });

  it('counts one fall once when several room seconds report it, keeping the most confident at its own time', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 30; s++) frames.push(frame(s));
    frames[9] = frame(9, { falls: [{ time: T0 + 5_100, confidence: 0.7 }] });
    frames[10] = frame(10, { falls: [{ time: T0 + 5_600, confidence: 0.9 }] });
    // Another fall 8 s later is its own.
    frames[17] = frame(17, { falls: [{ time: T0 + 13_600, confidence: 0.85 }] });
    const result = await runNode(senseAlertsNode, { config: { cooldownSeconds: 0 }, inputs: { sensing: frames } });
    const falls = (result.outputs.events as AnalyticsEvent[]).filter((e) => e.type === 'fall_detection');
    expect(falls.map((e) => [e.timestamp, e.confidence])).toEqual([[T0 + 5_600, 0.9], [T0 + 13_600, 0.85]]);
    expect((result.outputs.alerts as Alert[]).map((a) => a.timestamp)).toEqual([T0 + 5_600, T0 + 13_600]);
    expect(result.counters?.stats).toMatchObject({ merged_falls: 1, held_falls: 0 });
  });

  it('turns CSI of a person who walked in and stays still into an inactivity alert', async () => {
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'flat', config, models: DEFAULT_SENSING_MODELS, configHash: 'test' });
    const sensing: SensingFrame[] = [];
    for (const f of syntheticLinkFrames([{ kind: 'moving', seconds: 5 }, { kind: 'still', seconds: 70, bpm: 15 }], { rateHz: 20, loss: 0.1, seed: 8 })) sensing.push(...sensor.push(f));
    sensing.push(...sensor.finish());
    const result = await runNode(senseAlertsNode, { config: { inactivityMinutes: 1 }, inputs: { sensing } });
    // The walk ending in stillness may also read as a fall (the fall model's known false alarms, docs/sensing.md).
    const inactivity = (result.outputs.alerts as Alert[]).filter((a) => a.alertType === 'inactivity');
    expect(inactivity).toHaveLength(1);
    expect(inactivity[0].timestamp).toBeGreaterThanOrEqual(T0 + 65_000);
  });

  it('raises a presence_change event when the room empties or fills for presenceMinSeconds, with the room, estimator and provenance', async () => {
    const frames: SensingFrame[] = [];
    for (let s = 0; s < 10; s++) frames.push(frame(s, { presence: false, state: 'empty', motion: 0.01, breathingBpm: null, breathingReason: 'empty' }));
    for (let s = 10; s < 20; s++) frames.push(frame(s, { state: 'moving', motion: 0.8 }));
    for (let s = 20; s < 25; s++) frames.push(frame(s, { presence: false, state: 'empty', motion: 0.01, breathingBpm: null, breathingReason: 'empty' }));
    // A flicker shorter than presenceMinSeconds raises nothing.
    for (let s = 25; s < 27; s++) frames.push(frame(s, { state: 'moving', motion: 0.6 }));
    for (let s = 27; s < 35; s++) frames.push(frame(s, { presence: false, state: 'empty', motion: 0.01, breathingBpm: null, breathingReason: 'empty' }));
    const result = await runNode(senseAlertsNode, { config: { presenceMinSeconds: 3 }, inputs: { sensing: frames } });
    const changes = (result.outputs.events as AnalyticsEvent[]).filter((e) => e.type === 'presence_change');
    expect(changes.map((e) => [e.timestamp, e.metadata.presence, e.source])).toEqual([[T0 + 11_000, true, SENSE_PRESENCE_RULE], [T0 + 21_000, false, SENSE_PRESENCE_RULE]]);
    expect(changes[0]).toMatchObject({ environmentId: 'flat', severity: 'low', metadata: { scope: 'room', link: null, estimator: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay' } });
    expect(result.outputs.alerts ?? []).toEqual([]);
  });

  it('carries the estimator and provenance in its fall alerts', async () => {
    const result = await runNode(senseAlertsNode, { inputs: { sensing: [frame(3, { activity: 'fall', falls: [{ time: T0 + 3500, confidence: 0.9 }] })] } });
    const alerts = result.outputs.alerts as Alert[];
    expect(alerts).toHaveLength(1);
    expect(alerts[0].data).toMatchObject({ confidence: 0.9, estimator: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay', scope: 'room' });
  });

  it('answers what is not a sensing frame with a clear error', async () => {
    const result = await runNode(senseAlertsNode, { inputs: { sensing: [{ nonsense: 1 } as unknown as SensingFrame] } });
    expect(String(result.error)).toMatch(/not a SensingFrame/);
  });
});
