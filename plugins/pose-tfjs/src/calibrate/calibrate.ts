import * as tf from '@tensorflow/tfjs';
import { mulberry32, type CsiWindow } from '@wiflow/core';
import { setupBackend } from '../backend/backend.js';
import { PoseErrors } from '../errors.js';
import { SLOT_SIZE, type ModelSpec } from '../model/contract.js';
import { projectPoint, type EnvironmentGeometry } from '../model/environment.js';
import { sampleSizes, writeGeometryFeatures, writeLinkFeatures } from '../model/features.js';
import { PoseModel } from '../model/pose-model.js';
import { decodeSlots } from '../model/targets.js';
import { matchPeople, scoredHypotheses } from '../eval/metrics.js';
import { setLoss } from '../training/loss.js';
import { shuffledIndices } from '../training/prng.js';
import type { LabelledInstant } from './coco-labels.js';
import { loadLabelledRecording } from './labelled-recording.js';
import { reprojectionSetLoss } from './reprojection-loss.js';

/** One labelled instant with a window per link (environment link order). */
export interface LabelledSample {
  windows: CsiWindow[];
  labels: LabelledInstant;
}

/** Figures of a model on labelled samples of one room. */
export interface CalibrationMetrics {
  samples: number;
  /** Labelled joints within 0.2 × the labelled torso diameter (left shoulder–right hip), 2D. */
  pck02: number | null;
  /** Mean 2D error of labelled joints, pixels. */
  keypointErrorPx: number | null;
  /** Exact person-count accuracy. */
  countAccuracy: number;
  /** 3D MPJPE (mm) when the labels carry `keypoints_3d`, else null. */
  mpjpeMm: number | null;
}

/** What `wiflow calibrate` reports. */
export interface CalibrationResult {
  environmentId: string;
  trainSamples: number;
  heldOutSamples: number;
  before: CalibrationMetrics;
  after: CalibrationMetrics;
  modelDir: string;
  modelHash: string;
  /** 'reprojection' when only 2D labels were given, '3d' when keypoints_3d were. */
  loss: 'reprojection' | '3d';
}

/** Options of `calibrateModel`. */
export interface CalibrationOptions {
  recordingDir: string;
  modelDir: string;
  outDir: string;
  epochs: number;
  learningRate: number;
  holdoutFraction: number;
  seed: number;
  batchSize?: number;
}

function packInputs(spec: ModelSpec, environment: EnvironmentGeometry, samples: readonly LabelledSample[]) {
  const sizes = sampleSizes(spec);
  const csi = new Float32Array(samples.length * sizes.csi);
  const geometry = new Float32Array(samples.length * sizes.geometry);
  samples.forEach((s, i) => {
    s.windows.forEach((w, link) => writeLinkFeatures(w, link, spec, csi, i * sizes.csi));
    writeGeometryFeatures(environment, spec, geometry, i * sizes.geometry);
  });
  return { csi, geometry, sizes };
}

/** Score a model on labelled samples (2D against the labels; 3D when labels have it). */
export function scoreOnLabels(model: PoseModel, environment: EnvironmentGeometry, samples: readonly LabelledSample[]): CalibrationMetrics {
  const spec = model.spec;
  const { csi, geometry } = packInputs(spec, environment, samples);
  const output = model.predict(csi, geometry, samples.length);
  let hits = 0, joints = 0, errorSum = 0, countOk = 0, mpjpeSum = 0, mpjpeJoints = 0;
  samples.forEach((s, i) => {
    const decoded = decodeSlots(output, i * spec.output.maxPersons * SLOT_SIZE, spec.output.maxPersons, environment);
    if (decoded.filter((d) => d.presence > spec.output.presenceThreshold).length === s.labels.persons.length) countOk++;
    // Match by the labelled hip midpoint position when 3D exists, else by 2D hip midpoint distance.
    const truths = s.labels.persons.map((p, id) => ({ id, activity: 'standing' as const, keypoints3d: p.keypoints3d ?? [], position: { x: 0, y: 0 }, label: p }));
    // The same hypotheses every other pose figure may pair with (reported ones, plus the strongest
    // unreported up to the labelled count), not the first slots in model order.
    const hyps = scoredHypotheses(decoded, truths.length, spec.output.presenceThreshold);
    const order = pairBy2d(environment, truths.map((t) => t.label.keypoints2d), hyps.map((h) => h.keypoints3d));
    order.forEach(([ti, hi]) => {
      const label = truths[ti].label;
      const hyp = hyps[hi];
      const ls = label.keypoints2d[5], rh = label.keypoints2d[12];
      const torso = ls[2] > 0 && rh[2] > 0 ? Math.hypot(ls[0] - rh[0], ls[1] - rh[1]) : null;
      for (let j = 0; j < 17; j++) {
        const [lx, ly, v] = label.keypoints2d[j];
        if (v <= 0) continue;
        const q = projectPoint(environment.camera, hyp.keypoints3d[j]);
        const e = q.depth > 0 ? Math.hypot(q.x - lx, q.y - ly) : environment.camera.width;
        joints++;
        errorSum += e;
        if (torso !== null && e <= 0.2 * torso) hits++;
      }
      if (label.keypoints3d) {
        for (let j = 0; j < 17; j++) {
          const a = label.keypoints3d[j], b = hyp.keypoints3d[j];
          mpjpeSum += Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
          mpjpeJoints++;
        }
      }
    });
  });
  return {
    samples: samples.length,
    pck02: joints ? hits / joints : null,
    keypointErrorPx: joints ? errorSum / joints : null,
    countAccuracy: samples.length ? countOk / samples.length : 0,
    mpjpeMm: mpjpeJoints ? (mpjpeSum / mpjpeJoints) * 1000 : null,
  };
}

