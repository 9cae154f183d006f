import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { setLoss, setupBackend, SLOT_SIZE } from '../index.js';

describe('permutation-invariant set loss', () => {
  it('does not depend on the order of the predicted slots and picks the best assignment', async () => {
    await setupBackend();
    const P = 3;
    const loss = setLoss(P);
    const pred = tf.randomNormal([4, P, SLOT_SIZE], 0, 1, 'float32', 3);
    const target = tf.tidy(() => {
      const t = tf.randomUniform([4, P, SLOT_SIZE], 0, 1, 'float32', 4).arraySync() as number[][][];
      t.forEach((sample, b) => sample.forEach((slot, s) => { slot[0] = s < (b % 4) ? 1 : 0; }));
      return tf.tensor3d(t);
    });
    const room = tf.tensor2d([[4, 3], [5, 5], [6, 4], [3, 3]]);
    const a = loss(pred, target, room).dataSync()[0];
    const permuted = tf.gather(pred, [2, 0, 1], 1);
    const b = loss(permuted, target, room).dataSync()[0];
    expect(Math.abs(a - b)).toBeLessThan(1e-5);
    // A prediction equal to the target, in any slot order, has only the presence term left.
    const perfect = target.sub(target.slice([0, 0, 0], [-1, -1, 1]).concat(tf.zeros([4, P, SLOT_SIZE - 1]), 2)).add(
      target.slice([0, 0, 0], [-1, -1, 1]).mul(20).sub(10).concat(tf.zeros([4, P, SLOT_SIZE - 1]), 2),
    );
    const exact = loss(tf.gather(perfect, [1, 2, 0], 1), target, room).dataSync()[0];
    expect(exact).toBeLessThan(1e-3);
    expect(a).toBeGreaterThan(exact);
  });

  it('rejects more slots than the exhaustive matching supports', () => {
    expect(() => setLoss(5)).toThrow(/up to 4/);
  });
});
