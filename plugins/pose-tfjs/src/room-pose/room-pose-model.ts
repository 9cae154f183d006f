import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { setupBackend } from '../backend/backend.js';
import { PoseErrors } from '../errors.js';
import { mulberry32 } from '@wiflow/core';
import { shuffledIndices } from '../training/prng.js';
import { cameraFrame, type VirtualCamera } from '../model/environment.js';
import { RoomPoseChoiceSchema } from './room-pose-choice.js';

/** File names of a room-pose model directory. */
export const ROOM_POSE_JSON = 'room-pose.json';
/** Weights: float32 little-endian, per layer the matrix [in][out] row-major then the bias [out]. */
export const ROOM_POSE_WEIGHTS = 'weights.bin';
/** The model id of the room-trained pose network. */
export const ROOM_POSE_MODEL_ID = 'wiflow-room-pose-v1';

/** The contract of a room-pose model (`room-pose.json`); the PyTorch path writes the same. */
export const RoomPoseSpecSchema = z.object({
  format: z.literal('wiflow-room-pose/1'),
  modelId: z.string().min(1),
  /** The environment it was trained for: the pipeline uses it there only. */
  environmentId: z.string().min(1),
  probe: z.object({ heightsM: z.array(z.number()), offsetsM: z.array(z.tuple([z.number(), z.number()])), packets: z.number().int().positive(), minPacketIntervalS: z.number().min(0) }),
  /** Layer widths from input to output (output 51: 17 joints × x, y offset from the located position and height z, metres). */
  layers: z.array(z.number().int().positive()).min(2),
  featureMean: z.array(z.number()),
  featureStd: z.array(z.number()),
  /** The twin's mean pose relative to the floor position: the network predicts the residual. */
  meanPose: z.array(z.tuple([z.number(), z.number(), z.number()])).length(17),
  /** How it was made: twin pre-training, fine-tuning (labelled seconds), locator used. */
  training: z.record(z.string(), z.unknown()).default({}),
  /** What the room's pipeline emits, chosen on held-out labelled minutes (fallback-protocol.md); absent in models written before the choice: the network. */
  choice: RoomPoseChoiceSchema.optional(),
});

/** A room-pose model's contract. */
export type RoomPoseSpec = z.output<typeof RoomPoseSpecSchema>;

/** A loaded room-pose model: spec, weights (layer by layer) and hash. */
export interface RoomPoseModel {
  spec: RoomPoseSpec;
  weights: { w: Float32Array; b: Float32Array }[];
  /** sha256 of weights.bin then room-pose.json, hex. */
  hash: string;
  directory: string;
}

function hashOf(weights: Buffer, specJson: string): string {
  return createHash('sha256').update(weights).update(specJson).digest('hex');
}

/** Validate a spec's layer list against its feature statistics. */
function checkShapes(spec: RoomPoseSpec, where: string): void {
  if (spec.layers[0] !== spec.featureMean.length || spec.featureMean.length !== spec.featureStd.length) throw PoseErrors.modelInvalid(where, `input width ${spec.layers[0]} ≠ featureMean/featureStd lengths ${spec.featureMean.length}/${spec.featureStd.length}`);
  if (spec.layers.at(-1) !== 51) throw PoseErrors.modelInvalid(where, `output width must be 51 (17 joints × 3), got ${spec.layers.at(-1)}`);
}

