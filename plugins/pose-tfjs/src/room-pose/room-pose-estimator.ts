import type { CsiFrame, GroundTruthPerson, PoseFrame } from '@wiflow/core';
import { placePose, scoredPairs, type PoseHypothesis } from '../eval/metrics.js';
import type { LocatorModel } from '../locate/locator-model.js';
import { PoseLocator, type LocatedInstant } from '../locate/locator.js';
import type { EmptyRoomReference } from '../locate/reference.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { toPersons } from '../model/persons.js';
import { PoseErrors } from '../errors.js';
import { DEFAULT_PROBE, PersonProbe } from './person-probe.js';
import { predictSkeleton, type RoomPoseModel } from './room-pose-model.js';
import { centreOnHips, type RoomPoseProduct } from './room-pose-choice.js';

/** One estimate: the locator's instant, each hypothesis with its probe features and (with a model) its skeleton. */
export interface RoomPoseInstant {
  located: LocatedInstant;
  /** Per hypothesis of `located`: probe features. */
  features: Float32Array[];
  /** Per hypothesis: the room model's skeleton, or the locator's mean pose without a model. */
  hypotheses: (PoseHypothesis & { presence: number; trackId: number | null; evidence: number | null })[];
  /** The locator's presence threshold: hypotheses above it are the people reported. */
  presenceThreshold: number;
}

/**
 * The room-trained pipeline: the locator finds people (positions, count, tracks), the probe
 * listens to the change around each, and the room's network turns that into a skeleton.
 * Without a room model it is the locator alone (its mean pose), and says so in the frames.
 */
export class RoomPoseEstimator {
  readonly #locator: PoseLocator;
  readonly #probe: PersonProbe;

  constructor(readonly locatorModel: LocatorModel, readonly environment: EnvironmentGeometry, reference: EmptyRoomReference, readonly roomModel: RoomPoseModel | null = null) {
    if (roomModel && roomModel.spec.environmentId !== environment.id) {
      throw PoseErrors.modelInvalid(roomModel.directory, `it was trained for environment ${roomModel.spec.environmentId}, not ${environment.id}: a room model is used in its own room only`);
    }
    this.#locator = new PoseLocator(locatorModel, [environment], [reference], { densePose: 'none', processingMode: 'job' });
    this.#probe = new PersonProbe(environment, reference, roomModel ? roomModel.spec.probe as typeof DEFAULT_PROBE : DEFAULT_PROBE);
  }

  /** Feature width per person. */
  get featureSize(): number {
    return this.#probe.featureSize;
  }

