import { describe, expect, it } from 'vitest';
import { fitLogistic, pickFeatures, predictLogistic } from '../index.js';

describe('fitLogistic', () => {
  it('separates two classes and weighs them equally whatever their counts', () => {
    const rows: number[][] = [];
    const labels: number[] = [];
    for (let i = 0; i < 200; i++) {
      rows.push([Math.sin(i) * 0.5, 1]);
      labels.push(0);
    }
    for (let i = 0; i < 20; i++) {
      rows.push([2 + Math.cos(i) * 0.5, 1]);
      labels.push(1);
    }
    const model = fitLogistic(['x', 'constant'], rows, labels);
    expect(predictLogistic(model, [0, 1])).toBeLessThan(0.1);
    expect(predictLogistic(model, [2, 1])).toBeGreaterThan(0.9);
    expect(predictLogistic(model, [1, 1])).toBeGreaterThan(0.2);
    expect(predictLogistic(model, [1, 1])).toBeLessThan(0.8);
    expect(pickFeatures({ ...model, features: ['constant'] }, ['x', 'constant'], [5, 7])).toEqual([7]);
  });
});
