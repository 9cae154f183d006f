import * as tf from '@tensorflow/tfjs';
import { SLOT_SIZE } from '../model/contract.js';

/** Weights of the loss terms. */
export interface LossWeights {
  presence: number;
  position: number;
  keypoints: number;
}

/** Defaults: metres and a logistic term on similar scales. */
export const DEFAULT_LOSS_WEIGHTS: LossWeights = { presence: 1, position: 2, keypoints: 2 };

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  const out: number[][] = [];
  for (const rest of permutations(n - 1)) for (let i = 0; i <= rest.length; i++) out.push([...rest.slice(0, i), n - 1, ...rest.slice(i)]);
  return out;
}

/**
 * Permutation-invariant set loss: a cost for every (predicted slot, true slot) pair, then
 * the cheapest one-to-one assignment per sample, found exactly by scoring every
 * permutation in one matrix product (maxPersons ≤ 4 → at most 24; the same optimum
 * Hungarian matching finds, and differentiable through the chosen assignment).
 * Pair cost: logistic presence loss, plus, when the true slot holds a person, L1 floor
 * position error in metres (room fractions × room size) and mean L1 keypoint error.
 * `roomSize` is `[batch, 2]` (width, depth in metres).
 */
export function setLoss(maxPersons: number, weights: LossWeights = DEFAULT_LOSS_WEIGHTS) {
  if (maxPersons > 4) throw new Error(`the permutation set loss supports up to 4 person slots, got ${maxPersons}`);
  const perms = permutations(maxPersons);
  const select = new Float32Array(maxPersons * maxPersons * perms.length);
  perms.forEach((perm, p) => perm.forEach((j, i) => { select[(i * maxPersons + j) * perms.length + p] = 1; }));
  const selection = tf.keep(tf.tensor2d(select, [maxPersons * maxPersons, perms.length]));
  return (predicted: tf.Tensor, target: tf.Tensor, roomSize: tf.Tensor): tf.Scalar =>
    tf.tidy(() => {
      const batch = predicted.shape[0]!;
      const pred = predicted.reshape([batch, maxPersons, 1, SLOT_SIZE]);
      const truth = target.reshape([batch, 1, maxPersons, SLOT_SIZE]);
      const logit = pred.slice([0, 0, 0, 0], [-1, -1, -1, 1]).squeeze([3]);
      const present = truth.slice([0, 0, 0, 0], [-1, -1, -1, 1]).squeeze([3]);
      const presenceCost = tf.relu(logit).sub(logit.mul(present)).add(tf.log1p(tf.exp(tf.abs(logit).neg())));
      const scale = roomSize.reshape([batch, 1, 1, 2]);
      const positionError = pred.slice([0, 0, 0, 1], [-1, -1, -1, 2]).sub(truth.slice([0, 0, 0, 1], [-1, -1, -1, 2])).mul(scale).abs().sum(3);
      const keypointError = pred.slice([0, 0, 0, 3], [-1, -1, -1, 51]).sub(truth.slice([0, 0, 0, 3], [-1, -1, -1, 51])).abs().mean(3);
      const cost = presenceCost.mul(weights.presence).add(present.mul(positionError.mul(weights.position).add(keypointError.mul(weights.keypoints))));
      const totals = cost.reshape([batch, maxPersons * maxPersons]).matMul(selection);
      return totals.min(1).mean().div(maxPersons) as tf.Scalar;
    });
}
