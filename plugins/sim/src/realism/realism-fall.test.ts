import { describe, expect, it } from 'vitest';
import { PersonTimeline, fallScenario, forwardKinematics, realismFallCapture, validateScenario } from '../index.js';

/** The person's activity and pelvis position every 1/20 s over [from, to), from the scenario's own timeline (the truth). */
function bodyTrack(timeline: PersonTimeline, from: number, to: number) {
  const out: { t: number; activity: string; x: number; y: number; z: number }[] = [];
  for (let t = from; t < to - 1e-9; t += 0.05) {
    const s = timeline.sample(t);
    const pelvis = s.pose ? forwardKinematics(timeline.dim, s.pose).pelvis : { x: NaN, y: NaN, z: NaN };
    out.push({ t, activity: s.activity, ...pelvis });
  }
  return out;
}

function timelineOf(scenario: Parameters<typeof validateScenario>[0]) {
  const validated = validateScenario(scenario);
  const timeline = new PersonTimeline(validated.people[0], validated.seed);
  const events = timeline.eventsBetween(-1, 60);
  return { timeline, fallStart: events.find((e) => e.type === 'fall_start')!.t, fallEnd: events.find((e) => e.type === 'fall_end')!.t };
}

describe('the realism table\'s fall capture', () => {
  it('holds a person standing still, then the fall and lying, and no walk (like the real fall files)', () => {
    const capture = realismFallCapture();
    const { timeline, fallStart, fallEnd } = timelineOf(capture.scenario);
    expect(capture.seconds).toBe(12);
    expect(capture.standS).toBeGreaterThanOrEqual(2);
    // The fall lies inside the capture, after the stand.
    expect(fallStart - capture.fromS).toBeCloseTo(capture.standS, 6);
    expect(fallEnd).toBeLessThan(capture.fromS + capture.seconds);
    const before = bodyTrack(timeline, capture.fromS, fallStart);
    expect(before.length).toBeGreaterThanOrEqual(capture.standS * 20 - 1);
    for (const s of before) expect(s.activity).toBe('standing');
    // Standing still: the pelvis drifts by postural sway only, not by steps.
    const travel = Math.max(...before.map((s) => Math.hypot(s.x - before[0].x, s.y - before[0].y)));
    expect(travel).toBeLessThan(0.05);
    // Nowhere in the capture does the person walk.
    const whole = bodyTrack(timeline, capture.fromS, capture.fromS + capture.seconds);
    expect(whole.some((s) => s.activity === 'walking')).toBe(false);
    expect(whole.some((s) => s.activity === 'falling')).toBe(true);
  });

  it('leaves fallScenario\'s default as it was: the walk runs straight into the fall', () => {
    const { timeline, fallStart } = timelineOf(fallScenario({ type: 'forward', lieDurationS: 6 }));
    const before = bodyTrack(timeline, fallStart - 0.5, fallStart);
    expect(before.some((s) => s.activity === 'walking')).toBe(true);
  });
});
