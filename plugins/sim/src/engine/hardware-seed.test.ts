import { describe, expect, it } from 'vitest';
import { planDataset, Simulator } from '../index.js';

/** Mean amplitude per antenna pair and subcarrier of an empty room over `seconds` (noise averages out, the installation stays). */
function meanAmplitude(sim: Simulator, seconds: number): Float64Array {
  let sum: Float64Array | null = null;
  let n = 0;
  for (const tick of sim.run(seconds)) {
    for (const frame of tick.frames) {
      const { re, im } = frame.csi;
      sum ??= new Float64Array(re.length);
      // Each packet's profile scaled to unit power: the gain control changes the level, not the shape.
      let power = 0;
      for (let i = 0; i < re.length; i++) power += re[i] ** 2 + im[i] ** 2;
      for (let i = 0; i < sum.length; i++) sum[i] += Math.hypot(re[i], im[i]) / Math.sqrt(power);
      n++;
    }
  }
  return sum!.map((v) => v / n);
}

/** Relative difference of two amplitude profiles (0: the same). */
function difference(a: Float64Array, b: Float64Array): number {
  let d = 0, s = 0;
  for (let i = 0; i < a.length; i++) { d += (a[i] - b[i]) ** 2; s += a[i] ** 2; }
  return Math.sqrt(d / s);
}

describe('Simulator hardwareSeed', () => {
  // A room of the locator's recipe (clutter, Intel 5300 impairments), nobody in it.
  const plan = planDataset({ rooms: 8, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v1', ranges: { receivers: [3, 3], rateHz: 20 } });
  const empty = { ...plan.sessions.find((s) => s.split === 'test')!.scenario, people: [] };

  it('with a new noise seed and the same hardware seed, the empty room looks the same (a reference stays valid)', () => {
    const first = meanAmplitude(new Simulator(empty, { seed: 7 }), 2);
    const sameRadios = meanAmplitude(new Simulator(empty, { seed: 8, hardwareSeed: 7 }), 2);
    const newRadios = meanAmplitude(new Simulator(empty, { seed: 8 }), 2);
    // Noise alone moves the mean little; new clutter and chain phases move it a lot.
    expect(difference(first, sameRadios)).toBeLessThan(0.05);
    expect(difference(first, newRadios)).toBeGreaterThan(4 * difference(first, sameRadios));
  });

  it('a hardware seed equal to the seed gives the same bytes as none', () => {
    const a = [...new Simulator(empty, { seed: 3 }).run(0.2)].flatMap((t) => t.frames.map((f) => [...f.csi.re, ...f.csi.im]));
    const b = [...new Simulator(empty, { seed: 3, hardwareSeed: 3 }).run(0.2)].flatMap((t) => t.frames.map((f) => [...f.csi.re, ...f.csi.im]));
    expect(b).toEqual(a);
  });
});