/** Pair labelled people with hypotheses by least total 2D hip-midpoint distance. */
function pairBy2d(environment: EnvironmentGeometry, labels: [number, number, number][][], hyps: number[][][]): [number, number][] {
  const centre = (k: [number, number, number][]) => {
    const pts = k.filter((p) => p[2] > 0);
    return pts.length ? [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length] : [0, 0];
  };
  const truths = labels.map((l, id) => {
    const c = centre(l);
    return { id, activity: 'standing' as const, keypoints3d: [], position: { x: c[0], y: c[1] } };
  });
  const hypotheses = hyps.map((h) => {
    const q = h.map((p) => projectPoint(environment.camera, p)).filter((p) => p.depth > 0);
    const c = q.length ? [q.reduce((s, p) => s + p.x, 0) / q.length, q.reduce((s, p) => s + p.y, 0) / q.length] : [1e9, 1e9];
    return { position: { x: c[0], y: c[1] }, keypoints3d: h };
  });
  return matchPeople(truths, hypotheses).map(([t, h]) => [t.id, hypotheses.indexOf(h as (typeof hypotheses)[number])]);
}

/**
 * Fine-tune a model on the first part of a labelled recording of one room and report the
 * figures on the held-out end, before and after. 2D labels use the reprojection loss
 * (through the room's virtual camera, anchored to the starting model); labels with
 * `keypoints_3d` use the 3D set loss of training.
 */
