import { describe, expect, it } from 'vitest';
import { Prng } from '../index.js';

describe('Prng', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const xs = Array.from({ length: 10 }, () => a.next());
    expect(Array.from({ length: 10 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 10 }, () => c.next())).not.toEqual(xs);
    expect(new Prng('room').next()).toBe(new Prng('room').next());
  });

  it('draws uniforms in [0, 1) and normals with the right moments and tails', () => {
    const p = new Prng(1);
    const n = 100_000;
    let outside = 0;
    let mean = 0;
    let sq = 0;
    let beyond2 = 0;
    let beyond3 = 0;
    for (let i = 0; i < n; i++) {
      const v = p.normal(1, 2);
      mean += v / n;
      sq += (v - 1) ** 2 / n;
      if (Math.abs(v - 1) > 4) beyond2++;
      if (Math.abs(v - 1) > 6) beyond3++;
      const u = p.next();
      if (!(u >= 0 && u < 1)) outside++;
    }
    expect(outside).toBe(0);
    expect(mean).toBeCloseTo(1, 1);
    expect(Math.sqrt(sq)).toBeCloseTo(2, 1);
    // P(|z| > 2) = 4.55 %, P(|z| > 3) = 0.27 %.
    expect(beyond2 / n).toBeGreaterThan(0.041);
    expect(beyond2 / n).toBeLessThan(0.050);
    expect(beyond3 / n).toBeGreaterThan(0.0020);
    expect(beyond3 / n).toBeLessThan(0.0035);
  });

  it('rejects bad seeds and empty picks', () => {
    expect(() => new Prng(Number.NaN)).toThrow(/finite/);
    expect(() => new Prng(1).pick([])).toThrow(/empty/);
  });
});
