// The acceptance checks of the shipped weights: `wiflow eval --small` reproduces the
// figures recorded beside the weights (and quoted in MODEL_CARD.md), and a flow
// simulator → signal chain → pose.estimate scores within them.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PoseFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import csiPlugin from '@wiflow/plugin-csi';
import simPlugin, { planDataset } from '@wiflow/plugin-sim';
import { afterAll, describe, expect, it } from 'vitest';
import posePlugin, { DatasetRecipeSchema, environmentFromScenario, evaluateSamples, PoseModel, SHIPPED_MODEL_DIR, type EvaluationReport } from '../index.js';
import { signalChainConfig } from '../sim/recipe.js';
import { evaluateShippedModel } from './evaluate-split.js';

const cardFile = path.join(SHIPPED_MODEL_DIR, 'eval-test-small.json');
const shipped = existsSync(path.join(SHIPPED_MODEL_DIR, 'model.json')) && existsSync(cardFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.skipIf(!shipped)('shipped model wiflow-pose-v1', () => {
  const card = shipped ? (JSON.parse(readFileSync(cardFile, 'utf8')) as EvaluationReport & { modelHash: string }) : null;

  it('`wiflow eval --small` reproduces the recorded test-room figures', async () => {
    const { report, description } = await evaluateShippedModel({ modelDir: SHIPPED_MODEL_DIR, split: 'test', small: true, cacheDir: null });
    expect(description.modelHash).toBe(card!.modelHash);
    for (const [bucket, expected] of Object.entries(card!.model)) {
      const got = report.model[bucket];
      expect(got, `bucket ${bucket}`).toBeDefined();
      expect(got.samples).toBe(expected.samples);
      if (expected.mpjpeMm !== null) expect(Math.abs(got.mpjpeMm! - expected.mpjpeMm)).toBeLessThanOrEqual(Math.max(5, expected.mpjpeMm * 0.02));
      if (expected.pck02 !== null) expect(Math.abs(got.pck02! - expected.pck02)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(got.countAccuracy - expected.countAccuracy)).toBeLessThanOrEqual(0.02);
    }
    const all = card!.baselines.meanPoseAtRoomCentre.all;
    expect(Math.abs(report.baselines.meanPoseAtRoomCentre.all.mpjpeMm! - all.mpjpeMm!)).toBeLessThanOrEqual(5);
  });

  it('a flow sim.source → csi.signal-chain → pose.estimate scores within the recorded figures', async () => {
    const model = await PoseModel.load(SHIPPED_MODEL_DIR);
    const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset);
    const plan = planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges as never });
    const session = plan.sessions.find((s) => s.split === 'test')!;
    const environment = environmentFromScenario(session.scenario);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-flow-'));
    dirs.push(dataDir);
    const runtime = await createTestRuntime({ plugins: [simPlugin, csiPlugin, posePlugin], dataDir });
    const flow = buildFlow({
      sim: ['sim.source', { scenario: session.scenario as unknown as Record<string, unknown>, realtime: false, durationS: 12 }],
      chain: ['csi.signal-chain', signalChainConfig(recipe, environment.id)],
      pose: ['pose.estimate', { environments: [environment], densePose: 'none', presenceThreshold: 0 }],
      out: ['test.collect', { output: 'poses' }],
    }, ['sim.frames -> chain.frames', 'chain.windows -> pose.windows', 'pose.poses -> out.in']);
    const result = await runFlow(runtime, flow, {}, 120_000);
    await runtime.stop();
    expect(result.error).toBeNull();
    const frames = result.outputs.poses as PoseFrame[];
    expect(frames.length).toBeGreaterThan(15);
    expect(frames.every((f) => f.metadata.modelHash === model.hash && f.metadata.provenance === 'simulated' && f.truth)).toBe(true);
    const report = evaluateSamples(frames.map((f) => ({
      environment,
      truth: f.truth!.persons,
      predicted: f.persons.map((p) => ({ presence: p.confidence, position: p.position, keypoints3d: p.keypoints3d.map((k) => [k.x, k.y, k.z]) })),
      presenceThreshold: model.spec.output.presenceThreshold,
    })), model.spec.training.meanPose as number[][]);
    // Within the card's small-split figures (one room of that split; a margin for the smaller sample).
    const expected = card!.model.all;
    expect(report.model.all.mpjpeMm!).toBeLessThanOrEqual(expected.mpjpeMm! * 1.3 + 50);
    expect(report.model.all.countAccuracy).toBeGreaterThanOrEqual(expected.countAccuracy - 0.3);
  });
});

it.runIf(!shipped)('reports that the shipped weights are missing', () => {
  console.warn(`no shipped weights at ${SHIPPED_MODEL_DIR}: run \`wiflow train\` and scripts/make-model-card (see docs/model.md)`);
});
