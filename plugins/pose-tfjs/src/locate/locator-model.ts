import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import type { RoomImage } from './imager.js';
import { PeopleTrackerSettingsSchema } from './people-tracker.js';

/** The locator model file in a model directory. */
export const LOCATOR_JSON = 'locator.json';

/** The shipped locator: `models/wiflow-locate-v2` in this package (v1, without the tracker, stays beside it). */
export const SHIPPED_LOCATOR_DIR = fileURLToPath(new URL('../../models/wiflow-locate-v2', import.meta.url));

const DenseLayerSchema = z.object({
  weights: z.array(z.array(z.number().finite())),
  bias: z.array(z.number().finite()),
  activation: z.enum(['relu', 'linear', 'softmax']),
});

/** The imaging settings of a locator (`ImagingSettings` of imager.ts). */
export const ImagingSettingsSchema = z.object({
  gridStepM: z.number().positive(),
  heightsM: z.array(z.number()).min(1),
  packets: z.number().int().positive(),
  separationM: z.number().nonnegative(),
  cleanRadiusM: z.number().nonnegative(),
  maxPersons: z.number().int().min(1).max(6),
  scatterer: z.enum(['point', 'body']).default('point'),
  minPacketIntervalS: z.number().positive().optional(),
  /** Drift between reference and recording (`ImagingSettings`; drift-protocol.md). Absent: as before. */
  chainGain: z.enum(['reference', 'per-rx-chain']).optional(),
  liveNoise: z.boolean().optional(),
  backgroundS: z.number().positive().optional(),
  /** A gain per receive chain held static over `windowS` seconds (drift2-protocol.md). Absent: none. */
  staticChainGain: z.object({ windowS: z.number().positive(), minDeviation: z.number().nonnegative().default(0) }).strict().optional(),
  /** Peaks placed against a body's diffuse paths (`ImagingSettings`; c2image-protocol.md). Absent: none. */
  diffuseWhitening: z.object({ decayNs: z.number().positive(), diffuseToNoise: z.number().nonnegative() }).strict().optional(),
  /** How peaks are picked: the matched filter, or Capon's power (capon-protocol.md). Absent: the matched filter. */
  scorer: z.enum(['bartlett', 'capon']).optional(),
  caponLoading: z.number().positive().optional(),
});

/**
 * `locator.json` (`wiflow-locator/1`): the imaging settings, the learned count head (a small
 * dense network over the CLEAN energy features, trained with TF.js on the training rooms)
 * and the training set's mean pose, which is what a located person's skeleton is.
 */
export const LocatorModelSchema = z.object({
  format: z.literal('wiflow-locator/1'),
  modelId: z.string().min(1),
  version: z.string().min(1),
  description: z.string().default(''),
  imaging: ImagingSettingsSchema,
  /** The one environment this locator was fitted for (`wiflow locate twin-fit`); absent: any room. */
  environmentId: z.string().min(1).optional(),
  /** Packets of the room's first link between estimates (packets kept: see `imaging.minPacketIntervalS`). */
  hopPackets: z.number().int().positive(),
  presenceThreshold: z.number().min(0).max(1),
  /** The people tracker inside the estimator (absent: every estimate stands alone, as in wiflow-locate-v1). */
  tracker: PeopleTrackerSettingsSchema.optional(),
  countHead: z.object({
    /** The feature set (`COUNT_FEATURES`); a model made for another cannot be used. */
    features: z.literal('clean-energies+peak-scores+noise-floor+packet-spectrum/1'),
    featureMean: z.array(z.number()),
    featureStd: z.array(z.number()),
    layers: z.array(DenseLayerSchema).min(1),
  }),
  /** Training-set mean pose: per COCO joint the offset from the floor position (x, y) and the height (z), metres. */
  meanPose: z.array(z.array(z.number()).length(3)).length(17),
  training: z.record(z.string(), z.unknown()).default({}),
});

