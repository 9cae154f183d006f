// A goal test of issue 22 (falls from simulated CSI), not met yet: a moving body must change the band shape a
// sensing pipeline reads (each receive chain normalised to its mean, `bandShapeMotion`) well above a still
// person's level, as it does on the real Intel 5300 captures. Real, per second (medians over 5 lying, 100 walking
// and 50 fall files; `node plugins/sim/pilot/real_vs_sim.mjs all`, docs/simulator.md §7): still lying 0.032,
// walking 0.176 (5.5×), the peak second of a fall 0.114 (3.6×). The simulator gives 1.05× for both: its body
// changes a chain's 20 MHz band nearly alike, which the normalisation takes out. The bar here is 3×, below both.
import { describe, expect, it } from 'vitest';
import type { CsiFrame } from '@wiflow/core';
import { Simulator, applyProfile, bandShapeMotion, emptyRoomScenario, fallScenario, stillPersonScenario, validateScenario, type ScenarioInput } from '../index.js';

const GOAL_TESTS = process.env.WIFLOW_GOAL_TESTS === '1';
if (!GOAL_TESTS) console.log('activity-contrast: the real-like motion contrast test is skipped (goal test of issue 22, not met yet: see docs/simulator.md §7); run with WIFLOW_GOAL_TESTS=1');

/** The realism table's simulated radio: Intel 5300 HT20, 1 × 3, 20 packets/s at 5.32 GHz. */
function intel(input: ScenarioInput): ScenarioInput {
  const s: ScenarioInput = { ...applyProfile(input, 'intel5300-ht20', { txAntennas: 1 }), channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 } };
  // A what-if (e.g. the reverberant field, docs/simulator.md §7): WIFLOW_SIM_PROPAGATION is merged into the propagation.
  if (process.env.WIFLOW_SIM_PROPAGATION) s.propagation = { ...(s.propagation ?? {}), ...JSON.parse(process.env.WIFLOW_SIM_PROPAGATION) };
  return s;
}

function frames(input: ScenarioInput, seconds: number, fromS = 0): CsiFrame[] {
  const sim = new Simulator(validateScenario(input), { attachTruth: false });
  const out: CsiFrame[] = [];
  for (const tick of sim.run(seconds)) if (tick.t >= fromS) out.push(...tick.frames);
  return out;
}

describe.skipIf(!GOAL_TESTS)('simulated motion against a still person, as a sensing pipeline reads it', () => {
  it('walking and a fall change the band shape at least 3× a still person does (real: 5.5× and 3.6×)', () => {
    const still = bandShapeMotion(frames(intel(stillPersonScenario({ posture: 'lie', durationS: 60 })), 60, 5)).median;
    const walking = bandShapeMotion(frames(intel({ ...emptyRoomScenario({ durationS: 15 }), people: [{ id: 1, start: { x: 1.5, y: 1 }, loop: true, script: [{ action: 'walk', path: [[4.5, 4]], speed: 1.1 }, { action: 'walk', path: [[1.5, 1]], speed: 1.1 }] }] }), 15)).median;
    const fall = bandShapeMotion(frames(intel(fallScenario({ type: 'forward', lieDurationS: 8 })), 14, 2)).peak;
    expect(walking / still, `walking ${walking.toFixed(3)} vs still ${still.toFixed(3)}`).toBeGreaterThanOrEqual(3);
    expect(fall / still, `fall ${fall.toFixed(3)} vs still ${still.toFixed(3)}`).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
