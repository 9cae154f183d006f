import * as tf from '@tensorflow/tfjs';
import { AnchoredSlots } from './anchored-slots.js';
import { frameFeatureSize, geometryFeatureSize, SLOT_SIZE, type ModelSpec } from './contract.js';

/** Size knobs of the wiflow pose network. */
export interface ArchitectureOptions {
  /** Channels after the per-frame projection of all links' subcarriers. */
  frameChannels: number;
  /** Channels of the temporal convolutions. */
  temporalChannels: number;
  /** Width of the shared hidden layer before the person heads. */
  hidden: number;
  /** Seed of the weight initialisers and dropout (determinism). */
  seed: number;
  /** Dropout before the hidden layer (training only): fights memorising the training rooms. */
  dropout?: number;
  /** Floor position head: 'direct' fractions of the room, or 'anchors' (a convex mix of room anchors). */
  positionHead?: 'direct' | 'anchors';
}

/** Defaults sized for ~5,000 windows/s on one core with WASM. */
export const DEFAULT_ARCHITECTURE: ArchitectureOptions = { frameChannels: 48, temporalChannels: 64, hidden: 192, seed: 1, dropout: 0.3 };

/**
 * Build the network (see docs/model.md for why):
 * csi [T, F] → per-frame dense (mixes links, antenna pairs and subcarriers of one instant)
 * → two temporal conv1d (motion over the window) → average and max pooling over time;
 * geometry → dense; both → dense → `maxPersons` slots of (presence logit, floor position
 * as room fractions, 17 × (dx, dy, z) keypoint offsets).
 */
export function buildPoseNetwork(spec: ModelSpec, options: ArchitectureOptions = DEFAULT_ARCHITECTURE): tf.LayersModel {
  const seed = options.seed;
  const init = (k: number) => tf.initializers.glorotUniform({ seed: seed * 101 + k });
  const csi = tf.input({ shape: [spec.input.frames, frameFeatureSize(spec)], name: 'csi' });
  const geometry = tf.input({ shape: [geometryFeatureSize(spec)], name: 'geometry' });
  // A kernel-1 conv rather than a dense on 3D input: the WASM dense path transposes its
  // kernel on every call (and repacks it), the conv path keeps it packed — ~10× faster.
  let x = tf.layers.conv1d({ filters: options.frameChannels, kernelSize: 1, activation: 'relu', kernelInitializer: init(1), name: 'frame_projection' }).apply(csi) as tf.SymbolicTensor;
  x = tf.layers.conv1d({ filters: options.temporalChannels, kernelSize: 3, padding: 'same', activation: 'relu', kernelInitializer: init(2), name: 'temporal_1' }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.conv1d({ filters: options.temporalChannels, kernelSize: 3, strides: 2, padding: 'same', activation: 'relu', kernelInitializer: init(3), name: 'temporal_2' }).apply(x) as tf.SymbolicTensor;
  const average = tf.layers.globalAveragePooling1d({ name: 'time_average' }).apply(x) as tf.SymbolicTensor;
  const maximum = tf.layers.globalMaxPooling1d({ name: 'time_max' }).apply(x) as tf.SymbolicTensor;
  const g = tf.layers.dense({ units: 32, activation: 'relu', kernelInitializer: init(4), name: 'geometry_embedding' }).apply(geometry) as tf.SymbolicTensor;
  let h = tf.layers.concatenate({ name: 'joint' }).apply([average, maximum, g]) as tf.SymbolicTensor;
  if (options.dropout) h = tf.layers.dropout({ rate: options.dropout, seed: seed * 101 + 7, name: 'joint_dropout' }).apply(h) as tf.SymbolicTensor;
  h = tf.layers.dense({ units: options.hidden, activation: 'relu', kernelInitializer: init(5), name: 'hidden' }).apply(h) as tf.SymbolicTensor;
  const slots = tf.layers.dense({ units: spec.output.maxPersons * SLOT_SIZE, kernelInitializer: init(6), name: 'person_slots' }).apply(h) as tf.SymbolicTensor;
  let out = tf.layers.reshape({ targetShape: [spec.output.maxPersons, SLOT_SIZE], name: options.positionHead === 'anchors' ? 'slots' : 'persons' }).apply(slots) as tf.SymbolicTensor;
  if (options.positionHead === 'anchors') {
    const anchorLogits = tf.layers.dense({ units: spec.output.maxPersons * AnchoredSlots.anchorCount(spec.input.links), kernelInitializer: init(7), name: 'anchor_logits' }).apply(h) as tf.SymbolicTensor;
    out = new AnchoredSlots({ links: spec.input.links, maxPersons: spec.output.maxPersons, name: 'persons' }).apply([out, anchorLogits, geometry]) as tf.SymbolicTensor;
  }
  return tf.model({ inputs: [csi, geometry], outputs: out, name: 'wiflow_pose' });
}
