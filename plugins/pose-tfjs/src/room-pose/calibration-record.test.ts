// Which rooms are calibrated, as the Installer page is told: read from real model directories
// written by the model writer, including the broken and mismatched ones an installer can end up with.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CALIBRATION_RECORD, roomCalibrationStatus, roomModelDirectory, ROOM_POSE_WEIGHTS, saveRoomPoseModel, writeCalibrationRecord, DEFAULT_PROBE, type RoomPoseSpec } from '../index.js';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(path.join(tmpdir(), 'wiflow-room-calibration-')); dirs.push(d); return d; };
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A small model of the contract's shape for `environmentId` (the figures under test are the record's, not the network's). */
function writeModel(modelsDir: string, environmentId: string) {
  const spec: RoomPoseSpec = {
    format: 'wiflow-room-pose/1', modelId: 'wiflow-room-pose-v1', environmentId, probe: DEFAULT_PROBE, layers: [4, 51],
    featureMean: [0, 0, 0, 0], featureStd: [1, 1, 1, 1], meanPose: Array.from({ length: 17 }, (_, j) => [0, 0, j / 10] as [number, number, number]), training: {},
  };
  return saveRoomPoseModel(roomModelDirectory(modelsDir, environmentId), spec, [{ w: new Float32Array(4 * 51), b: new Float32Array(51) }]);
}

const figures = (mpjpeMm: number) => ({ estimates: 120, mpjpeMm, rootRelativeMpjpeMm: 300, pck02: 0.01, countExact: 0.5, floorErrorM: 1.2 });

describe('roomCalibrationStatus', () => {
  it('a room without a model is not calibrated and is told the command, naming the models directory', () => {
    const modelsDir = tmp();
    const status = roomCalibrationStatus(modelsDir, 'living room');
    expect(status).toMatchObject({ calibrated: false, modelId: null, modelHash: null, modelDir: path.join(modelsDir, 'living_room') });
    expect(status.command).toBe(`wiflow calibrate --recording <labelled recording dir> --held-out <later labelled recording dir> --models ${modelsDir}`);
    expect(status.message).toBe(`not calibrated: no room model in ${path.join(modelsDir, 'living_room')}`);
  });

  it('a model with its calibration record: id, hash, when, labelled minutes and held-out figures', () => {
    const modelsDir = tmp();
    const model = writeModel(modelsDir, 'hall');
    writeCalibrationRecord(model.directory, { format: 'wiflow-room-calibration/1', environmentId: 'hall', modelId: 'wiflow-room-pose-v1', modelHash: model.hash, trainedAt: '2026-11-26T23:00:00.000Z', labelledSeconds: 180, labels: '3d', heldOut: { roomModel: figures(2800), locatedMeanPose: figures(3050) }, heldOutReason: null });
    const status = roomCalibrationStatus(modelsDir, 'hall');
    expect(status).toMatchObject({ calibrated: true, modelId: 'wiflow-room-pose-v1', modelHash: model.hash, trainedAt: Date.parse('2026-11-26T23:00:00.000Z'), labelledMinutes: 3, heldOutReason: null, command: null });
    expect(status.heldOut!.roomModel.mpjpeMm).toBe(2800);
    // A model written before the calibration chose what the room emits: it uses the network, and says so.
    expect(status.choice).toBeNull();
    expect(status.message).toBe(`calibrated: wiflow-room-pose-v1 (sha256 ${model.hash.slice(0, 12)}), 3.0 labelled minutes (3d labels), held-out MPJPE network 2800 mm (located mean pose 3050 mm); uses the network (written before the calibration chose what the room emits)`);
  });

  it('never shows another model\'s figures, and says why each unknown is unknown', () => {
    const modelsDir = tmp();
    const model = writeModel(modelsDir, 'hall');
    // No record (a model from the GPU path, say): calibrated, but when and how well are unknown.
    expect(roomCalibrationStatus(modelsDir, 'hall')).toMatchObject({ calibrated: true, modelHash: model.hash, trainedAt: null, heldOut: null, heldOutReason: expect.stringMatching(/no calibration.json beside the model/) });
    // A record written for an earlier model of the room.
    writeCalibrationRecord(model.directory, { format: 'wiflow-room-calibration/1', environmentId: 'hall', modelId: 'wiflow-room-pose-v1', modelHash: 'a'.repeat(64), trainedAt: '2026-11-26T23:00:00.000Z', labelledSeconds: 600, labels: '3d', heldOut: { roomModel: figures(90), locatedMeanPose: figures(3050) }, heldOutReason: null });
    expect(roomCalibrationStatus(modelsDir, 'hall')).toMatchObject({ calibrated: true, heldOut: null, trainedAt: null, heldOutReason: expect.stringMatching(/describes model sha256 aaaaaaaaaaaa, not this one/) });
    writeFileSync(path.join(model.directory, CALIBRATION_RECORD), '{"format":');
    expect(roomCalibrationStatus(modelsDir, 'hall').heldOutReason).toMatch(/calibration.json is unreadable/);
  });

  it('a broken model or another room\'s model is not calibrated, and says why', () => {
    const modelsDir = tmp();
    const model = writeModel(modelsDir, 'hall');
    writeFileSync(path.join(model.directory, ROOM_POSE_WEIGHTS), Buffer.alloc(10));
    expect(roomCalibrationStatus(modelsDir, 'hall')).toMatchObject({ calibrated: false, command: expect.stringContaining('wiflow calibrate'), message: expect.stringMatching(/cannot be used .*weights.bin holds 10 bytes/) });
    const foreign = writeModel(tmp(), 'kitchen');
    const target = roomModelDirectory(modelsDir, 'office');
    saveRoomPoseModel(target, foreign.spec, foreign.weights);
    expect(roomCalibrationStatus(modelsDir, 'office').message).toBe(`not calibrated: ${target} holds the model of environment kitchen`);
  });
});
