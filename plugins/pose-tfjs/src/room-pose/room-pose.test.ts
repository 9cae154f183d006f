// The room-pose loop with simulated rooms standing in for real ones: a labelled recording made
// by the "real" room's virtual camera, `wiflow calibrate`'s checks, per-environment models.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  calibrateRoom, drawRoomPair, loadLocatorModel, loadRoomPoseModel, readLabelledRoomRecording, roomModelDirectory, RoomPoseEstimator,
  roomCalibrationStatus, saveRoomPoseModel, SHIPPED_LOCATOR_DIR, writeLabelledSession, ROOM_POSE_JSON, type RoomPair,
} from '../index.js';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(path.join(tmpdir(), 'wiflow-room-pose-')); dirs.push(d); return d; };
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A labelled recording of the "real" room: capture, its empty-room reference, COCO labels (2D and 3D) from the room's camera at 10 Hz. */
function writeLabelledRecording(pair: RoomPair, seed: string, seconds: number): string {
  return writeLabelledSession(sim, pair, { role: 'labelled', seed, seconds, people: [1, 2], personHeight: [1.6, 1.8] }, tmp());
}

/** A copy of a recording directory with one file rewritten. */
function variant(dir: string, file: string, edit: (json: any) => unknown): string {
  const out = tmp();
  for (const f of ['environment.json', 'reference.json', 'csi.wfr', 'labels.json']) writeFileSync(path.join(out, f), readFileSync(path.join(dir, f)));
  writeFileSync(path.join(out, file), JSON.stringify(edit(JSON.parse(readFileSync(path.join(dir, file), 'utf8')))));
  return out;
}

let pair: RoomPair;
let recording: string;
beforeAll(() => {
  // Without realism v2 (the locator finds people within a metre there): these tests are about files and rooms, not figures.
  pair = { ...drawRoomPair(sim, 'test-room'), realism: 'none' };
  recording = writeLabelledRecording(pair, 'test-labelled', 12);
});

describe('labelled room recordings: bad input is refused naming file and field', () => {
  it('reads a good recording', async () => {
    const r = await readLabelledRoomRecording(recording);
    expect(r.environment.id).toBe(pair.environmentId);
    expect(r.has3d).toBe(true);
    expect(r.labels.length).toBeGreaterThan(30);
  });

  it('labels whose timestamps do not overlap the capture', async () => {
    const dir = variant(recording, 'labels.json', (l) => ({ ...l, images: l.images.map((i: { timestamp: number }) => ({ ...i, timestamp: i.timestamp + 86_400_000 })) }));
    await expect(readLabelledRoomRecording(dir)).rejects.toThrow(/labels\.json: field images\[\]\.timestamp .* no label falls inside the capture/);
  });

  it('a camera that does not fit the environment', async () => {
    const dir = variant(recording, 'environment.json', (e) => ({ ...e, camera: { ...e.camera, position: [e.room.width + 3, 1, 2] } }));
    await expect(readLabelledRoomRecording(dir)).rejects.toThrow(/environment\.json: field camera\.position .* outside the room/);
  });

  it('a wrong keypoint count', async () => {
    const dir = variant(recording, 'labels.json', (l) => ({ ...l, annotations: l.annotations.map((a: { keypoints: number[] }, i: number) => (i === 2 ? { ...a, keypoints: a.keypoints.slice(0, 48) } : a)) }));
    await expect(readLabelledRoomRecording(dir)).rejects.toThrow(/labels\.json: field annotations\[2\]\.keypoints has 48 numbers \(16 keypoints\)/);
  });
});

