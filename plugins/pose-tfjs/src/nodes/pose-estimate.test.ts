import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CsiWindow, PoseFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime, runNode } from '@wiflow/core/testing';
import csiPlugin, { SignalChain } from '@wiflow/plugin-csi';
import simPlugin, { planDataset, Simulator } from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { buildPoseNetwork, DatasetRecipeSchema, environmentFromScenario, hashModelWeights, poseEstimateNode, PoseModel, SHIPPED_MODEL_DIR, setupBackend } from '../index.js';
import { signalChainConfig, signalChainOptions } from '../sim/recipe.js';
import { syntheticSamples, tinyEnvironment, tinySpec } from '../testing/synthetic.js';

let modelDir = '';
const spec = tinySpec({ modelId: 'byom-test' });
const environment = tinyEnvironment();

beforeAll(async () => {
  await setupBackend();
  modelDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-node-'));
  await PoseModel.save(modelDir, buildPoseNetwork(spec, { frameChannels: 8, temporalChannels: 8, hidden: 16, seed: 2 }), spec);
});
afterAll(() => rmSync(modelDir, { recursive: true, force: true }));

describe('pose.estimate', () => {
  it('batches one window per link into PoseFrames with model id, weights hash, provenance and derived dense pose', async () => {
    const samples = syntheticSamples(spec, environment, 6, 11);
    const windows = samples.flatMap((s) => s.windows);
    const result = await runNode(poseEstimateNode, {
      plugins: [plugin],
      config: { model: modelDir, environments: [environment], densePose: 'parts+iuv', presenceThreshold: 0 },
      inputs: { windows },
    });
    expect(result.error).toBeNull();
    const frames = result.outputs.poses as PoseFrame[];
    expect(frames).toHaveLength(6);
    const frame = frames[0];
    expect(frame.metadata.modelId).toBe('byom-test');
    expect(frame.metadata.modelHash).toBe(hashModelWeights(modelDir));
    expect(frame.metadata.provenance).toBe('simulated');
    expect(frame.metadata.linkCount).toBe(2);
    expect(frame.environmentId).toBe(environment.id);
    expect(frame.persons).toHaveLength(2);
    const person = frame.persons[0];
    expect(person.keypoints).toHaveLength(17);
    expect(person.keypoints3d).toHaveLength(17);
    expect(person.densePose?.source).toBe('derived');
    expect(frame.metadata.pipeline).toContain('dense pose derived');
    expect(frames.map((f) => f.frameId)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a link\'s late window completes its own instant, not the next one', async () => {
    const [first, second] = syntheticSamples(spec, environment, 2, 5);
    // Link 1's window of the first instant arrives after link 0's window of the second.
    const windows = [first.windows[0], second.windows[0], first.windows[1], second.windows[1]];
    const result = await runNode(poseEstimateNode, { plugins: [plugin], config: { model: modelDir, environments: [environment], densePose: 'none' }, inputs: { windows } });
    expect(result.error).toBeNull();
    const frames = result.outputs.poses as PoseFrame[];
    expect(frames.map((f) => f.timestamp)).toEqual([first.windows[0].time, second.windows[0].time]);
    expect(result.counters?.stats?.staleWindows).toBe(0);
  });

  it('fails a message with a clear error for a window the model cannot take or an unknown environment', async () => {
    const [sample] = syntheticSamples(spec, environment, 1, 3);
    const bad = { ...sample.windows[0], nsc: 30 };
    const r1 = await runNode(poseEstimateNode, { plugins: [plugin], config: { model: modelDir, environments: [environment] }, inputs: { windows: [bad] } });
    expect(r1.status).toBe('failed');
    expect(r1.error).toMatch(/subcarriers/);
    const r2 = await runNode(poseEstimateNode, { plugins: [plugin], config: { model: modelDir, environments: [] }, inputs: { windows: [sample.windows[0]] } });
    expect(r2.error).toMatch(/no geometry for environment room-a/);
  });
});

describe('pose.estimate on windows cut on a time grid (packet loss)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  async function testRoom() {
    const model = await PoseModel.load(SHIPPED_MODEL_DIR);
    const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset);
    const plan = planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges as never });
    const session = plan.sessions.find((s) => s.split === 'test')!;
    return { recipe, session, environment: environmentFromScenario(session.scenario) };
  }
  const withLoss = (scenario: object, packetLoss: number) => ({ ...scenario, impairments: { ...(scenario as { impairments: object }).impairments, packetLoss } });

  it('without loss the time grid gives the windows of frame counting (the model\'s inputs do not change)', async () => {
    const { recipe, session, environment } = await testRoom();
    const scenario = withLoss(session.scenario, 0);
    const counted = new SignalChain(signalChainOptions(recipe, environment.id));
    const options = signalChainOptions(recipe, environment.id);
    const timed = new SignalChain({ ...options, window: { ...options.window!, rateHz: 20 } });
    const a: CsiWindow[] = [];
    const b: CsiWindow[] = [];
    for (const tick of new Simulator(scenario as never).run(6)) {
      for (const frame of tick.frames) {
        a.push(...counted.push(frame));
        b.push(...timed.push(frame));
      }
    }
    expect(a.length).toBe(3 * (1 + Math.floor((120 - 16) / 5)));
    expect(b.length).toBe(a.length);
    a.forEach((w, i) => {
      expect(b[i].link).toEqual(w.link);
      expect(b[i].amplitude).toEqual(w.amplitude);
      expect(b[i].phase).toEqual(w.phase);
    });
    expect(timed.stats()).toMatchObject({ filledSlots: 0, gapDroppedWindows: 0, lateFrames: 0 });
  });

  it('with 5 % loss on three links every instant has one window per link ending at the same timestamp, and a pose frame', async () => {
    const { recipe, session, environment } = await testRoom();
    const run = async (rateHz: number) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-loss-'));
      dirs.push(dataDir);
      const runtime = await createTestRuntime({ plugins: [simPlugin, csiPlugin, plugin], dataDir });
      await runtime.start();
      const job = await runtime.runJob(buildFlow({
        sim: ['sim.source', { scenario: withLoss(session.scenario, 0.05), realtime: false, durationS: 12 }],
        chain: ['csi.signal-chain', { ...signalChainConfig(recipe, environment.id), rateHz }],
        pose: ['pose.estimate', { environments: [environment], densePose: 'none' }],
        windows: ['test.collect', { output: 'windows' }],
        poses: ['test.collect', { output: 'poses' }],
      }, ['sim.frames -> chain.frames', 'chain.windows -> pose.windows', 'chain.windows -> windows.in', 'pose.poses -> poses.in']), { timeoutMs: 120_000 });
      const result = await job.done;
      const counters = job.counters();
      await runtime.stop();
      expect(result.error).toBeNull();
      return { windows: result.outputs.windows as CsiWindow[], poses: result.outputs.poses as PoseFrame[], chain: counters.chain.stats!, pose: counters.pose.stats! };
    };
    const timed = await run(20);
    // The simulator lost packets (filled slots), yet every link has a window at every instant.
    expect(timed.chain.filledSlots as number).toBeGreaterThan(10);
    const instants = new Map<number, CsiWindow[]>();
    for (const w of timed.windows) instants.set(w.time, [...(instants.get(w.time) ?? []), w]);
    const expected = 1 + Math.floor((240 - 16) / 5);
    expect(instants.size).toBe(expected);
    for (const set of instants.values()) {
      expect(new Set(set.map((w) => `${w.link.tx}->${w.link.rx}`)).size).toBe(3);
      expect(set).toHaveLength(3);
      expect(new Set(set.map((w) => w.endTimestamp)).size).toBe(1);
    }
    expect(timed.pose.staleWindows).toBe(0);
    expect(timed.poses.map((f) => f.timestamp)).toEqual([...instants.keys()]);
    // Frame counting on the same frames: the links drift apart and instants are lost as stale.
    const counted = await run(0);
    expect(counted.pose.staleWindows as number).toBeGreaterThan(0);
    expect(counted.poses.length).toBeLessThan(expected);
  });
});
