import { describe, expect, it } from 'vitest';
import { Prng } from '@wiflow/plugin-sim';
import { STATE_FEATURES, stateFeatures } from './state-change.js';

const RATE = 20;
const SLOTS = 12 * RATE;
const PEAK = 6 * RATE;

/** A 12-s window of 90 amplitude streams: one still channel before the peak, `after` from 1 s past it, noise 2 %, a gain per slot. */
function window(before: Float64Array, after: Float64Array, options: { gains?: boolean; noiseAfter?: number } = {}) {
  const rng = new Prng(3);
  const gains = new Prng(4);
  const amplitude: Float64Array[] = [];
  const phase: Float64Array[] = [];
  for (let t = 0; t < SLOTS; t++) {
    const state = t < PEAK + RATE ? before : after;
    const noise = t > PEAK ? (options.noiseAfter ?? 0.02) : 0.02;
    const gain = options.gains ? 0.5 + 1.5 * gains.next() : 1;
    amplitude.push(state.map((v) => gain * v * (1 + noise * (rng.next() - 0.5))));
    phase.push(Float64Array.from({ length: 60 }, () => 0.05 * (rng.next() - 0.5)));
  }
  return { amplitude, phase };
}

const named = (values: number[]) => Object.fromEntries(STATE_FEATURES.map((n, i) => [n, values[i]]));

describe('state change across an event', () => {
  const rng = new Prng(9);
  const standing = Float64Array.from({ length: 90 }, () => 0.5 + rng.next());
  const lying = standing.map((v) => v * (0.8 + 0.4 * rng.next()));

  it('tells a channel that ends in another still state from one that returns to where it was', () => {
    const features = (w: ReturnType<typeof window>) => named(stateFeatures(w.amplitude, w.phase, PEAK, RATE));
    const moved = features(window(standing, lying));
    const back = features(window(standing, standing));
    expect(moved.s_amp_shift).toBeGreaterThan(back.s_amp_shift + 2);
    expect(moved.s_amp_shift_sq).toBeCloseTo(moved.s_amp_shift ** 2, 9);
  });

  it("does not depend on the card's gain from packet to packet", () => {
    const plain = window(standing, lying);
    const gained = window(standing, lying, { gains: true });
    const a = stateFeatures(plain.amplitude, plain.phase, PEAK, RATE);
    const b = stateFeatures(gained.amplitude, gained.phase, PEAK, RATE);
    expect(b[0]).toBeCloseTo(a[0], 6);
  });

  it('sees movement going on after the event (a squat rising again) against a still end', () => {
    const still = window(standing, standing);
    const busy = window(standing, standing, { noiseAfter: 0.2 });
    expect(named(stateFeatures(busy.amplitude, busy.phase, PEAK, RATE)).s_amp_still_after).toBeGreaterThan(named(stateFeatures(still.amplitude, still.phase, PEAK, RATE)).s_amp_still_after + 1.5);
  });

  it('reads an event at the very end of the window from the last slots instead of nothing', () => {
    const w = window(standing, lying);
    for (const v of stateFeatures(w.amplitude, w.phase, SLOTS - 2, RATE)) expect(Number.isFinite(v)).toBe(true);
  });
});
