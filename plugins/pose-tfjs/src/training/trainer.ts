import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { mulberry32 } from '@wiflow/core';
import { setupBackend } from '../backend/backend.js';
import { PoseErrors } from '../errors.js';
import { buildPoseNetwork, DEFAULT_ARCHITECTURE, type ArchitectureOptions } from '../model/architecture.js';
import { frameFeatureSize, geometryFeatureSize, SLOT_SIZE, type ModelSpec } from '../model/contract.js';
import { fileIOHandler } from '../model/file-io-handler.js';
import { PoseModel } from '../model/pose-model.js';
import { evaluateModel } from '../eval/evaluate.js';
import type { BucketMetrics } from '../eval/metrics.js';
import { DEFAULT_LOSS_WEIGHTS, setLoss, type LossWeights } from './loss.js';
import type { PackedDataset } from './dataset.js';
import { shuffledIndices } from './prng.js';

/** Settings of one training run. */
export interface TrainOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** Seed of initialisation and shuffling: same seed, data and backend → same weights. */
  seed: number;
  /** Checkpoints go here (`latest/`, `best/`, `state.json`); resuming reads them. */
  checkpointDir: string;
  /** Continue from `checkpointDir/latest` when it exists. */
  resume: boolean;
  architecture?: Partial<ArchitectureOptions>;
  lossWeights?: LossWeights;
  /** Stop after this many seconds (the current epoch finishes first). */
  timeBudgetS?: number;
  /** Start from these weights instead of a fresh network (calibration fine-tuning). */
  initialNetwork?: tf.LayersModel;
  /** Called after every batch and every epoch (progress bars, logs). */
  onProgress?: (event: TrainProgress) => void;
}

/** A progress report. */
export interface TrainProgress {
  kind: 'batch' | 'epoch';
  epoch: number;
  epochs: number;
  batch: number;
  batches: number;
  loss: number;
  /** Validation figures after each epoch ('all' bucket). */
  validation?: BucketMetrics;
  samplesPerSecond: number;
}

/** What a finished run reports. */
export interface TrainResult {
  network: tf.LayersModel;
  bestEpoch: number;
  bestValidation: BucketMetrics | null;
  history: { epoch: number; loss: number; validation: BucketMetrics | null; seconds: number }[];
  /** Epochs actually run in this call (a resumed run skips finished ones). */
  epochsRun: number;
  /** True when the time budget ended the run early. */
  stoppedEarly: boolean;
}

interface CheckpointState {
  epoch: number;
  seed: number;
  bestEpoch: number;
  bestScore: number;
  bestValidation: BucketMetrics | null;
  history: TrainResult['history'];
}

function saveOptimizerState(file: string, optimizer: tf.Optimizer): Promise<void> {
  return optimizer.getWeights().then(async (weights) => {
    const { data, specs } = await tf.io.encodeWeights(weights);
    const buffer = Buffer.from(data as ArrayBuffer);
    writeFileSync(`${file}.tmp`, buffer);
    renameSync(`${file}.tmp`, file);
    writeFileSync(`${file}.json`, JSON.stringify(specs));
  });
}

async function loadOptimizerState(file: string, optimizer: tf.Optimizer): Promise<void> {
  const specs = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as tf.io.WeightsManifestEntry[];
  const bytes = readFileSync(file);
  const named = tf.io.decodeWeights(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, specs);
  await optimizer.setWeights(Object.entries(named).map(([name, tensor]) => ({ name, tensor })));
}

/** Score used to choose the best epoch: validation MPJPE, plus a penalty for wrong counts. */
function selectionScore(v: BucketMetrics | null): number {
  if (!v) return Infinity;
  return (v.mpjpeMm ?? 5000) + 1000 * (1 - v.countAccuracy);
}

/**
 * Train the pose network with a permutation-invariant set loss (Adam, cosine learning-rate
 * decay), validating after every epoch, checkpointing `latest/` and `best/` (weights,
 * optimizer moments, state) so an interrupted run resumes where it stopped.
 */
