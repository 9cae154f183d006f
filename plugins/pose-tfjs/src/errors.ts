import { defineError } from '@wiflow/core';

/** Every error the pose plugin raises, one place (codes are never reused). */
export const PoseErrors = {
  modelInvalid: defineError('WIFLOW_POSE_MODEL_INVALID', 422, (directory: string, reason: string) => `model directory ${directory} is not a valid wiflow pose model: ${reason}`),
  /** `expected`: the files this kind of model needs (the pose network's by default). */
  modelNotFound: defineError('WIFLOW_POSE_MODEL_NOT_FOUND', 404, (directory: string, expected: string = 'model.json, weights.bin and wiflow-model.json') => `no model at ${directory} (expected ${expected})`),
  windowInvalid: defineError('WIFLOW_POSE_WINDOW_INVALID', 422, (reason: string) => `CSI window rejected: ${reason}`),
  environmentUnknown: defineError('WIFLOW_POSE_ENVIRONMENT_UNKNOWN', 422, (environmentId: string) =>
    `no geometry for environment ${environmentId}: give pose.estimate an environment (room, links, camera) in its config`),
  datasetInvalid: defineError('WIFLOW_POSE_DATASET_INVALID', 422, (reason: string) => `dataset rejected: ${reason}`),
  labelsInvalid: defineError('WIFLOW_POSE_LABELS_INVALID', 422, (reason: string) => `calibration labels rejected: ${reason}`),
  checkpointInvalid: defineError('WIFLOW_POSE_CHECKPOINT_INVALID', 422, (directory: string, reason: string) => `cannot resume from ${directory}: ${reason}`),
  referenceMissing: defineError('WIFLOW_POSE_REFERENCE_MISSING', 422, (subject: string, what: string) =>
    `${subject}: ${what}; record the empty room with \`wiflow locate record\` or the studio's Installer page`),
  referenceMismatch: defineError('WIFLOW_POSE_REFERENCE_MISMATCH', 422, (link: string, field: string, reference: string, actual: string) =>
    `link ${link}: field ${field} of the empty-room reference is ${reference}, the link has ${actual}; re-record the reference for this hardware`),
  referenceRefused: defineError('WIFLOW_POSE_REFERENCE_REFUSED', 422, (environmentId: string, reasons: string) => `empty-room recording of ${environmentId} refused: ${reasons}`),
  captureLinksUnknown: defineError('WIFLOW_POSE_CAPTURE_LINKS_UNKNOWN', 422, (capture: string, captureLinks: string, environmentId: string, environmentLinks: string) =>
    `${capture}: none of its links (${captureLinks}) is a link of environment ${environmentId} (${environmentLinks}), so nothing of it was used: give a capture of these radios, or name the radios in the environment (tx and rx ids) as the capture names them`),
  referenceBusy: defineError('WIFLOW_POSE_REFERENCE_BUSY', 409, (environmentId: string) => `an empty-room recording of ${environmentId} is already running`),
  roomModelConflict: defineError('WIFLOW_POSE_ROOM_MODEL_CONFLICT', 409, (directory: string, owner: string, environmentId: string) =>
    `${directory} holds the room-pose model of environment ${owner}; a calibration of ${environmentId} never overwrites another environment's model (write it to its own directory)`),
  simulatorMissing: defineError('WIFLOW_POSE_SIMULATOR_MISSING', 500, (reason: string) => `the simulator (@wiflow/plugin-sim) is needed here: ${reason}`),
  profilesMissing: defineError('WIFLOW_POSE_PROFILES_MISSING', 500, (reason: string) => `hardware profiles (--profile) come from @wiflow/plugin-sim: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const poseErrorCatalogue: { code: string; status: number }[] = Object.values(PoseErrors).map((e) => ({ code: e.code, status: e.status }));
