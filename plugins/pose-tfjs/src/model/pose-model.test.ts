import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPoseNetwork, hashModelWeights, loadLocatorModel, loadRoomPoseModel, PoseEstimator, PoseModel, setupBackend } from '../index.js';
import { syntheticSamples, tinyEnvironment, tinySpec } from '../testing/synthetic.js';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-')); dirs.push(d); return d; };
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('model directory (bring-your-own contract)', () => {
  it('saves and loads model.json + weights.bin + wiflow-model.json with the same outputs and a SHA-256 hash', async () => {
    await setupBackend();
    const spec = tinySpec();
    const network = buildPoseNetwork(spec, { frameChannels: 8, temporalChannels: 8, hidden: 16, seed: 3 });
    const dir = tmp();
    const hash = await PoseModel.save(dir, network, spec);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashModelWeights(dir)).toBe(hash);
    const loaded = await PoseModel.load(dir);
    expect(loaded.hash).toBe(hash);
    const samples = syntheticSamples(spec, tinyEnvironment(), 3, 5);
    const a = new PoseEstimator(PoseModel.fromNetwork(spec, network), [tinyEnvironment()], { densePose: 'none' });
    const b = new PoseEstimator(loaded, [tinyEnvironment()], { densePose: 'none' });
    const input = samples.map((s) => ({ environment: s.environment, windows: [...s.windows] }));
    expect(JSON.stringify(a.estimate(input).map((f) => f.persons))).toBe(JSON.stringify(b.estimate(input).map((f) => f.persons)));
  });

  it('round-trips the anchored position head (a custom layer) and keeps positions inside the room', async () => {
    await setupBackend();
    const spec = tinySpec();
    const network = buildPoseNetwork(spec, { frameChannels: 8, temporalChannels: 8, hidden: 16, seed: 5, positionHead: 'anchors' });
    const dir = tmp();
    await PoseModel.save(dir, network, spec);
    const loaded = await PoseModel.load(dir);
    const samples = syntheticSamples(spec, tinyEnvironment(), 4, 6);
    const input = samples.map((s) => ({ environment: s.environment, windows: [...s.windows] }));
    const a = new PoseEstimator(PoseModel.fromNetwork(spec, network), [tinyEnvironment()], { densePose: 'none', presenceThreshold: 0 }).estimate(input);
    const b = new PoseEstimator(loaded, [tinyEnvironment()], { densePose: 'none', presenceThreshold: 0 }).estimate(input);
    expect(JSON.stringify(b.map((f) => f.persons))).toBe(JSON.stringify(a.map((f) => f.persons)));
    for (const p of a.flatMap((f) => f.persons)) {
      expect(p.position.x).toBeGreaterThanOrEqual(0); expect(p.position.x).toBeLessThanOrEqual(4);
      expect(p.position.y).toBeGreaterThanOrEqual(0); expect(p.position.y).toBeLessThanOrEqual(3);
    }
  });

  it('rejects a missing directory, a broken contract and a network that does not fit it', async () => {
    await expect(PoseModel.load(path.join(tmpdir(), 'no-such-model-dir'))).rejects.toMatchObject({ code: 'WIFLOW_POSE_MODEL_NOT_FOUND' });
    const spec = tinySpec();
    const dir = tmp();
    await PoseModel.save(dir, buildPoseNetwork(spec, { frameChannels: 8, temporalChannels: 8, hidden: 16, seed: 1 }), spec);
    const file = path.join(dir, 'wiflow-model.json');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, '{ not json');
    await expect(PoseModel.load(dir)).rejects.toMatchObject({ code: 'WIFLOW_POSE_MODEL_INVALID' });
    writeFileSync(file, JSON.stringify({ ...JSON.parse(good), input: { ...spec.input, subcarriers: 30 } }));
    await expect(PoseModel.load(dir)).rejects.toThrow(/do not match the contract/);
  });

  it('names the files each kind of model needs when its directory has none', async () => {
    const empty = tmp();
    await expect(PoseModel.load(empty)).rejects.toThrow(/expected model\.json, weights\.bin and wiflow-model\.json\)$/);
    expect(() => loadLocatorModel(empty)).toThrow(/^no model at .* \(expected locator\.json\)$/);
    expect(() => loadRoomPoseModel(empty)).toThrow(/^no model at .* \(expected room-pose\.json and weights\.bin\)$/);
    for (const load of [() => loadLocatorModel(empty), () => loadRoomPoseModel(empty)]) expect(load).toThrow(expect.objectContaining({ code: 'WIFLOW_POSE_MODEL_NOT_FOUND' }));
  });
});
