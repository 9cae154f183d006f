import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setupBackend } from '../backend/backend.js';
import { PoseErrors } from '../errors.js';
// Registers the custom layer so saved models that use it load.
import './anchored-slots.js';
import { frameFeatureSize, geometryFeatureSize, MODEL_SPEC_JSON, readModelSpec, SLOT_SIZE, type ModelSpec } from './contract.js';
import { fileIOHandler, hashModelWeights } from './file-io-handler.js';

/** Directory of the weights shipped in this package. */
export const SHIPPED_MODEL_DIR = fileURLToPath(new URL('../../models/wiflow-pose-v1/', import.meta.url));

/** A loaded pose model: its contract, network and weights hash. */
export class PoseModel {
  private constructor(
    readonly directory: string,
    readonly spec: ModelSpec,
    readonly network: tf.LayersModel,
    /** SHA-256 of the weight files, hex. */
    readonly hash: string,
  ) {}

  /** Load a model directory (shipped or bring-your-own) and check it against its contract. */
  static async load(directory: string = SHIPPED_MODEL_DIR): Promise<PoseModel> {
    await setupBackend();
    const spec = readModelSpec(directory);
    const network = await tf.loadLayersModel(fileIOHandler(directory));
    checkContract(directory, network, spec);
    return new PoseModel(path.resolve(directory), spec, network, hashModelWeights(directory));
  }

  /** Wrap a network in memory (training, calibration); `hash` is that of its last saved weights, if any. */
  static fromNetwork(spec: ModelSpec, network: tf.LayersModel, directory = '', hash = 'unsaved'): PoseModel {
    checkContract(directory || '(in memory)', network, spec);
    return new PoseModel(directory, spec, network, hash);
  }

  /**
   * Run the network on `count` samples laid out as the contract says; returns
   * `[count × maxPersons × SLOT_SIZE]`. Batches of `batchSize` keep memory bounded.
   */
  predict(csi: Float32Array, geometry: Float32Array, count: number, batchSize = 64): Float32Array {
    const csiWidth = this.spec.input.frames * frameFeatureSize(this.spec);
    const geoWidth = geometryFeatureSize(this.spec);
    const slotWidth = this.spec.output.maxPersons * SLOT_SIZE;
    const out = new Float32Array(count * slotWidth);
    for (let start = 0; start < count; start += batchSize) {
      const n = Math.min(batchSize, count - start);
      const values = tf.tidy(() => {
        const x = tf.tensor3d(csi.subarray(start * csiWidth, (start + n) * csiWidth), [n, this.spec.input.frames, frameFeatureSize(this.spec)]);
        const g = tf.tensor2d(geometry.subarray(start * geoWidth, (start + n) * geoWidth), [n, geoWidth]);
        return (this.network.predict([x, g]) as tf.Tensor).dataSync() as Float32Array;
      });
      out.set(values, start * slotWidth);
    }
    return out;
  }

  /** Save weights and contract to a directory; returns the new weights hash. */
  static async save(directory: string, network: tf.LayersModel, spec: ModelSpec): Promise<string> {
    mkdirSync(directory, { recursive: true });
    await network.save(fileIOHandler(directory));
    writeFileSync(path.join(directory, MODEL_SPEC_JSON), JSON.stringify(spec, null, 2) + '\n');
    return hashModelWeights(directory);
  }
}

function checkContract(directory: string, network: tf.LayersModel, spec: ModelSpec): void {
  const inputs = network.inputs.map((i) => i.shape);
  const expected = [[null, spec.input.frames, frameFeatureSize(spec)], [null, geometryFeatureSize(spec)]];
  if (JSON.stringify(inputs) !== JSON.stringify(expected)) {
    throw PoseErrors.modelInvalid(directory, `network inputs ${JSON.stringify(inputs)} do not match the contract ${JSON.stringify(expected)} (csi, geometry)`);
  }
  const output = network.outputs[0]?.shape;
  const want = [null, spec.output.maxPersons, SLOT_SIZE];
  if (network.outputs.length !== 1 || JSON.stringify(output) !== JSON.stringify(want)) {
    throw PoseErrors.modelInvalid(directory, `network output ${JSON.stringify(output)} does not match the contract ${JSON.stringify(want)}`);
  }
}
