import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PoseFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { buildPoseNetwork, hashModelWeights, poseEstimateNode, PoseModel, setupBackend } from '../index.js';
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
