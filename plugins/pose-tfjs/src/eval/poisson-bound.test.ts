import { describe, expect, it } from 'vitest';
import { poissonUpper95, ratePerHour } from './poisson-bound.js';

describe('poissonUpper95', () => {
  // Exact one-sided 95 % upper limits of a Poisson mean, χ²(0.95; 2k + 2) / 2, from scipy.stats.chi2.ppf (an independent implementation).
  it.each([
    [0, 2.9957],
    [1, 4.7439],
    [2, 6.2958],
    [3, 7.7537],
    [5, 10.5130],
    [10, 16.9622],
    [50, 63.2871],
  ])('after %i events the bound is %f', (count, bound) => {
    expect(poissonUpper95(count)).toBeCloseTo(bound, 3);
  });

  it('refuses a count that is not a whole number ≥ 0', () => {
    expect(() => poissonUpper95(-1)).toThrow(RangeError);
    expect(() => poissonUpper95(1.5)).toThrow(RangeError);
  });
});

describe('ratePerHour', () => {
  it('0 phantoms in 3 h bounds the rate at 1.0 per hour; in 368 s at 29 per hour', () => {
    expect(ratePerHour(0, 3 * 3600)).toEqual({ perHour: 0, upper95PerHour: expect.closeTo(0.9986, 3) });
    expect(ratePerHour(0, 368).upper95PerHour).toBeCloseTo(29.31, 1);
    expect(ratePerHour(2, 1800)).toEqual({ perHour: 4, upper95PerHour: expect.closeTo(12.5916, 3) });
  });

  it('is null where nothing was observed', () => {
    expect(ratePerHour(0, 0)).toEqual({ perHour: null, upper95PerHour: null });
  });
});
