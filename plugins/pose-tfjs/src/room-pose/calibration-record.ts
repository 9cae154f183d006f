import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RoomCalibrationStatus } from '@wiflow/core';
import { z } from 'zod';
import { ROOM_POSE_JSON, loadRoomPoseModel } from './room-pose-model.js';
import { RoomPoseChoiceSchema } from './room-pose-choice.js';
import { roomModelDirectory } from './room-model-directory.js';

/**
 * What `wiflow calibrate` knew when it wrote a room's model: when, on how many labelled minutes,
 * and the held-out report. Beside the model files and outside its hash, since the report is made
 * with the saved model; it names the hash it describes, so a retrained model's old figures are
 * never shown as its own.
 */
export const CALIBRATION_RECORD = 'calibration.json';

const FiguresSchema = z.object({
  estimates: z.number().int().min(0),
  mpjpeMm: z.number().nullable(),
  rootRelativeMpjpeMm: z.number().nullable(),
  pck02: z.number().nullable(),
  countExact: z.number(),
  floorErrorM: z.number().nullable(),
});

/** The calibration record's contract. */
export const CalibrationRecordSchema = z.object({
  format: z.literal('wiflow-room-calibration/1'),
  environmentId: z.string().min(1),
  modelId: z.string().min(1),
  modelHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** ISO time the model was written. */
  trainedAt: z.iso.datetime(),
  labelledSeconds: z.number().min(0),
  /** What the labels held: 3D keypoints, or 2D only (reprojection loss through the declared camera). */
  labels: z.enum(['3d', '2d']),
  heldOut: z.object({ roomModel: FiguresSchema, locatedMeanPose: FiguresSchema }).nullable(),
  heldOutReason: z.string().nullable(),
  /** What the pipeline emits in this room and why (fallback-protocol.md); null in records written before the choice (they use the network). */
  choice: RoomPoseChoiceSchema.omit({ posture: true }).nullable().default(null),
});

/** A calibration record. */
export type CalibrationRecord = z.output<typeof CalibrationRecordSchema>;

/** Write a model directory's calibration record (atomically). */
export function writeCalibrationRecord(modelDir: string, record: z.input<typeof CalibrationRecordSchema>): void {
  const file = path.join(modelDir, CALIBRATION_RECORD);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(CalibrationRecordSchema.parse(record), null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** The command an installer runs to calibrate a room into `modelsDir`. */
export function calibrateCommand(modelsDir: string): string {
  return `wiflow calibrate --recording <labelled recording dir> --held-out <later labelled recording dir> --models ${modelsDir}`;
}

/**
 * Whether an environment is calibrated under `modelsDir`, for people: the model's id and hash
 * (loaded and checked, so a broken model is reported, not shown as calibrated), when it was
 * trained, its labelled minutes and held-out figures, or why each is unknown.
 */
export function roomCalibrationStatus(modelsDir: string, environmentId: string): RoomCalibrationStatus {
  const modelDir = roomModelDirectory(modelsDir, environmentId);
  const none = (message: string): RoomCalibrationStatus => ({
    calibrated: false, modelDir, modelId: null, modelHash: null, trainedAt: null, labelledMinutes: null,
    heldOut: null, heldOutReason: null, choice: null, command: calibrateCommand(modelsDir), message,
  });
  if (!existsSync(path.join(modelDir, ROOM_POSE_JSON))) return none(`not calibrated: no room model in ${modelDir}`);
  let model;
  try {
    model = loadRoomPoseModel(modelDir);
  } catch (error) {
    return none(`not calibrated: the room model in ${modelDir} cannot be used (${(error as Error).message})`);
  }
  if (model.spec.environmentId !== environmentId) return none(`not calibrated: ${modelDir} holds the model of environment ${model.spec.environmentId}`);
  const fineTune = model.spec.training.fineTune as { labelledSeconds?: unknown } | undefined;
  // The choice is read from room-pose.json (its hash covers it), not from the record beside it.
  const { posture: _posture, ...choice } = model.spec.choice ?? { posture: null };
  const uses = model.spec.choice ? `uses ${model.spec.modelId}/${model.spec.choice.use} (${model.spec.choice.reason})` : 'uses the network (written before the calibration chose what the room emits)';
  const base = { calibrated: true, modelDir, modelId: model.spec.modelId, modelHash: model.hash, command: null, choice: model.spec.choice ? (choice as NonNullable<RoomCalibrationStatus['choice']>) : null };
  const recordFile = path.join(modelDir, CALIBRATION_RECORD);
  const withoutRecord = (why: string): RoomCalibrationStatus => ({
    ...base,
    trainedAt: null,
    labelledMinutes: typeof fineTune?.labelledSeconds === 'number' ? fineTune.labelledSeconds / 60 : null,
    heldOut: null,
    heldOutReason: why,
    message: `calibrated: ${model.spec.modelId} (sha256 ${model.hash.slice(0, 12)}); ${uses}; ${why}`,
  });
  if (!existsSync(recordFile)) return withoutRecord(`no ${CALIBRATION_RECORD} beside the model (not written by wiflow calibrate): when it was trained and its held-out figures are unknown`);
  let record: CalibrationRecord;
  try {
    record = CalibrationRecordSchema.parse(JSON.parse(readFileSync(recordFile, 'utf8')));
  } catch (error) {
    return withoutRecord(`${recordFile} is unreadable (${(error as Error).message.split('\n')[0]})`);
  }
  if (record.modelHash !== model.hash) return withoutRecord(`${recordFile} describes model sha256 ${record.modelHash.slice(0, 12)}, not this one: its figures are not this model's`);
  const minutes = record.labelledSeconds / 60;
  const figures = record.heldOut
    ? `held-out MPJPE network ${record.heldOut.roomModel.mpjpeMm === null ? '—' : Math.round(record.heldOut.roomModel.mpjpeMm)} mm (located mean pose ${record.heldOut.locatedMeanPose.mpjpeMm === null ? '—' : Math.round(record.heldOut.locatedMeanPose.mpjpeMm)} mm)`
    : `no held-out figures (${record.heldOutReason})`;
  return {
    ...base,
    trainedAt: Date.parse(record.trainedAt),
    labelledMinutes: minutes,
    heldOut: record.heldOut,
    heldOutReason: record.heldOut ? null : record.heldOutReason,
    message: `calibrated: ${model.spec.modelId} (sha256 ${model.hash.slice(0, 12)}), ${minutes.toFixed(1)} labelled minutes (${record.labels} labels), ${figures}; ${uses}`,
  };
}