export async function trainPoseModel(spec: ModelSpec, train: PackedDataset, validation: PackedDataset | null, options: TrainOptions): Promise<TrainResult> {
  await setupBackend();
  const architecture = { ...DEFAULT_ARCHITECTURE, seed: options.seed, ...options.architecture };
  const latestDir = path.join(options.checkpointDir, 'latest');
  const bestDir = path.join(options.checkpointDir, 'best');
  const stateFile = path.join(options.checkpointDir, 'state.json');
  mkdirSync(options.checkpointDir, { recursive: true });

  let network: tf.LayersModel;
  let state: CheckpointState = { epoch: 0, seed: options.seed, bestEpoch: -1, bestScore: Infinity, bestValidation: null, history: [] };
  const optimizer = tf.train.adam(options.learningRate);
  if (options.resume && existsSync(stateFile) && existsSync(path.join(latestDir, 'model.json'))) {
    state = JSON.parse(readFileSync(stateFile, 'utf8')) as CheckpointState;
    if (state.seed !== options.seed) throw PoseErrors.checkpointInvalid(options.checkpointDir, `it was trained with seed ${state.seed}, not ${options.seed}`);
    network = await tf.loadLayersModel(fileIOHandler(latestDir));
    if (existsSync(path.join(options.checkpointDir, 'optimizer.bin'))) await loadOptimizerState(path.join(options.checkpointDir, 'optimizer.bin'), optimizer);
  } else {
    network = options.initialNetwork ?? buildPoseNetwork(spec, architecture);
  }
  PoseModel.fromNetwork(spec, network);

  // Explicit variables: the optimizer's moments follow this order, also across a resume.
  const variables = network.trainableWeights.map((w) => w.read() as tf.Variable);
  const loss = setLoss(spec.output.maxPersons, options.lossWeights ?? DEFAULT_LOSS_WEIGHTS);
  const csiWidth = spec.input.frames * frameFeatureSize(spec);
  const geoWidth = geometryFeatureSize(spec);
  const slotWidth = spec.output.maxPersons * SLOT_SIZE;
  const batches = Math.ceil(train.count / options.batchSize);
  const started = Date.now();
  let epochsRun = 0;
  let stoppedEarly = false;

  const csiBatch = new Float32Array(options.batchSize * csiWidth);
  const geoBatch = new Float32Array(options.batchSize * geoWidth);
  const targetBatch = new Float32Array(options.batchSize * slotWidth);
  const roomBatch = new Float32Array(options.batchSize * 2);

  for (let epoch = state.epoch; epoch < options.epochs; epoch++) {
    const epochStart = Date.now();
    // A per-epoch PRNG makes a resumed run shuffle exactly as an uninterrupted one.
    const order = shuffledIndices(train.count, mulberry32(options.seed * 7919 + epoch));
    (optimizer as unknown as { learningRate: number }).learningRate = options.learningRate * 0.5 * (1 + Math.cos((Math.PI * epoch) / options.epochs));
    let lossSum = 0;
    for (let b = 0; b < batches; b++) {
      const n = Math.min(options.batchSize, train.count - b * options.batchSize);
      for (let j = 0; j < n; j++) {
        const i = order[b * options.batchSize + j];
        csiBatch.set(train.csi.subarray(i * csiWidth, (i + 1) * csiWidth), j * csiWidth);
        geoBatch.set(train.geometry.subarray(i * geoWidth, (i + 1) * geoWidth), j * geoWidth);
        targetBatch.set(train.target.subarray(i * slotWidth, (i + 1) * slotWidth), j * slotWidth);
        roomBatch.set(train.roomSize.subarray(i * 2, i * 2 + 2), j * 2);
      }
      const value = tf.tidy(() => {
        const x = tf.tensor3d(csiBatch.subarray(0, n * csiWidth), [n, spec.input.frames, frameFeatureSize(spec)]);
        const g = tf.tensor2d(geoBatch.subarray(0, n * geoWidth), [n, geoWidth]);
        const y = tf.tensor3d(targetBatch.subarray(0, n * slotWidth), [n, spec.output.maxPersons, SLOT_SIZE]);
        const r = tf.tensor2d(roomBatch.subarray(0, n * 2), [n, 2]);
        const cost = optimizer.minimize(() => loss(network.apply([x, g], { training: true }) as tf.Tensor, y, r), true, variables);
        return cost!.dataSync()[0];
      });
      if (!Number.isFinite(value)) throw new Error(`training diverged at epoch ${epoch + 1}, batch ${b + 1} (loss ${value}); lower the learning rate`);
      lossSum += value * n;
      options.onProgress?.({ kind: 'batch', epoch, epochs: options.epochs, batch: b + 1, batches, loss: lossSum / ((b * options.batchSize) + n), samplesPerSecond: ((b * options.batchSize + n) * 1000) / Math.max(1, Date.now() - epochStart) });
    }
    const meanLoss = lossSum / train.count;
    const model = PoseModel.fromNetwork(spec, network);
    const validationFigures = validation && validation.count > 0 ? evaluateModel(model, validation, null).model.all : null;
    const seconds = (Date.now() - epochStart) / 1000;
    state.history.push({ epoch: epoch + 1, loss: meanLoss, validation: validationFigures, seconds });
    state.epoch = epoch + 1;
    epochsRun++;
    await network.save(fileIOHandler(latestDir));
    await saveOptimizerState(path.join(options.checkpointDir, 'optimizer.bin'), optimizer);
    const score = selectionScore(validationFigures);
    if (!validation || score < state.bestScore) {
      state.bestScore = Number.isFinite(score) ? score : state.bestScore;
      state.bestEpoch = epoch + 1;
      state.bestValidation = validationFigures;
      await network.save(fileIOHandler(bestDir));
    }
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2));
    renameSync(`${stateFile}.tmp`, stateFile);
    options.onProgress?.({ kind: 'epoch', epoch, epochs: options.epochs, batch: batches, batches, loss: meanLoss, validation: validationFigures ?? undefined, samplesPerSecond: (train.count * 1000) / Math.max(1, Date.now() - epochStart) });
    if (options.timeBudgetS && (Date.now() - started) / 1000 > options.timeBudgetS && epoch + 1 < options.epochs) {
      stoppedEarly = true;
      break;
    }
  }
  optimizer.dispose();
  const best = existsSync(path.join(bestDir, 'model.json')) ? await tf.loadLayersModel(fileIOHandler(bestDir)) : network;
  if (best !== network) network.dispose();
  return { network: best, bestEpoch: state.bestEpoch, bestValidation: state.bestValidation, history: state.history, epochsRun, stoppedEarly };
}
