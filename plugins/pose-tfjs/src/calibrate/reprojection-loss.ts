import * as tf from '@tensorflow/tfjs';
import { SLOT_SIZE } from '../model/contract.js';
import type { EnvironmentGeometry } from '../model/environment.js';

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  const out: number[][] = [];
  for (const rest of permutations(n - 1)) for (let i = 0; i <= rest.length; i++) out.push([...rest.slice(0, i), n - 1, ...rest.slice(i)]);
  return out;
}

/**
 * Loss for fine-tuning on 2D camera labels (COCO keypoints) in one room: predicted 3D
 * keypoints are projected through the room's virtual camera inside the graph and compared
 * with the labelled pixels (L1 over labelled joints, in units of the image width), slots
 * matched to labelled people by the cheapest permutation as in training. Depth along the
 * camera rays is not observable from 2D labels, so a distillation term keeps the
 * predictions near the starting model's (`anchor`) with weight `anchorWeight`.
 * Targets: `labels` `[batch, P, 1 + 17 × 3]` = presence, then (x px, y px, labelled 0/1) × 17.
 */
export function reprojectionSetLoss(environment: EnvironmentGeometry, maxPersons: number, anchorWeight = 0.2) {
  const camera = environment.camera;
  const f = [0, 1, 2].map((d) => camera.lookAt[d] - camera.position[d]);
  const fn = Math.hypot(f[0], f[1], f[2]);
  const forward = f.map((v) => v / fn);
  let right = [forward[1], -forward[0], 0];
  const rn = Math.hypot(right[0], right[1]) || 1;
  right = right.map((v) => v / rn);
  const down = [forward[1] * right[2] - forward[2] * right[1], forward[2] * right[0] - forward[0] * right[2], forward[0] * right[1] - forward[1] * right[0]];
  const focal = camera.width / 2 / Math.tan((camera.horizontalFovDeg * Math.PI) / 360);
  const axes = tf.keep(tf.tensor2d([right, down, forward], [3, 3]).transpose());
  const origin = tf.keep(tf.tensor1d(camera.position));
  const perms = permutations(maxPersons);
  const select = new Float32Array(maxPersons * maxPersons * perms.length);
  perms.forEach((perm, p) => perm.forEach((j, i) => { select[(i * maxPersons + j) * perms.length + p] = 1; }));
  const selection = tf.keep(tf.tensor2d(select, [maxPersons * maxPersons, perms.length]));
  const W = environment.room.width, D = environment.room.depth;

  return (predicted: tf.Tensor, labels: tf.Tensor, anchor: tf.Tensor): tf.Scalar =>
    tf.tidy(() => {
      const batch = predicted.shape[0]!;
      const slots = predicted.reshape([batch, maxPersons, SLOT_SIZE]);
      const logit = slots.slice([0, 0, 0], [-1, -1, 1]).reshape([batch, maxPersons, 1]);
      const uv = slots.slice([0, 0, 1], [-1, -1, 2]).mul(tf.tensor1d([W, D]));
      const offsets = slots.slice([0, 0, 3], [-1, -1, 51]).reshape([batch, maxPersons, 17, 3]);
      const floor = tf.concat([uv, tf.zeros([batch, maxPersons, 1])], 2).reshape([batch, maxPersons, 1, 3]);
      const absolute = offsets.add(floor.mul(tf.tensor1d([1, 1, 0])));
      const cam = absolute.sub(origin).reshape([batch * maxPersons * 17, 3]).matMul(axes).reshape([batch, maxPersons, 17, 3]);
      const depth = cam.slice([0, 0, 0, 2], [-1, -1, -1, 1]).maximum(0.05);
      const px = cam.slice([0, 0, 0, 0], [-1, -1, -1, 1]).div(depth).mul(focal).add(camera.width / 2);
      const py = cam.slice([0, 0, 0, 1], [-1, -1, -1, 1]).div(depth).mul(focal).add(camera.height / 2);
      const projected = tf.concat([px, py], 3).reshape([batch, maxPersons, 1, 17, 2]);
      const present = labels.slice([0, 0, 0], [-1, -1, 1]).reshape([batch, 1, maxPersons]);
      const target = labels.slice([0, 0, 1], [-1, -1, 51]).reshape([batch, 1, maxPersons, 17, 3]);
      const targetXY = target.slice([0, 0, 0, 0, 0], [-1, -1, -1, -1, 2]);
      const labelled = target.slice([0, 0, 0, 0, 2], [-1, -1, -1, -1, 1]).reshape([batch, 1, maxPersons, 17]);
      const pixelError = projected.sub(targetXY).abs().sum(4).div(camera.width);
      const keypointCost = pixelError.mul(labelled).sum(3).div(labelled.sum(3).maximum(1));
      const presenceCost = tf.relu(logit).sub(logit.mul(present)).add(tf.log1p(tf.exp(tf.abs(logit).neg())));
      const cost = presenceCost.add(present.mul(keypointCost.mul(4)));
      const totals = cost.reshape([batch, maxPersons * maxPersons]).matMul(selection);
      const setTerm = totals.min(1).mean().div(maxPersons);
      const anchorTerm = predicted.sub(anchor).abs().mean().mul(anchorWeight);
      return setTerm.add(anchorTerm) as tf.Scalar;
    });
}
