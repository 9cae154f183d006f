import { describe, expect, it } from 'vitest';
import { addSensingSample, describeSensingHistory, sensingStripBars, summarizeSensing, toSensingSample, type SensingSample } from './sensing-history';
import type { LiveSensing } from './types';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const WINDOW = 5 * 60_000;

function second(n: number, state: string, patch: Partial<LiveSensing> = {}): LiveSensing {
  return {
    timestamp: new Date(T0 + n * 1000).toISOString(),
    environment_id: 'bedroom',
    scope: 'room',
    presence: state !== 'empty',
    state,
    motion: state === 'moving' ? 0.8 : 0.02,
    breathing_bpm: null,
    breathing_reason: 'moving',
    activity: null,
    falls: [],
    source: { estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'live' },
    ...patch,
  };
}

function feed(seconds: [LiveSensing, unknown?][]): SensingSample[] {
  let history: SensingSample[] = [];
  for (const [s, skipped] of seconds) history = addSensingSample(history, toSensingSample(s, skipped), WINDOW);
  return history;
}

describe('the Live view’s sensing history', () => {
  it('sums the seconds a room read present, moving, still and empty, its falls and the seconds the server skipped', () => {
    const seconds: [LiveSensing, unknown?][] = [];
    for (let n = 1; n <= 20; n++) seconds.push([second(n, 'empty')]);
    for (let n = 21; n <= 30; n++) seconds.push([second(n, 'moving', n === 28 ? { falls: [{ timestamp: new Date(T0 + 27_500).toISOString(), confidence: 0.9 }] } : {})]);
    // Seconds 31–34 were skipped for a slow connection: the 35th says so.
    seconds.push([second(35, 'still'), 4]);
    for (let n = 36; n <= 100; n++) seconds.push([second(n, 'still')]);
    const summary = summarizeSensing(feed(seconds));
    expect(summary).toEqual({ seconds: 96, present: 76, empty: 20, still: 66, moving: 10, other: 0, falls: 1, missed: 4 });
    expect(describeSensingHistory(summary, WINDOW)).toBe(
      'last 1 min 36 s: someone present 1 min 16 s · moving 10 s · still 1 min 06 s · empty 20 s · 1 fall · 4 s not received (the connection fell behind; the server skipped them)',
    );
  });

  it('keeps the last window by the seconds’ own times, in order, each second once', () => {
    const seconds: [LiveSensing, unknown?][] = [];
    for (let n = 1; n <= 400; n++) seconds.push([second(n, n > 200 ? 'moving' : 'empty')]);
    // A reconnect delivers a second again, and one arrives late: neither is counted twice or out of order.
    seconds.push([second(400, 'moving')], [second(399, 'moving')]);
    const history = feed(seconds);
    expect(history).toHaveLength(300);
    expect(history[0].t).toBe(T0 + 101_000);
    expect(history.every((s, i) => i === 0 || s.t > history[i - 1].t)).toBe(true);
    const summary = summarizeSensing(history);
    expect(summary).toMatchObject({ seconds: 300, empty: 100, moving: 200 });
    expect(describeSensingHistory(summary, WINDOW)).toMatch(/^last 5 min: someone present 3 min 20 s · moving 3 min 20 s · still 0 s · empty 1 min 40 s · no falls$/);
  });

  it('draws a bar per second (motion high, coloured by state), a hatch where seconds were skipped and a red mark at a fall', () => {
    const history = feed([
      [second(1, 'empty')],
      [second(2, 'moving', { falls: [{ timestamp: new Date(T0 + 1_500).toISOString(), confidence: 0.8 }] })],
      [second(6, 'still'), 3],
    ]);
    const bars = sensingStripBars(history, WINDOW);
    expect(bars.map((b) => b.kind)).toEqual(['second', 'second', 'fall', 'missed', 'second']);
    const [empty, moving, fall, missed, still] = bars;
    expect(empty.height).toBeCloseTo(0.06);
    expect(moving.height).toBeCloseTo(0.8);
    expect(moving.colour).not.toBe(empty.colour);
    expect(fall.colour).toBe('#dc2626');
    // The newest second ends the window; the 3 skipped seconds sit just before it.
    expect(still.x + still.width).toBeCloseTo(1);
    expect(missed.x + missed.width).toBeCloseTo(still.x);
    expect(missed.width).toBeCloseTo(3 / 300);
    expect(sensingStripBars([], WINDOW)).toEqual([]);
    expect(describeSensingHistory(summarizeSensing([]), WINDOW)).toBe('no sensing seconds yet');
  });

  it('ignores a skipped count that is not a positive number and a second without a valid time', () => {
    expect(toSensingSample(second(1, 'still'), 'many').missedBefore).toBe(0);
    expect(toSensingSample(second(1, 'still'), -2).missedBefore).toBe(0);
    expect(addSensingSample([], toSensingSample(second(1, 'still', { timestamp: 'yesterday' }), undefined), WINDOW)).toEqual([]);
  });
});
