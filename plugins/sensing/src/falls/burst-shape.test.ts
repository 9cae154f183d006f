import { describe, expect, it } from 'vitest';
import { Prng } from '@wiflow/plugin-sim';
import { eventFeatures, PROFILE_FEATURES, PROFILE_RATE_HZ } from '../index.js';

const SLOTS = 12 * PROFILE_RATE_HZ;
const START = 5 * PROFILE_RATE_HZ;
const LENGTH = 1.5 * PROFILE_RATE_HZ;

/** A 12-s window whose phase streams carry a 4-Hz Doppler burst of 1.5 s with the given envelope (0..1 over the burst). */
function window(envelope: (u: number) => number) {
  const rng = new Prng(21);
  const gains = Float64Array.from({ length: 60 }, () => 0.5 + rng.next());
  const amplitude: Float64Array[] = [];
  const phase: Float64Array[] = [];
  for (let t = 0; t < SLOTS; t++) {
    const u = (t - START) / LENGTH;
    const level = u >= 0 && u < 1 ? envelope(u) : 0;
    const wave = level * Math.sin((2 * Math.PI * 4 * t) / PROFILE_RATE_HZ);
    phase.push(Float64Array.from(gains, (g) => g * wave + 0.01 * (rng.next() - 0.5)));
    amplitude.push(Float64Array.from({ length: 90 }, () => 1 + 0.01 * (rng.next() - 0.5)));
  }
  return { amplitude, phase };
}

const feature = (w: ReturnType<typeof window>, name: string) => eventFeatures(w.amplitude, w.phase, ['p', 's']).features[PROFILE_FEATURES.indexOf(name)];

describe('the shape of the burst (group s)', () => {
  it('tells a movement that speeds up and stops at once (a fall onto the floor) from one that starts at once and slows down', () => {
    const stopsAbruptly = window((u) => u);
    const slowsDown = window((u) => 1 - u);
    expect(feature(stopsAbruptly, 's_rise')).toBeGreaterThan(feature(slowsDown, 's_rise'));
    expect(feature(stopsAbruptly, 's_decay')).toBeLessThan(feature(slowsDown, 's_decay'));
  });

  it('gives the share of fast Doppler: more for a 4-Hz burst than for a 1-Hz one', () => {
    const fast = window(() => 1);
    const rng = new Prng(5);
    const slow = { amplitude: fast.amplitude, phase: fast.phase.map((_, t) => Float64Array.from({ length: 60 }, () => ((t - START) / LENGTH >= 0 && (t - START) / LENGTH < 1 ? Math.sin((2 * Math.PI * 1 * t) / PROFILE_RATE_HZ) : 0) + 0.01 * (rng.next() - 0.5))) };
    expect(feature(fast, 's_fast_share')).toBeGreaterThan(feature(slow, 's_fast_share') + 1);
  });
});
