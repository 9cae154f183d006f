// pose.room in a flow: a calibrated room gets its own model's skeletons (id and hash in every
// frame), an uncalibrated room the locator's, and a model of another room is refused. Without
// `roomModels` it looks where `wiflow calibrate` writes: `<data dir>/room-pose`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import type { PoseFrame, Runtime } from '@wiflow/core';
import csiPlugin from '@wiflow/plugin-csi';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { DEFAULT_PROBE, ROOM_POSE_JSON, drawRoomPair, sessionScenario, fitRoomPose, loadLocatorModel, RoomPoseEstimator, roomModelDirectory, saveRoomPoseModel, SHIPPED_LOCATOR_DIR, simulateReference, trainingRows, writeReference, type RoomPoseModel } from '../index.js';

// A twin session of the protocol's test room: people in it, and the room's declared geometry.
const pair = { ...drawRoomPair(sim, 'node-room'), realism: 'none' as const };
const scenario = sessionScenario(sim, pair, { role: 'twin', seed: 'node', seconds: 4, people: [2, 2], personHeight: [1.6, 1.8] });
const environment = pair.environment;
let dir: string;
let runtime: Runtime;
let model: RoomPoseModel;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-room-'));
  const reference = simulateReference(sim as never, scenario as never, 2);
  writeReference(path.join(dir, 'room.json'), reference);
  // A small model of the room trained on its own simulated truth: enough to be a room model, not a good one.
  const estimator = new RoomPoseEstimator(loadLocatorModel(SHIPPED_LOCATOR_DIR), environment, reference, null);
  const rows: { features: Float32Array; target: Float32Array }[] = [];
  for (const tick of new sim.Simulator(scenario).run(4)) {
    for (const frame of tick.frames) { const instant = estimator.locate(frame); if (instant) rows.push(...trainingRows(instant, instant.located.truth?.persons ?? [], 3)); }
  }
  const width = estimator.featureSize;
  const features = new Float32Array(rows.length * width), targets = new Float32Array(rows.length * 51);
  rows.forEach((r, i) => { features.set(r.features, i * width); targets.set(r.target, i * 51); });
  const fit = await fitRoomPose({ features, targets, count: rows.length, width }, { format: 'wiflow-room-pose/1', modelId: 'wiflow-room-pose-v1', environmentId: environment.id, probe: DEFAULT_PROBE, training: {} }, { epochs: 2, learningRate: 1e-3, seed: 1, hidden: [16] });
  model = saveRoomPoseModel(roomModelDirectory(path.join(dir, 'rooms'), environment.id), fit.spec, fit.weights);
  saveRoomPoseModel(roomModelDirectory(path.join(dir, 'foreign'), environment.id), { ...fit.spec, environmentId: 'kitchen' }, fit.weights);
  runtime = await createTestRuntime({ plugins: [simPlugin, csiPlugin, plugin], dataDir: dir });
  await runtime.start();
}, 300_000);
afterAll(async () => {
  await runtime.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(config: Record<string, unknown>) {
  const job = await runtime.runJob(buildFlow({
    sim: ['sim.source', { scenario, realtime: false, durationS: 4 }],
    room: ['pose.room', { environments: [environment], references: [path.join(dir, 'room.json')], ...config }],
    poses: ['test.collect', { output: 'poses' }],
  }, ['sim.frames -> room.frames', 'room.poses -> poses.in']), { timeoutMs: 120_000 });
  return job.done;
}

describe('pose.room', () => {
  it('uses the room\'s own model where the room is calibrated, the locator where it is not', async () => {
    const calibrated = await run({ roomModels: path.join(dir, 'rooms') });
    expect(calibrated.error).toBeNull();
    const frames = calibrated.outputs.poses as PoseFrame[];
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((f) => f.metadata.modelId === 'wiflow-room-pose-v1' && f.metadata.modelHash === model.hash)).toBe(true);
    const plain = await run({});
    expect((plain.outputs.poses as PoseFrame[]).every((f) => f.metadata.modelId === 'wiflow-locate-v2')).toBe(true);
  }, 300_000);

  it('refuses a model trained for another environment', async () => {
    const foreign = await run({ roomModels: path.join(dir, 'foreign') });
    expect(foreign.status).toBe('failed');
    expect(foreign.error).toMatch(/trained for environment kitchen, not room-node-room/);
  }, 300_000);

  it('without roomModels uses the room\'s model in <data dir>/room-pose, and stops on a damaged one there', async () => {
    const defaultDir = roomModelDirectory(path.join(dir, 'room-pose'), environment.id);
    const before = await run({});
    expect(before.error).toBeNull();
    const mean = before.outputs.poses as PoseFrame[];
    expect(mean.length).toBeGreaterThan(0);
    // Not calibrated yet: the locator's id and hash, and a pipeline that says the posture is not estimated.
    expect(mean.every((f) => f.metadata.modelId === 'wiflow-locate-v2' && f.metadata.modelHash !== model.hash && /posture not estimated/.test(f.metadata.pipeline))).toBe(true);

    // What `wiflow calibrate` leaves there: the same model, so the same hash.
    saveRoomPoseModel(defaultDir, model.spec, model.weights);
    const after = await run({});
    expect(after.error).toBeNull();
    const frames = after.outputs.poses as PoseFrame[];
    expect(frames.length).toBe(mean.length);
    expect(frames.every((f) => f.metadata.modelId === 'wiflow-room-pose-v1' && f.metadata.modelHash === model.hash && f.metadata.pipeline.includes('room room-node-room'))).toBe(true);

    // A damaged model is not skipped in silence (the room would pass for calibrated while showing the mean pose).
    writeFileSync(path.join(defaultDir, ROOM_POSE_JSON), '{ "format": ');
    const damaged = await run({});
    expect(damaged.status).toBe('failed');
    expect(damaged.error).toContain(defaultDir);
    expect(damaged.error).toContain(ROOM_POSE_JSON);
    rmSync(defaultDir, { recursive: true, force: true });
  }, 300_000);
});