  /** Add a frame; returns an estimate when the locator makes one. */
  locate(frame: CsiFrame): RoomPoseInstant | null {
    this.#probe.push(frame);
    const located = this.#locator.locate(frame);
    if (!located) return null;
    const features = located.hypotheses.map((h) => this.#probe.features(h.position.x, h.position.y));
    const model = this.roomModel;
    const hypotheses = located.hypotheses.map((h, i) => (model ? { position: h.position, keypoints3d: productSkeleton(roomModelProduct(model), model.spec.choice?.posture ?? [], model, features[i], h.position), presence: h.presence, trackId: h.trackId, evidence: h.evidence } : h));
    return { located, features, hypotheses, presenceThreshold: this.locatorModel.spec.presenceThreshold };
  }

  /** The PoseFrame of an estimate: the locator's frame with the room model's skeletons and its id, hash and pipeline. */
  toPoseFrame(instant: RoomPoseInstant): PoseFrame {
    const frame = this.#locator.toPoseFrame({ ...instant.located, hypotheses: instant.hypotheses });
    if (!this.roomModel) return frame;
    const threshold = this.locatorModel.spec.presenceThreshold;
    frame.persons = toPersons(instant.hypotheses.map((h, slot) => ({ slot, presence: h.presence, position: h.position, keypoints3d: h.keypoints3d, trackId: h.trackId, evidence: h.evidence })), this.environment, threshold, 'none');
    const model = this.roomModel, use = roomModelProduct(model);
    const located = frame.metadata.pipeline.replace(/ → skeleton: training mean pose at each position \(posture not estimated\)/, '');
    const tag = `${model.spec.modelId}@${model.hash.slice(0, 12)} (room ${model.spec.environmentId})`;
    const network = `person probe (change power at ${model.spec.probe.heightsM.length} heights around each person) → ${tag} network`;
    const skeleton = use === 'network' ? `${network} → skeleton`
      : use === 'network-posture' ? `${network} → skeleton moved so its hips are at the located position`
      : `skeleton: ${tag} ${model.spec.choice?.postureSource === 'locator' ? 'the locator\'s mean pose' : 'the room\'s labelled mean posture'} at each position (posture not estimated; the network lost on held-out labelled minutes)`;
    // Frames name what made them: the network only when it ran (`wiflow-room-pose-v1/located-mean-posture` otherwise).
    frame.metadata = { ...frame.metadata, modelId: roomModelEstimatorId(model), modelHash: model.hash, pipeline: `${located} → ${skeleton}` };
    return frame;
  }
}

/** A labelled person at one instant: 3D keypoints (room frame, metres). */
export interface LabelledPerson {
  keypoints3d: number[][];
}

/** The floor position of a labelled skeleton: its hip midpoint. */
export function labelledPosition(keypoints3d: number[][]): { x: number; y: number } {
  return { x: (keypoints3d[11][0] + keypoints3d[12][0]) / 2, y: (keypoints3d[11][1] + keypoints3d[12][1]) / 2 };
}

/**
 * Training rows of one estimate: each labelled person paired with a hypothesis (least total
 * floor distance, as evaluation pairs them); pairs farther apart than `maxFloorErrorM` are the
 * locator's misses and teach posture nothing, so they are left out. Target: the labelled joints
 * relative to the located position (x, y) and their heights.
 */
export function trainingRows(instant: RoomPoseInstant, labelled: readonly LabelledPerson[], maxFloorErrorM = 1): { features: Float32Array; target: Float32Array }[] {
  const truths: GroundTruthPerson[] = labelled.map((p, id) => ({ id, keypoints3d: p.keypoints3d, position: labelledPosition(p.keypoints3d), activity: 'standing' }));
  const indexed = instant.located.hypotheses.map((h, i) => ({ ...h, index: i }));
  const rows: { features: Float32Array; target: Float32Array }[] = [];
  for (const [truth, h] of scoredPairs({ truth: truths, predicted: indexed, presenceThreshold: instant.presenceThreshold })) {
    if (Math.hypot(truth.position.x - h.position.x, truth.position.y - h.position.y) > maxFloorErrorM) continue;
    const target = new Float32Array(51);
    truth.keypoints3d.forEach((k, j) => { target[3 * j] = k[0] - h.position.x; target[3 * j + 1] = k[1] - h.position.y; target[3 * j + 2] = k[2]; });
    rows.push({ features: instant.features[h.index], target });
  }
  return rows;
}

/** The locator's own skeletons (mean pose at each located position): the baseline a room model must beat. */
export function locatedMeanPose(instant: RoomPoseInstant, meanPose: readonly number[][]): (PoseHypothesis & { presence: number })[] {
  return instant.located.hypotheses.map((h) => ({ ...placePose(meanPose, h.position), presence: h.presence }));
}

/** What a room model's pipeline emits: its recorded choice, or the network for models written before the choice. */
export function roomModelProduct(model: RoomPoseModel): RoomPoseProduct {
  return model.spec.choice?.use ?? 'network';
}

/** The estimator id a room model's frames carry: the model id when its network made them, else `<model id>/<what did>` (e.g. `wiflow-room-pose-v1/located-mean-posture`). */
export function roomModelEstimatorId(model: RoomPoseModel): string {
  const use = roomModelProduct(model);
  return use === 'network' ? model.spec.modelId : `${model.spec.modelId}/${use}`;
}

/** One person's skeleton as a candidate makes it. */
export function productSkeleton(use: RoomPoseProduct, posture: readonly (readonly number[])[], model: RoomPoseModel, features: ArrayLike<number>, position: { x: number; y: number }): number[][] {
  if (use === 'located-mean-posture') return placePose(posture as number[][], position).keypoints3d;
  const skeleton = predictSkeleton(model, features, position);
  return use === 'network-posture' ? centreOnHips(skeleton, position) : skeleton;
}

/** Hypotheses of one estimate as a candidate makes them (position and presence the locator's). */
export function productHypotheses(use: RoomPoseProduct, posture: readonly (readonly number[])[], model: RoomPoseModel, located: { hypotheses: readonly { position: { x: number; y: number }; presence: number }[] }, features: readonly Float32Array[]): (PoseHypothesis & { presence: number })[] {
  return located.hypotheses.map((h, k) => ({ position: h.position, keypoints3d: productSkeleton(use, posture, model, features[k], h.position), presence: h.presence }));
}

