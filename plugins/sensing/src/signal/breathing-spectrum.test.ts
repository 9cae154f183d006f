import { describe, expect, it } from 'vitest';
import { breathingSpectrumPeak } from '../index.js';

const RATE = 10;

/** `channels` series of 30 s at 10 Hz: a sinusoid at `bpm` with a per-channel phase, plus a little noise. */
function series(bpm: number, channels = 4): Float64Array[] {
  let seed = 3;
  const noise = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (seed / 2_147_483_648 - 0.5) * 0.05;
  };
  return Array.from({ length: channels }, (_, c) => Float64Array.from({ length: 30 * RATE }, (_, i) => Math.sin((2 * Math.PI * bpm * i) / RATE / 60 + c) + noise()));
}

describe('breathingSpectrumPeak', () => {
  it('reads a rate inside the band', () => {
    const estimate = breathingSpectrumPeak(series(15), 300, RATE, 6, 40)!;
    expect(Math.abs(estimate.bpm - 15)).toBeLessThan(0.5);
    expect(estimate.edge).toBe(false);
  });

  it('flags a peak on the band edge whose power comes from below the band (a slow drift), and one from above', () => {
    const slow = breathingSpectrumPeak(series(3), 300, RATE, 6, 40)!;
    expect(slow.bpm).toBeLessThan(7.5);
    expect(slow.edge).toBe(true);
    const fast = breathingSpectrumPeak(series(48), 300, RATE, 6, 40)!;
    expect(fast.bpm).toBeGreaterThan(38);
    expect(fast.edge).toBe(true);
  });
});
