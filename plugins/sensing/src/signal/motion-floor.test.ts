import { describe, expect, it } from 'vitest';
import { MotionFloor, belowFloor } from './motion-floor.js';

describe('MotionFloor', () => {
  it('reads each input\'s low quantile over the seconds it holds, interpolating as numpy does', () => {
    const floor = new MotionFloor(2, 300);
    for (const v of [5, 1, 4, 2, 3]) floor.push([v, -v]);
    // Sorted 1..5: the 0.25 quantile sits at index 1 (2); of -5..-1 at index 1 (-4); the minimum is the first.
    expect(floor.floor(0.25)).toEqual([2, -4]);
    expect(floor.floor(0)).toEqual([1, -5]);
    floor.push([0, 0]);
    // Six values 0..5: 0.25 × 5 = 1.25, between 1 and 2.
    expect(floor.floor(0.25)[0]).toBeCloseTo(1.25, 12);
  });

  it('gives the order statistic below the quantile without interpolating, where a rule reads whole seconds', () => {
    const floor = new MotionFloor(1, 300);
    for (const v of [0, 1, 2, 3, 4, 5]) floor.push([v]);
    // ⌊0.25 × 5⌋ = 1; interpolated it would be 1.25.
    expect(floor.orderStatistic(0.25)).toEqual([1]);
    expect(floor.orderStatistic(0.1)).toEqual([0]);
  });

  it('forgets seconds older than its window, so a quiet level that has gone stops counting', () => {
    const floor = new MotionFloor(1, 3);
    for (const v of [0, 0, 0]) floor.push([v]);
    expect(floor.floor(0)).toEqual([0]);
    for (const v of [7, 8, 9]) floor.push([v]);
    expect(floor.size).toBe(3);
    expect(floor.floor(0)).toEqual([7]);
  });

  it('is NaN before its first second, and belowFloor subtracts the floor input by input', () => {
    const floor = new MotionFloor(2, 10);
    expect(floor.floor(0.25).every(Number.isNaN)).toBe(true);
    expect(belowFloor([3, 5, 99], [1, 2])).toEqual([2, 3]);
  });
});