describe('room models are per environment', () => {
  it('calibrates into the environment\'s own directory, never over another environment\'s model, and the pipeline uses it in that room only', async () => {
    const modelsDir = tmp();
    const result = await calibrateRoom({ recordingDir: recording, modelsDir, twinSeconds: 10 });
    expect(result.modelDir).toBe(roomModelDirectory(modelsDir, pair.environmentId));
    expect(result.heldOut).toBeNull();
    expect(result.heldOutReason).toMatch(/held-out/);
    const model = loadRoomPoseModel(result.modelDir);
    expect(model.hash).toBe(result.modelHash);
    expect(model.spec.environmentId).toBe(pair.environmentId);
    // The Installer page's view of it: this model, just trained, on 12 s of labels, no held-out figures and why.
    const status = roomCalibrationStatus(modelsDir, pair.environmentId);
    expect(status).toMatchObject({ calibrated: true, modelId: 'wiflow-room-pose-v1', modelHash: model.hash, heldOut: null, heldOutReason: result.heldOutReason, command: null });
    expect(status.labelledMinutes! * 60).toBeCloseTo(result.labelledSeconds, 6);
    expect(Date.now() - status.trainedAt!).toBeLessThan(600_000);

    // Its frames name the room model, its hash and its room.
    const r = await readLabelledRoomRecording(recording);
    const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
    const estimator = new RoomPoseEstimator(locator, r.environment, r.reference, model);
    let frame = null;
    for (const f of r.frames) { const instant = estimator.locate(f); if (instant) { frame = estimator.toPoseFrame(instant); break; } }
    // The calibration chose what the room emits (12 s of labels: too few held out, so the labelled mean posture) and recorded it in the model.
    expect(result.choice.use).toBe('located-mean-posture');
    expect(result.choice.reason).toMatch(/fewer than 30/);
    expect(model.spec.choice).toMatchObject({ use: result.choice.use, postureSource: 'labelled', metric: 'mpjpeMm' });
    expect(status.choice).toMatchObject({ use: result.choice.use, heldOutCount: result.choice.heldOutCount });
    expect(status.message).toContain(`uses wiflow-room-pose-v1/${result.choice.use}`);
    expect(frame!.metadata.modelId).toBe('wiflow-room-pose-v1/located-mean-posture');
    expect(frame!.metadata.modelHash).toBe(model.hash);
    expect(frame!.metadata.pipeline).toContain(`room ${pair.environmentId}`);

    // Another room refuses it.
    const other = { ...r.environment, id: 'another-room' };
    expect(() => new RoomPoseEstimator(locator, other, { ...r.reference, environmentId: 'another-room' }, model)).toThrow(/trained for environment .* not another-room/);

    // A directory that holds another environment's model is never overwritten.
    const foreign = saveRoomPoseModel(path.join(tmp(), 'x'), { ...model.spec, environmentId: 'another-room' }, model.weights);
    const target = roomModelDirectory(tmp(), pair.environmentId);
    saveRoomPoseModel(target, foreign.spec, foreign.weights);
    const before = readFileSync(path.join(target, ROOM_POSE_JSON), 'utf8');
    await expect(calibrateRoom({ recordingDir: recording, modelsDir: path.dirname(target), twinSeconds: 10 })).rejects.toThrow(/WIFLOW_POSE_ROOM_MODEL_CONFLICT|holds the room-pose model of environment another-room/);
    expect(readFileSync(path.join(target, ROOM_POSE_JSON), 'utf8')).toBe(before);
  }, 600_000);
});

describe('2D-only labelled recordings', () => {
  it('calibrate through the reprojection loss; a held-out recording without 3D gives no figures and says why', async () => {
    const labelled2d = writeLabelledSession(sim, pair, { role: 'labelled', seed: 'test-2d', seconds: 12, people: [1, 2], personHeight: [1.6, 1.8] }, tmp(), { labels: '2d' });
    const heldOut2d = writeLabelledSession(sim, pair, { role: 'test', seed: 'test-2d-e', seconds: 4, people: [1, 1], personHeight: [1.8, 1.95] }, tmp(), { labels: '2d' });
    expect((await readLabelledRoomRecording(labelled2d)).has3d).toBe(false);
    const modelsDir = tmp();
    const result = await calibrateRoom({ recordingDir: labelled2d, heldOutDir: heldOut2d, modelsDir, twinSeconds: 10 });
    expect(result.labels).toBe('2d');
    expect(result.labelledRows).toBeGreaterThanOrEqual(10);
    expect(result.heldOut).toBeNull();
    expect(result.heldOutReason).toBe(`${path.join(heldOut2d, 'labels.json')} has no keypoints_3d: the held-out figures (MPJPE, PCK) need 3D labels`);
    expect(loadRoomPoseModel(result.modelDir).spec.training).toMatchObject({ fineTune: { labels: '2d' } });
    expect(roomCalibrationStatus(modelsDir, pair.environmentId).message).toMatch(/\(2d labels\), no held-out figures/);
  }, 600_000);
});
