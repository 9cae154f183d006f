import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { backendReport } from '../backend/backend.js';
import { meanPose } from '../eval/metrics.js';
import { finaliseModel } from './finalise.js';
import type { ArchitectureOptions } from '../model/architecture.js';
import { POSE_CONTRACT, type ModelSpec } from '../model/contract.js';
import { PoseModel } from '../model/pose-model.js';
import { simulateSplit, type SimModule } from '../sim/pose-dataset.js';
import { DatasetRecipeSchema, type DatasetRecipe } from '../sim/recipe.js';
import { packedSplit } from '../sim/simulated-datasets.js';
import { inputStatistics, type PoseSample } from './dataset.js';
import { trainPoseModel } from './trainer.js';

/** Options of `wiflow train`. */
export interface TrainCommandOptions {
  outDir: string;
  workDir: string;
  epochs: number;
  batchSize: number;
  learningRate: number;
  seed: number;
  rooms: number;
  secondsPerSession: number;
  sessionsPerRoom: number;
  timeBudgetS?: number;
  resume: boolean;
  /** Frames per model input (time bins of a window). */
  frames?: number;
  /** Feature choices of the contract (see ModelSpec input.temporal). */
  temporal?: 'absolute' | 'deviation';
  maxPersons?: number;
  /** Dataset recipe overrides (seed, ranges, window). */
  recipe?: Partial<DatasetRecipe>;
  onProgress?: (phase: string, value: number, total: number, info: string) => void;
  /** The simulator module (default: import @wiflow/plugin-sim). */
  sim?: SimModule;
  /** Network size and heads (defaults: DEFAULT_ARCHITECTURE). */
  architecture?: Partial<ArchitectureOptions>;
}

const fmt = (v: number | null | undefined, digits = 0) => (v === null || v === undefined ? '—' : v.toFixed(digits));

/**
 * The contract a training run will use: sizes from the first simulated training samples,
 * normalisation from their features. Deterministic for a recipe (so a helper process can
 * pre-simulate the validation and test splits into the same cache).
 */
export async function prepareContract(options: Pick<TrainCommandOptions, 'rooms' | 'secondsPerSession' | 'sessionsPerRoom' | 'recipe' | 'frames' | 'temporal' | 'maxPersons' | 'sim'>): Promise<{ recipe: DatasetRecipe; spec: ModelSpec; first: PoseSample[] }> {
  const recipe = DatasetRecipeSchema.parse({ rooms: options.rooms, secondsPerSession: options.secondsPerSession, sessionsPerRoom: options.sessionsPerRoom, ...options.recipe });
  // The contract's sizes and normalisation come from the first simulated training samples.
  const first: PoseSample[] = [];
  for await (const sample of simulateSplit(recipe, { split: 'train', sim: options.sim })) {
    first.push(sample);
    if (first.length >= 150) break;
  }
  if (first.length === 0) throw new Error('the simulator produced no training samples (rooms too few or sessions too short)');
  const w = first[0].windows[0];
  const spec: ModelSpec = {
    contract: POSE_CONTRACT,
    modelId: 'wiflow-pose-v1',
    version: '1.0.0',
    description: 'CSI windows of every link of a room → up to maxPersons people with floor position and COCO-17 3D keypoints; trained on simulated rooms only.',
    input: {
      frames: options.frames ?? 8,
      links: first[0].windows.length,
      antennaPairs: w.ntx * w.nrx,
      subcarriers: w.nsc,
      sampleRateHz: Number((recipe.ranges as { rateHz?: number }).rateHz ?? 100),
      geometryScale: 5,
      phase: recipe.signalChain.sanitize ? 'sanitised' : 'conjugate',
      temporal: options.temporal ?? 'absolute',
    },
    normalisation: { amplitudeMean: 0, amplitudeStd: 1, phaseMean: 0, phaseStd: 1 },
    output: { maxPersons: options.maxPersons ?? 3, presenceThreshold: 0.5 },
    training: {},
  };
  spec.normalisation = inputStatistics(first, spec);
  return { recipe, spec, first };
}

/**
 * The whole `wiflow train`: simulate the recipe's train and validation rooms (cached),
 * derive the input contract and normalisation from the first training samples, train with
 * checkpoints, then write the best weights with their contract and the test-room figures.
 */
export async function trainShippedModel(options: TrainCommandOptions): Promise<{ outDir: string; hash: string; bestEpoch: number; stoppedEarly: boolean; spec: ModelSpec }> {
  const progress = options.onProgress ?? (() => {});
  const { recipe, spec, first } = await prepareContract(options);
  const cacheDir = path.join(options.workDir, 'data');
  const train = await packedSplit(recipe, { split: 'train', sim: options.sim }, spec, cacheDir, (d, t, n) => progress('simulate train', d, t, `${n} samples`), first);
  const validation = await packedSplit(recipe, { split: 'val', sim: options.sim }, spec, cacheDir, (d, t, n) => progress('simulate val', d, t, `${n} samples`));
  const trainingMeanPose = meanPose(train.truths.flat());
  const started = Date.now();
  const result = await trainPoseModel(spec, train, validation, {
    epochs: options.epochs,
    batchSize: options.batchSize,
    learningRate: options.learningRate,
    seed: options.seed,
    checkpointDir: path.join(options.workDir, 'checkpoints'),
    architecture: options.architecture,
    resume: options.resume,
    timeBudgetS: options.timeBudgetS,
    onProgress(e) {
      const v = e.validation;
      const info = `loss ${e.loss.toFixed(4)} | ${Math.round(e.samplesPerSecond)} samples/s${v ? ` | val MPJPE ${fmt(v.mpjpeMm)} mm PCK ${fmt(v.pck02, 3)} count ${fmt(v.countAccuracy, 3)}` : ''}`;
      progress(`epoch ${e.epoch + 1}/${e.epochs}`, e.batch, e.batches, info);
    },
  });
  const finalSpec: ModelSpec = {
    ...spec,
    training: {
      dataset: recipe,
      trainSamples: train.count,
      validationSamples: validation.count,
      trainRooms: train.environments.length,
      validationRooms: validation.environments.length,
      seed: options.seed,
      epochs: options.epochs,
      epochsRun: result.history.length,
      batchSize: options.batchSize,
      learningRate: options.learningRate,
      bestEpoch: result.bestEpoch,
      bestValidation: result.bestValidation,
      history: result.history.map((h) => ({ epoch: h.epoch, loss: Number(h.loss.toFixed(5)), valMpjpeMm: h.validation?.mpjpeMm ?? null, valCountAccuracy: h.validation?.countAccuracy ?? null, seconds: Number(h.seconds.toFixed(1)) })),
      trainingSeconds: Math.round((Date.now() - started) / 1000),
      backend: backendReport()?.backend ?? 'unknown',
      parameters: result.network.countParams(),
      meanPose: trainingMeanPose.map((p) => p.map((v) => Number(v.toFixed(5)))),
      tfjsVersion: tf.version.tfjs,
    },
  };
  const hash = await PoseModel.save(options.outDir, result.network, finalSpec);
  const finished = await finaliseModel({ modelDir: options.outDir, workDir: options.workDir, sim: options.sim, onProgress: options.onProgress });
  return { outDir: options.outDir, hash, bestEpoch: result.bestEpoch, stoppedEarly: result.history.length < options.epochs, spec: finished.spec };
}
