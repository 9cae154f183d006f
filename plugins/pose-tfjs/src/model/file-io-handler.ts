import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { PoseErrors } from '../errors.js';

/** File names of a TF.js layers model directory. */
export const MODEL_JSON = 'model.json';
export const WEIGHTS_BIN = 'weights.bin';

function concatWeights(data: ArrayBuffer | ArrayBuffer[]): ArrayBuffer {
  return Array.isArray(data) ? tf.io.concatenateArrayBuffers(data) : data;
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/**
 * A TF.js IOHandler on the local file system (`model.json` + `weights.bin`), the format
 * tfjs-node's `file://` handler writes, for runtimes without tfjs-node. Writes are atomic
 * per file (temp + rename) so an interrupted checkpoint never leaves a torn file.
 */
export function fileIOHandler(directory: string): tf.io.IOHandler {
  return {
    async save(artifacts: tf.io.ModelArtifacts): Promise<tf.io.SaveResult> {
      if (artifacts.modelTopology instanceof ArrayBuffer) throw PoseErrors.modelInvalid(directory, 'binary topologies are not supported');
      mkdirSync(directory, { recursive: true });
      const weights = new Uint8Array(artifacts.weightData ? concatWeights(artifacts.weightData as ArrayBuffer | ArrayBuffer[]) : new ArrayBuffer(0));
      writeAtomic(path.join(directory, WEIGHTS_BIN), weights);
      const modelJson: tf.io.ModelJSON = {
        modelTopology: artifacts.modelTopology as object,
        format: artifacts.format ?? 'layers-model',
        generatedBy: artifacts.generatedBy ?? `TensorFlow.js tfjs-layers v${tf.version_layers}`,
        convertedBy: artifacts.convertedBy ?? null,
        weightsManifest: [{ paths: [`./${WEIGHTS_BIN}`], weights: artifacts.weightSpecs ?? [] }],
      };
      if (artifacts.trainingConfig) modelJson.trainingConfig = artifacts.trainingConfig;
      if (artifacts.userDefinedMetadata) modelJson.userDefinedMetadata = artifacts.userDefinedMetadata;
      writeAtomic(path.join(directory, MODEL_JSON), JSON.stringify(modelJson));
      return {
        modelArtifactsInfo: {
          dateSaved: new Date(),
          modelTopologyType: 'JSON',
          modelTopologyBytes: JSON.stringify(modelJson.modelTopology).length,
          weightSpecsBytes: JSON.stringify(modelJson.weightsManifest).length,
          weightDataBytes: weights.byteLength,
        },
      };
    },
    async load(): Promise<tf.io.ModelArtifacts> {
      const jsonPath = path.join(directory, MODEL_JSON);
      let modelJson: tf.io.ModelJSON;
      try {
        modelJson = JSON.parse(readFileSync(jsonPath, 'utf8')) as tf.io.ModelJSON;
      } catch (error) {
        throw PoseErrors.modelInvalid(directory, `cannot read ${MODEL_JSON}: ${(error as Error).message}`);
      }
      if (!modelJson.modelTopology || !Array.isArray(modelJson.weightsManifest)) throw PoseErrors.modelInvalid(directory, `${MODEL_JSON} lacks modelTopology or weightsManifest`);
      const specs: tf.io.WeightsManifestEntry[] = [];
      const buffers: ArrayBuffer[] = [];
      for (const group of modelJson.weightsManifest) {
        specs.push(...group.weights);
        for (const relative of group.paths) {
          const file = path.resolve(directory, relative);
          if (!file.startsWith(path.resolve(directory) + path.sep)) throw PoseErrors.modelInvalid(directory, `weight path ${relative} leaves the model directory`);
          let bytes: Buffer;
          try {
            bytes = readFileSync(file);
          } catch (error) {
            throw PoseErrors.modelInvalid(directory, `cannot read weights ${relative}: ${(error as Error).message}`);
          }
          buffers.push(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
        }
      }
      return {
        modelTopology: modelJson.modelTopology,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy,
        trainingConfig: modelJson.trainingConfig,
        userDefinedMetadata: modelJson.userDefinedMetadata,
        weightSpecs: specs,
        weightData: tf.io.concatenateArrayBuffers(buffers),
      };
    },
  };
}

/** SHA-256 (hex) of a model directory's weight files, in manifest order: the model hash every PoseFrame carries. */
export function hashModelWeights(directory: string): string {
  const modelJson = JSON.parse(readFileSync(path.join(directory, MODEL_JSON), 'utf8')) as tf.io.ModelJSON;
  const hash = createHash('sha256');
  for (const group of modelJson.weightsManifest) for (const relative of group.paths) hash.update(readFileSync(path.resolve(directory, relative)));
  return hash.digest('hex');
}