/** A locator model. */
export type LocatorModelSpec = z.output<typeof LocatorModelSchema>;

/** A loaded locator model with the SHA-256 of its file. */
export interface LocatorModel {
  spec: LocatorModelSpec;
  hash: string;
  directory: string;
}

/** Load a locator model directory. */
export function loadLocatorModel(directory: string = SHIPPED_LOCATOR_DIR): LocatorModel {
  const file = path.join(directory, LOCATOR_JSON);
  if (!existsSync(file)) throw PoseErrors.modelNotFound(directory, LOCATOR_JSON);
  const bytes = readFileSync(file);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw PoseErrors.modelInvalid(directory, `${LOCATOR_JSON}: ${(error as Error).message}`);
  }
  const parsed = LocatorModelSchema.safeParse(raw);
  if (!parsed.success) throw PoseErrors.modelInvalid(directory, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const head = parsed.data.countHead;
  let width = countFeatureSize(parsed.data.imaging);
  if (head.featureMean.length !== width || head.featureStd.length !== width) throw PoseErrors.modelInvalid(directory, `the count head's feature statistics have ${head.featureMean.length} values; these imaging settings give ${width} features`);
  for (const [i, layer] of head.layers.entries()) {
    if (layer.weights.length !== width || layer.weights.some((row) => row.length !== layer.bias.length)) throw PoseErrors.modelInvalid(directory, `count head layer ${i} is not ${width} × ${layer.bias.length}`);
    width = layer.bias.length;
  }
  if (width !== parsed.data.imaging.maxPersons + 1) throw PoseErrors.modelInvalid(directory, `the count head gives ${width} classes, not 0 … ${parsed.data.imaging.maxPersons} people`);
  return { spec: parsed.data, hash: createHash('sha256').update(bytes).digest('hex'), directory };
}

