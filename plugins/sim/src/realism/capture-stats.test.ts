import type { CsiFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { bandShapeMotion, breathingDepth, captureRateHz, dopplerStatistics, fallStatistics, realismReport, stillSceneStatistics } from '../index.js';

/** A 1×1×4 capture whose amplitude is `amplitude(t)` on every subcarrier (phases arbitrary). */
function capture(rateHz: number, seconds: number, amplitude: (t: number) => number): CsiFrame[] {
  return Array.from({ length: Math.round(rateHz * seconds) }, (_, n) => {
    const t = n / rateHz;
    const a = amplitude(t);
    return {
      timestamp: t * 1e6, sourceId: 'synthetic', link: { tx: 'a', rx: 'b' }, centerFrequencyHz: 5.32e9, bandwidthHz: 20e6,
      subcarriers: Int16Array.from([-3, -1, 1, 3]), ntx: 1, nrx: 1, nsc: 4,
      csi: { re: Float32Array.from([a, 0, a * Math.SQRT1_2, -a]), im: Float32Array.from([0, a, a * Math.SQRT1_2, 0]) },
      format: 'sim', provenance: 'simulated',
    } as CsiFrame;
  });
}

describe('capture statistics (simulated vs real)', () => {
  it('measure what they say on captures with known answers', () => {
    expect(captureRateHz(capture(20, 5, () => 1))).toBeCloseTo(20, 6);
    // Breathing: 10 % amplitude modulation at 0.25 Hz → RMS depth 0.1 / √2.
    const breathing = capture(10, 64, (t) => 1 + 0.1 * Math.sin(2 * Math.PI * 0.25 * t));
    expect(breathingDepth(breathing).medianDepth).toBeCloseTo(0.1 / Math.SQRT2, 2);
    // A 3 Hz fluctuation: half and 90 % of the power sit at 3 Hz (within one 64-point bin at 20 Hz).
    const doppler = dopplerStatistics(capture(20, 30, (t) => 1 + 0.2 * Math.sin(2 * Math.PI * 3 * t)));
    expect(Math.abs(doppler.medianHz - 3)).toBeLessThanOrEqual(20 / 64);
    // A still scene of slow drift: high autocorrelation, small spread.
    const still = stillSceneStatistics(capture(20, 30, (t) => 1 + 0.05 * Math.sin(2 * Math.PI * 0.05 * t)));
    expect(still.autocorrelationLag1).toBeGreaterThan(0.99);
    expect(still.amplitudeCv).toBeCloseTo(0.05 / Math.SQRT2, 2);
    // A fall: one burst of motion (a second of 30 % fluctuation at 4 Hz) in a quiet capture.
    const fall = fallStatistics(capture(20, 10, (t) => 1 + (t > 5 && t < 6 ? 0.3 * Math.sin(2 * Math.PI * 4 * t) : 0.005 * Math.sin(2 * Math.PI * 0.3 * t))));
    expect(fall.peakOverMedian).toBeGreaterThan(20);
    expect(fall.secondsAboveHalf).toBeLessThanOrEqual(1.5);
  });

  it('band-shape motion ignores a change of the whole band and measures a change of its shape', () => {
    // 30 % of the whole band going up and down (gain, AGC, a body path that changes every subcarrier alike): nothing.
    const gain = bandShapeMotion(capture(20, 10, (t) => 1 + 0.3 * Math.sin(2 * Math.PI * 3 * t)));
    expect(gain.peak).toBeLessThan(1e-6);
    // Two subcarriers up while the other two go down by 0.2 sin(3 Hz): the band's mean stays 1, each stream's std / mean is 0.2 / √2.
    const tilt = capture(20, 10, () => 1).map((f, n) => {
      const x = 0.2 * Math.sin(2 * Math.PI * 3 * (n / 20));
      const a = [1 + x, 1 - x, 1 + x, 1 - x];
      return { ...f, csi: { re: Float32Array.from(a), im: new Float32Array(4) } };
    });
    const shape = bandShapeMotion(tilt);
    expect(shape.median).toBeCloseTo(0.2 / Math.SQRT2, 2);
    expect(shape.peak).toBeCloseTo(0.2 / Math.SQRT2, 2);
  });

  it('the report runs without the real captures and leaves their column empty', async () => {
    const rows = await realismReport(null, async () => { throw new Error('no reads without real captures'); });
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const row of rows) {
      expect(row.real).toBeNull();
      expect(Number.isFinite(row.simulated)).toBe(true);
    }
  }, 60_000);
});
