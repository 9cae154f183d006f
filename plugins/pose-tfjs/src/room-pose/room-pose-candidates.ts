import type { GroundTruthPerson } from '@wiflow/core';
import { evaluateSamples, type EvaluatedSample } from '../eval/metrics.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { chooseProduct, ROOM_POSE_PRODUCTS, type RoomPoseChoice, type RoomPoseProduct } from './room-pose-choice.js';
import { productHypotheses, type RoomPoseInstant } from './room-pose-estimator.js';
import type { RoomPoseModel } from './room-pose-model.js';

/** A held-out estimate with its labelled people (3D). */
export interface HeldOutEstimate {
  instant: Pick<RoomPoseInstant, 'located' | 'features'>;
  truth: GroundTruthPerson[];
}

/**
 * Each candidate's held-out MPJPE (mm, skeletons as placed, scored as `evaluateSamples` scores
 * them) and the protocol's choice from them: the calibration's step that decides what a room
 * emits (fallback-protocol.md).
 */
export function chooseOnHeldOut3d(heldOut: readonly HeldOutEstimate[], environment: EnvironmentGeometry, posture: readonly (readonly number[])[], model: RoomPoseModel, presenceThreshold: number): { use: RoomPoseProduct; reason: string; figures: RoomPoseChoice['figures']; count: number } {
  const figures = {} as RoomPoseChoice['figures'];
  for (const candidate of ROOM_POSE_PRODUCTS) {
    const samples: EvaluatedSample[] = heldOut.map((e) => ({ environment, truth: e.truth, predicted: productHypotheses(candidate, posture, model, e.instant.located, e.instant.features), presenceThreshold }));
    figures[candidate] = evaluateSamples(samples, posture as number[][]).model.all?.mpjpeMm ?? null;
  }
  return { ...chooseProduct(figures, heldOut.length, 'mpjpeMm'), figures, count: heldOut.length };
}