export async function calibrateModel(options: CalibrationOptions): Promise<CalibrationResult> {
  await setupBackend();
  if (!(options.holdoutFraction > 0 && options.holdoutFraction < 1)) throw PoseErrors.labelsInvalid(`holdout fraction must be in (0, 1), got ${options.holdoutFraction}`);
  const base = await PoseModel.load(options.modelDir);
  const { environment, samples } = await loadLabelledRecording(options.recordingDir, base.spec);
  if (samples.length < 10) throw PoseErrors.labelsInvalid(`only ${samples.length} labelled instants matched CSI windows; at least 10 are needed`);
  const cut = Math.floor(samples.length * (1 - options.holdoutFraction));
  const train = samples.slice(0, cut), heldOut = samples.slice(cut);
  const before = scoreOnLabels(base, environment, heldOut);
  const uses3d = samples.every((s) => s.labels.persons.every((p) => p.keypoints3d));

  const spec = base.spec;
  const P = spec.output.maxPersons;
  const network = base.network;
  const { csi, geometry, sizes } = packInputs(spec, environment, train);
  const anchor = base.predict(csi, geometry, train.length);
  const labelWidth = P * (1 + 51);
  const labels = new Float32Array(train.length * labelWidth);
  train.forEach((s, i) => s.labels.persons.slice(0, P).forEach((p, slot) => {
    const o = i * labelWidth + slot * 52;
    labels[o] = 1;
    p.keypoints2d.forEach(([x, y, v], j) => { labels[o + 1 + 3 * j] = x; labels[o + 2 + 3 * j] = y; labels[o + 3 + 3 * j] = v > 0 ? 1 : 0; });
  }));
  const loss = reprojectionSetLoss(environment, P);
  const loss3d = setLoss(P);
  const truth3d = uses3d ? targets3d(train, environment, P) : null;
  const optimizer = tf.train.adam(options.learningRate);
  const variables = network.trainableWeights.map((w) => w.read() as tf.Variable);
  const batchSize = options.batchSize ?? 32;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = shuffledIndices(train.length, mulberry32(options.seed * 31 + epoch));
    for (let start = 0; start < train.length; start += batchSize) {
      const idx = Array.from(order.subarray(start, Math.min(train.length, start + batchSize)));
      tf.tidy(() => {
        const pick = (a: Float32Array, w: number) => { const out = new Float32Array(idx.length * w); idx.forEach((i, j) => out.set(a.subarray(i * w, (i + 1) * w), j * w)); return out; };
        const x = tf.tensor3d(pick(csi, sizes.csi), [idx.length, spec.input.frames, sizes.csi / spec.input.frames]);
        const g = tf.tensor2d(pick(geometry, sizes.geometry), [idx.length, sizes.geometry]);
        const y = tf.tensor3d(pick(labels, labelWidth), [idx.length, P, 52]);
        const a = tf.tensor3d(pick(anchor, P * SLOT_SIZE), [idx.length, P, SLOT_SIZE]);
        if (truth3d) {
          // 3D labels: the training set loss, in this room.
          const y3 = tf.tensor3d(pick(truth3d, P * SLOT_SIZE), [idx.length, P, SLOT_SIZE]);
          const room = tf.tensor2d(idx.map(() => [environment.room.width, environment.room.depth]));
          optimizer.minimize(() => loss3d(network.apply([x, g], { training: true }) as tf.Tensor, y3, room), false, variables);
        } else {
          optimizer.minimize(() => loss(network.apply([x, g], { training: true }) as tf.Tensor, y, a), false, variables);
        }
      });
    }
  }
  optimizer.dispose();
  const calibratedSpec: ModelSpec = {
    ...spec,
    modelId: `${spec.modelId}-calibrated-${environment.id}`,
    training: { ...spec.training, calibration: { from: `${spec.modelId}@${base.hash}`, environmentId: environment.id, trainSamples: train.length, epochs: options.epochs, learningRate: options.learningRate, loss: uses3d ? '3d' : 'reprojection' } },
  };
  const hash = await PoseModel.save(options.outDir, network, calibratedSpec);
  const calibrated = PoseModel.fromNetwork(calibratedSpec, network, options.outDir, hash);
  const after = scoreOnLabels(calibrated, environment, heldOut);
  return { environmentId: environment.id, trainSamples: train.length, heldOutSamples: heldOut.length, before, after, modelDir: options.outDir, modelHash: hash, loss: uses3d ? '3d' : 'reprojection' };
}

/** 3D training targets of labelled samples (labels with keypoints_3d): floor position = hip midpoint. */
function targets3d(train: readonly LabelledSample[], environment: EnvironmentGeometry, P: number): Float32Array {
  const out = new Float32Array(train.length * P * SLOT_SIZE);
  train.forEach((s, i) => s.labels.persons.slice(0, P).forEach((p, slot) => {
    const k = p.keypoints3d!;
    const base = i * P * SLOT_SIZE + slot * SLOT_SIZE;
    const x = (k[11][0] + k[12][0]) / 2, y = (k[11][1] + k[12][1]) / 2;
    out[base] = 1;
    out[base + 1] = x / environment.room.width;
    out[base + 2] = y / environment.room.depth;
    for (let j = 0; j < 17; j++) { out[base + 3 + 3 * j] = k[j][0] - x; out[base + 4 + 3 * j] = k[j][1] - y; out[base + 5 + 3 * j] = k[j][2]; }
  }));
  return out;
}

/** Human-readable calibration report. */
export function formatCalibration(r: CalibrationResult): string[] {
  const f = (v: number | null, d = 3) => (v === null ? '—' : v.toFixed(d));
  const row = (name: string, m: CalibrationMetrics) => `${name.padEnd(8)} PCK@0.2 ${f(m.pck02)}  2D error ${f(m.keypointErrorPx, 1)} px  count ${f(m.countAccuracy)}  MPJPE ${f(m.mpjpeMm, 0)} mm`;
  return [
    `calibrated ${r.environmentId}: ${r.trainSamples} labelled instants for fine-tuning (${r.loss} loss), ${r.heldOutSamples} held out (the end of the recording)`,
    row('before', r.before),
    row('after', r.after),
    `wrote ${r.modelDir} (sha256 ${r.modelHash})`,
  ];
}