/** Write a locator model directory's `locator.json` (atomically). */
export function writeLocatorModel(directory: string, spec: LocatorModelSpec): void {
  const file = path.join(directory, LOCATOR_JSON);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(spec, null, 1)}\n`);
  renameSync(tmp, file);
}

/**
 * Scale-free features of one room image for the count head (`COUNT_FEATURES`):
 * - how much of the change each successive removal leaves (log e₁/e₀, log e₂/e₁, …) and the
 *   change's size against the empty room (log e₀ / reference energy);
 * - each peak's score above a uniform image and the gaps between them;
 * - the change energy left after 0 … maxPersons removals against the references' noise floor
 *   (an empty room's change is noise: log ≈ 0);
 * - the eigenvalues of the packets' Gram matrix against the noise floor (one large eigenvalue
 *   per independently changing scatterer, roughly).
 */
export function countFeatures(image: RoomImage, maxPersons: number): number[] {
  // Fewer people than maxPersons found (no cell far enough from the others): nothing more was removed.
  const e = image.energies.map((v) => v + 1e-30);
  while (e.length < maxPersons + 1) e.push(e[e.length - 1]);
  const f: number[] = [];
  for (let i = 1; i < e.length; i++) f.push(Math.log(e[i] / e[i - 1]));
  f.push(Math.log(e[0] / (image.referenceEnergy + 1e-30)));
  const scores = image.peaks.map((p) => p.score - image.uniformScore);
  while (scores.length < e.length - 1) scores.push(scores.length ? scores[scores.length - 1] : 0);
  f.push(...scores);
  for (let i = 1; i < scores.length; i++) f.push(scores[i - 1] - scores[i]);
  for (const v of e) f.push(Math.log(v / (image.noiseEnergy + 1e-30)));
  for (const v of image.changeSpectrum) f.push(Math.log(Math.max(v, 1e-6)));
  return f;
}

/** How many features `countFeatures` gives for these imaging settings. */
export function countFeatureSize(imaging: { maxPersons: number; packets: number }): number {
  const k = imaging.maxPersons;
  return k + 1 + k + (k - 1) + (k + 1) + imaging.packets;
}

/** Name of the feature set `countFeatures` computes, recorded in `locator.json`. */
export const COUNT_FEATURES = 'clean-energies+peak-scores+noise-floor+packet-spectrum/1';

/** The count head's probabilities of 0 … maxPersons people. */
export function countProbabilities(head: LocatorModelSpec['countHead'], features: readonly number[]): number[] {
  let x = features.map((v, i) => (v - head.featureMean[i]) / (head.featureStd[i] || 1));
  for (const layer of head.layers) {
    const y = layer.bias.slice();
    for (let i = 0; i < x.length; i++) for (let o = 0; o < y.length; o++) y[o] += x[i] * layer.weights[i][o];
    if (layer.activation === 'relu') x = y.map((v) => Math.max(0, v));
    else if (layer.activation === 'softmax') {
      const m = Math.max(...y);
      const ex = y.map((v) => Math.exp(v - m));
      const s = ex.reduce((a, b) => a + b, 0);
      x = ex.map((v) => v / s);
    } else x = y;
  }
  return x;
}

/** Presence of the i-th person found: the probability that at least i + 1 people are there. */
export function presences(probabilities: readonly number[], peaks: number): number[] {
  return Array.from({ length: peaks }, (_, i) => Math.min(1, Math.max(0, probabilities.slice(i + 1).reduce((a, b) => a + b, 0))));
}

/**
 * Train the count head with TF.js: a softmax over 0 … maxPersons people (after an optional
 * dense ReLU layer; none by default: with a few dozen training rooms a hidden layer learns the
 * rooms), cross-entropy with L2, Adam, full batch, seeded initialisation (deterministic for a
 * seed on one backend).
 */
export async function trainCountHead(features: number[][], counts: number[], options: { maxPersons: number; hidden?: number; epochs?: number; learningRate?: number; l2?: number; seed?: number }): Promise<LocatorModelSpec['countHead']> {
  if (features.length === 0) throw PoseErrors.datasetInvalid('no samples to train the count head on');
  const dims = features[0].length;
  const mean = Array.from({ length: dims }, (_, d) => features.reduce((s, f) => s + f[d], 0) / features.length);
  const std = Array.from({ length: dims }, (_, d) => Math.sqrt(features.reduce((s, f) => s + (f[d] - mean[d]) ** 2, 0) / features.length) || 1);
  const classes = options.maxPersons + 1;
  const hidden = options.hidden ?? 0;
  const seed = options.seed ?? 1;
  const model = tf.sequential();
  if (hidden > 0) model.add(tf.layers.dense({ inputShape: [dims], units: hidden, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed }) }));
  model.add(tf.layers.dense({ ...(hidden > 0 ? {} : { inputShape: [dims] }), units: classes, activation: 'softmax', kernelInitializer: tf.initializers.glorotUniform({ seed: seed + 1 }), kernelRegularizer: tf.regularizers.l2({ l2: options.l2 ?? 1e-3 }) }));
  model.compile({ optimizer: tf.train.adam(options.learningRate ?? 0.02), loss: 'categoricalCrossentropy' });
  const x = tf.tensor2d(features.map((f) => f.map((v, d) => (v - mean[d]) / std[d])));
  const y = tf.oneHot(tf.tensor1d(counts.map((c) => Math.min(c, options.maxPersons)), 'int32'), classes).toFloat();
  try {
    await model.fit(x, y, { epochs: options.epochs ?? 300, batchSize: features.length, shuffle: false, verbose: 0 });
    const layers = model.layers.map((layer, i) => {
      const [w, b] = layer.getWeights();
      return { weights: w.arraySync() as number[][], bias: b.arraySync() as number[], activation: (i === model.layers.length - 1 ? 'softmax' : 'relu') as 'relu' | 'softmax' };
    });
    return { features: COUNT_FEATURES, featureMean: mean, featureStd: std, layers };
  } finally {
    x.dispose();
    y.dispose();
    model.dispose();
  }
}
