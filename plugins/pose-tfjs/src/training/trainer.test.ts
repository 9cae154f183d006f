import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetPacker, evaluateModel, loadDataset, meanPose, PoseModel, saveDataset, setupBackend, trainPoseModel, type PackedDataset } from '../index.js';
import { syntheticSamples, tinyEnvironment, tinySpec } from '../testing/synthetic.js';

const spec = tinySpec();
const architecture = { frameChannels: 16, temporalChannels: 16, hidden: 64 };
let train: PackedDataset;
let validation: PackedDataset;
const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(path.join(tmpdir(), 'wiflow-train-')); dirs.push(d); return d; };

function pack(count: number, seed: number): PackedDataset {
  const packer = new DatasetPacker(spec, 16);
  for (const s of syntheticSamples(spec, tinyEnvironment(), count, seed)) packer.add(s);
  return packer.finish();
}

beforeAll(async () => {
  await setupBackend();
  train = pack(384, 1);
  validation = pack(96, 2);
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const weightsOf = (network: tf.LayersModel) => network.getWeights().map((w) => Array.from(w.dataSync()));

describe('training', () => {
  it('learns the synthetic task: beats the room-centre baseline and counts people', async () => {
    const result = await trainPoseModel(spec, train, validation, { epochs: 14, batchSize: 32, learningRate: 0.003, seed: 5, checkpointDir: tmp(), resume: false, architecture });
    const report = evaluateModel(PoseModel.fromNetwork(spec, result.network), validation, meanPose(train.truths.flat()));
    const first = result.history[0].loss, last = result.history[result.history.length - 1].loss;
    expect(last).toBeLessThan(first * 0.8);
    expect(report.model.all.countAccuracy).toBeGreaterThan(0.6);
    expect(report.model.all.mpjpeMm!).toBeLessThan(report.baselines.meanPoseAtRoomCentre.all.mpjpeMm!);
  });

  it('is deterministic for a seed, and a resumed run equals an uninterrupted one', async () => {
    const options = { batchSize: 32, learningRate: 0.002, seed: 9, resume: false, architecture };
    const straight = await trainPoseModel(spec, train, validation, { ...options, epochs: 3, checkpointDir: tmp() });
    const again = await trainPoseModel(spec, train, validation, { ...options, epochs: 3, checkpointDir: tmp() });
    expect(weightsOf(again.network)).toEqual(weightsOf(straight.network));
    const dir = tmp();
    await trainPoseModel(spec, train, null, { ...options, epochs: 3, checkpointDir: dir, timeBudgetS: 1e-9 });
    const resumed = await trainPoseModel(spec, train, null, { ...options, epochs: 3, checkpointDir: dir, resume: true });
    expect(resumed.epochsRun).toBe(2);
    const plain = await trainPoseModel(spec, train, null, { ...options, epochs: 3, checkpointDir: tmp() });
    expect(weightsOf(resumed.network)).toEqual(weightsOf(plain.network));
  });

  it('round-trips a packed dataset through disk', () => {
    const dir = tmp();
    saveDataset(dir, validation, { note: 'test' });
    const { data, meta } = loadDataset(dir);
    expect(meta).toEqual({ note: 'test' });
    expect(data.count).toBe(validation.count);
    expect(Array.from(data.csi.subarray(0, 50))).toEqual(Array.from(validation.csi.subarray(0, 50)));
    expect(data.truths[5]).toEqual(validation.truths[5]);
  });
});
