import type { PoseModel } from '../model/pose-model.js';
import { SLOT_SIZE } from '../model/contract.js';
import { decodeSlots } from '../model/targets.js';
import type { PackedDataset } from '../training/dataset.js';
import { evaluateSamples, meanPose, type EvaluatedSample, type EvaluationReport } from './metrics.js';

/** The training-set mean pose a model recorded in its contract, if any. */
export function recordedMeanPose(model: PoseModel): number[][] | null {
  const pose = model.spec.training.meanPose;
  return Array.isArray(pose) && pose.length === 17 ? (pose as number[][]) : null;
}

/**
 * Run a model over a packed dataset and score it per true person-count bucket next to the
 * two mean-pose baselines. `baselinePose` is the training set's mean pose (the model's
 * recorded one when null, else the evaluated data's own, which flatters the baselines).
 */
export function evaluateModel(model: PoseModel, data: PackedDataset, baselinePose: number[][] | null, batchSize = 64): EvaluationReport {
  const output = model.predict(data.csi, data.geometry, data.count, batchSize);
  const P = model.spec.output.maxPersons;
  const pose = baselinePose ?? recordedMeanPose(model) ?? meanPose(data.truths.flat());
  function* samples(): Generator<EvaluatedSample> {
    for (let i = 0; i < data.count; i++) {
      const environment = data.environments[data.environmentIndex[i]];
      yield {
        environment,
        truth: data.truths[i],
        predicted: decodeSlots(output, i * P * SLOT_SIZE, P, environment),
        presenceThreshold: model.spec.output.presenceThreshold,
      };
    }
  }
  return evaluateSamples(samples(), pose);
}