/** Read a room-pose model directory; refuses a spec or weight size that does not fit the contract. */
export function loadRoomPoseModel(directory: string): RoomPoseModel {
  const specFile = path.join(directory, ROOM_POSE_JSON), weightsFile = path.join(directory, ROOM_POSE_WEIGHTS);
  if (!existsSync(specFile) || !existsSync(weightsFile)) throw PoseErrors.modelNotFound(directory, `${ROOM_POSE_JSON} and ${ROOM_POSE_WEIGHTS}`);
  const specJson = readFileSync(specFile, 'utf8');
  let raw: unknown;
  try { raw = JSON.parse(specJson); } catch (error) { throw PoseErrors.modelInvalid(directory, `${ROOM_POSE_JSON}: ${(error as Error).message}`); }
  const parsed = RoomPoseSpecSchema.safeParse(raw);
  if (!parsed.success) throw PoseErrors.modelInvalid(directory, `${ROOM_POSE_JSON}: ${parsed.error.issues.slice(0, 4).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const spec = parsed.data;
  checkShapes(spec, directory);
  const bytes = readFileSync(weightsFile);
  const expected = spec.layers.slice(1).reduce((s, out, i) => s + (spec.layers[i] * out + out) * 4, 0);
  if (bytes.length !== expected) throw PoseErrors.modelInvalid(directory, `${ROOM_POSE_WEIGHTS} holds ${bytes.length} bytes, layers ${spec.layers.join('×')} need ${expected}`);
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const weights: RoomPoseModel['weights'] = [];
  let o = 0;
  for (let i = 1; i < spec.layers.length; i++) {
    const n = spec.layers[i - 1] * spec.layers[i];
    weights.push({ w: all.slice(o, o + n), b: all.slice(o + n, o + n + spec.layers[i]) });
    o += n + spec.layers[i];
  }
  return { spec, weights, hash: hashOf(bytes, specJson), directory };
}

/** Write a model (atomically per file) and return it loaded, with its hash. */
export function saveRoomPoseModel(directory: string, spec: RoomPoseSpec, weights: RoomPoseModel['weights']): RoomPoseModel {
  checkShapes(spec, directory);
  mkdirSync(directory, { recursive: true });
  const parts: Buffer[] = [];
  for (const layer of weights) parts.push(Buffer.from(layer.w.buffer, layer.w.byteOffset, layer.w.byteLength), Buffer.from(layer.b.buffer, layer.b.byteOffset, layer.b.byteLength));
  const bytes = Buffer.concat(parts);
  const specJson = `${JSON.stringify(spec, null, 2)}\n`;
  writeFileSync(path.join(directory, `${ROOM_POSE_WEIGHTS}.tmp`), bytes);
  writeFileSync(path.join(directory, `${ROOM_POSE_JSON}.tmp`), specJson);
  renameSync(path.join(directory, `${ROOM_POSE_WEIGHTS}.tmp`), path.join(directory, ROOM_POSE_WEIGHTS));
  renameSync(path.join(directory, `${ROOM_POSE_JSON}.tmp`), path.join(directory, ROOM_POSE_JSON));
  return { spec, weights: weights.map((l) => ({ w: Float32Array.from(l.w), b: Float32Array.from(l.b) })), hash: hashOf(bytes, specJson), directory };
}

/**
 * The skeleton of one person: 17 × [x, y, z] in the room frame, from the probe features and the
 * located floor position. Plain loops: the network is a few dense layers, and one person's
 * forward pass is ~60 k multiply-adds (cheaper than a TF.js call's overhead).
 */
export function predictSkeleton(model: RoomPoseModel, features: ArrayLike<number>, position: { x: number; y: number }): number[][] {
  const { spec, weights } = model;
  let x = new Float32Array(spec.layers[0]);
  for (let i = 0; i < x.length; i++) x[i] = (features[i] - spec.featureMean[i]) / spec.featureStd[i];
  weights.forEach((layer, li) => {
    const nIn = spec.layers[li], nOut = spec.layers[li + 1];
    const y = Float32Array.from(layer.b);
    for (let i = 0; i < nIn; i++) {
      const xi = x[i];
      if (xi === 0) continue;
      const row = i * nOut;
      for (let j = 0; j < nOut; j++) y[j] += xi * layer.w[row + j];
    }
    if (li < weights.length - 1) for (let j = 0; j < nOut; j++) y[j] = Math.max(0, y[j]);
    x = y;
  });
  return spec.meanPose.map((m, j) => [position.x + m[0] + x[3 * j], position.y + m[1] + x[3 * j + 1], m[2] + x[3 * j + 2]]);
}

/** Labelled training rows: features and the 51 targets (joint offsets from the located position and heights, metres). */
export interface RoomPoseRows {
  features: Float32Array;
  targets: Float32Array;
  count: number;
  width: number;
  /**
   * 2D-only labels (COCO keypoints from the room's camera, no 3D): the loss projects the
   * predicted skeleton through `camera` and compares pixels; `targets` is not used.
   */
  labels2d?: {
    camera: VirtualCamera;
    /** count × [x, y]: the located floor position the skeleton is placed at. */
    positions: Float32Array;
    /** count × 17 × [u, v] pixels. */
    keypoints: Float32Array;
    /** count × 17: 1 where the joint is labelled. */
    visible: Float32Array;
  };
}

/** Options of `fitRoomPose`. */
export interface FitOptions {
  epochs: number;
  learningRate: number;
  seed: number;
  batchSize?: number;
  /** Hidden widths for a fresh network (ignored when `from` is given). */
  hidden?: number[];
  /** Fine-tune: start from this model's weights, feature statistics and mean pose. */
  from?: RoomPoseModel;
  onEpoch?: (epoch: number, loss: number) => void;
}

/**
 * Train (or fine-tune) the network on rows with TF.js: L1 on the residual against the mean pose
 * (a mean per-joint, per-axis error in metres, close to what MPJPE punishes, and robust to
 * rows where the locator put the person at the wrong place).
 */
export async function fitRoomPose(rows: RoomPoseRows, base: Omit<RoomPoseSpec, 'layers' | 'featureMean' | 'featureStd' | 'meanPose'>, options: FitOptions): Promise<{ spec: RoomPoseSpec; weights: RoomPoseModel['weights']; finalLoss: number }> {
  await setupBackend();
  if (rows.count === 0) throw PoseErrors.datasetInvalid('no labelled rows to train the room-pose network on');
  // 2D labels say nothing of depth on their own: the twin's model gives the 3D start and the mean pose.
  if (rows.labels2d && !options.from) throw PoseErrors.datasetInvalid('2D-only labels fine-tune a model (the twin\'s); they cannot train one from scratch');
  const width = rows.width;
  let featureMean: number[], featureStd: number[], meanPose: [number, number, number][];
  if (options.from) {
    if (options.from.spec.layers[0] !== width) throw PoseErrors.datasetInvalid(`features are ${width} wide, the model to fine-tune takes ${options.from.spec.layers[0]} (another room layout?)`);
    ({ featureMean, featureStd, meanPose } = options.from.spec);
  } else {
    featureMean = Array(width).fill(0); featureStd = Array(width).fill(0);
    for (let r = 0; r < rows.count; r++) for (let i = 0; i < width; i++) featureMean[i] += rows.features[r * width + i] / rows.count;
    for (let r = 0; r < rows.count; r++) for (let i = 0; i < width; i++) featureStd[i] += (rows.features[r * width + i] - featureMean[i]) ** 2 / rows.count;
    featureStd = featureStd.map((v) => Math.sqrt(v) || 1);
    const m = Array.from({ length: 51 }, () => 0);
    for (let r = 0; r < rows.count; r++) for (let i = 0; i < 51; i++) m[i] += rows.targets[r * 51 + i] / rows.count;
    meanPose = Array.from({ length: 17 }, (_, j) => [m[3 * j], m[3 * j + 1], m[3 * j + 2]] as [number, number, number]);
  }
  const layers = options.from ? options.from.spec.layers : [width, ...(options.hidden ?? [128, 128]), 51];
  const random = mulberry32(options.seed);
  const variables = layers.slice(1).map((out, i) => {
    const nIn = layers[i];
    const from = options.from?.weights[i];
    // He initialisation for a fresh network (ReLU hidden layers); the output layer starts small, so training starts at the mean pose.
    const scale = i === layers.length - 2 ? 0.01 : Math.sqrt(2 / nIn);
    const w = from ? from.w : Float32Array.from({ length: nIn * out }, () => (random() * 2 - 1) * Math.sqrt(3) * scale);
    const b = from ? from.b : new Float32Array(out);
    return { w: tf.variable(tf.tensor2d(w, [nIn, out])), b: tf.variable(tf.tensor1d(b)) };
  });
  const x = new Float32Array(rows.count * width), y = new Float32Array(rows.count * 51);
  for (let r = 0; r < rows.count; r++) {
    for (let i = 0; i < width; i++) x[r * width + i] = (rows.features[r * width + i] - featureMean[i]) / featureStd[i];
    for (let i = 0; i < 51; i++) y[r * 51 + i] = rows.targets[r * 51 + i] - meanPose[(i / 3) | 0][i % 3];
  }
  const forward = (input: tf.Tensor2D) => variables.reduce<tf.Tensor2D>((h, v, i) => {
    const z = tf.add(tf.matMul(h, v.w), v.b) as tf.Tensor2D;
    return i < variables.length - 1 ? tf.relu(z) : z;
  }, input);
  const reprojection = rows.labels2d && reprojectionLoss(rows.labels2d, meanPose);
  const optimizer = tf.train.adam(options.learningRate);
  const batchSize = options.batchSize ?? 64;
  let finalLoss = NaN;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = shuffledIndices(rows.count, random);
    let sum = 0, batches = 0;
    for (let start = 0; start < rows.count; start += batchSize) {
      const idx = order.subarray(start, Math.min(rows.count, start + batchSize));
      const bx = new Float32Array(idx.length * width), by = new Float32Array(idx.length * 51);
      idx.forEach((r, k) => { bx.set(x.subarray(r * width, (r + 1) * width), k * width); by.set(y.subarray(r * 51, (r + 1) * 51), k * 51); });
      const loss = tf.tidy(() => {
        const tx = tf.tensor2d(bx, [idx.length, width]), ty = tf.tensor2d(by, [idx.length, 51]);
        const lossOf = reprojection ? () => reprojection.loss(forward(tx), idx) : () => tf.mean(tf.abs(tf.sub(forward(tx), ty))) as tf.Scalar;
        return optimizer.minimize(lossOf, true, variables.flatMap((v) => [v.w, v.b])) as tf.Scalar;
      });
      sum += (await loss.data())[0];
      loss.dispose();
      batches++;
    }
    finalLoss = sum / Math.max(1, batches);
    options.onEpoch?.(epoch, finalLoss);
  }
  optimizer.dispose();
  reprojection?.dispose();
  const weights = await Promise.all(variables.map(async (v) => ({ w: Float32Array.from(await v.w.data()), b: Float32Array.from(await v.b.data()) })));
  variables.forEach((v) => { v.w.dispose(); v.b.dispose(); });
  return { spec: { ...base, layers, featureMean, featureStd, meanPose }, weights, finalLoss };
}

/**
 * The 2D loss: each predicted joint (residual + mean pose, placed at the located position)
 * projected through the pinhole camera, L1 in pixels against the labelled keypoints, over the
 * labelled joints, divided by the focal length (so it reads as an angle, whatever the image size).
 */
function reprojectionLoss(labels: NonNullable<RoomPoseRows['labels2d']>, meanPose: readonly (readonly number[])[]): { loss: (residual: tf.Tensor2D, rows: Uint32Array) => tf.Scalar; dispose: () => void } {
  const { focal, right, down, forward } = cameraFrame(labels.camera);
  const { width, height, position: c } = labels.camera;
  const axes = tf.tensor2d([0, 1, 2].flatMap((d) => [right[d], down[d], forward[d]]), [3, 3]);
  const loss = (residual: tf.Tensor2D, rows: Uint32Array) => {
    const n = rows.length;
    const base = new Float32Array(n * 51), keypoints = new Float32Array(n * 34), visible = new Float32Array(n * 17);
    rows.forEach((r, k) => {
      const px = labels.positions[2 * r], py = labels.positions[2 * r + 1];
      for (let j = 0; j < 17; j++) {
        base[k * 51 + 3 * j] = px + meanPose[j][0] - c[0];
        base[k * 51 + 3 * j + 1] = py + meanPose[j][1] - c[1];
        base[k * 51 + 3 * j + 2] = meanPose[j][2] - c[2];
      }
      keypoints.set(labels.keypoints.subarray(r * 34, (r + 1) * 34), k * 34);
      visible.set(labels.visible.subarray(r * 17, (r + 1) * 17), k * 17);
    });
    const camera = tf.matMul(tf.add(residual, tf.tensor2d(base, [n, 51])).reshape([n * 17, 3]), axes) as tf.Tensor2D;
    const [across, downward, depth] = tf.split(camera, 3, 1);
    // A joint pushed behind the camera would divide by ~0: the depth is held at 10 cm at least.
    const safeDepth = tf.maximum(depth, 0.1);
    const u = tf.add(tf.mul(tf.div(across, safeDepth), focal), width / 2);
    const v = tf.add(tf.mul(tf.div(downward, safeDepth), focal), height / 2);
    const labelled = tf.tensor2d(keypoints, [n * 17, 2]);
    const [ku, kv] = tf.split(labelled, 2, 1);
    const mask = tf.tensor2d(visible, [n * 17, 1]);
    const error = tf.mul(tf.add(tf.abs(tf.sub(u, ku)), tf.abs(tf.sub(v, kv))), mask);
    return tf.div(tf.sum(error), tf.mul(tf.maximum(tf.sum(mask), 1), focal)) as tf.Scalar;
  };
  return { loss, dispose: () => axes.dispose() };
}
