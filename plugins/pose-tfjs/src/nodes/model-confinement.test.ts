import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileAccess, type PoseFrame, type Runtime } from '@wiflow/core';
import { buildFlow, confinementFolders, confinementRefusal as refusal, createTestRuntime } from '@wiflow/core/testing';
import simPlugin from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { buildPoseNetwork, PoseModel, setupBackend } from '../index.js';
import { LOCATOR_JSON, SHIPPED_LOCATOR_DIR } from '../locate/locator-model.js';
import { syntheticSamples, tinyEnvironment, tinySpec } from '../testing/synthetic.js';

const spec = tinySpec({ modelId: 'confined-test' });
const environment = tinyEnvironment();

describe('model, reference and scenario paths of pose nodes in a confined run', () => {
  const { base, root, outside } = confinementFolders('wiflow-pose-confine-');
  let runtime: Runtime;

  beforeAll(async () => {
    await setupBackend();
    const network = buildPoseNetwork(spec, { frameChannels: 8, temporalChannels: 8, hidden: 16, seed: 2 });
    await PoseModel.save(path.join(root, 'model'), network, spec);
    await PoseModel.save(path.join(outside, 'model'), network, spec);
    symlinkSync(path.join(outside, 'model'), path.join(root, 'model-link'));
    // A folder inside whose weights are a symlink to a file outside.
    mkdirSync(path.join(root, 'model-mixed'));
    for (const file of ['model.json', 'wiflow-model.json']) copyFileSync(path.join(root, 'model', file), path.join(root, 'model-mixed', file));
    symlinkSync(path.join(outside, 'model', 'weights.bin'), path.join(root, 'model-mixed', 'weights.bin'));
    mkdirSync(path.join(root, 'locator'));
    copyFileSync(path.join(SHIPPED_LOCATOR_DIR, LOCATOR_JSON), path.join(root, 'locator', LOCATOR_JSON));
    mkdirSync(path.join(outside, 'locator'));
    copyFileSync(path.join(SHIPPED_LOCATOR_DIR, LOCATOR_JSON), path.join(outside, 'locator', LOCATOR_JSON));
    mkdirSync(path.join(root, 'locator-mixed'));
    symlinkSync(path.join(outside, 'locator', LOCATOR_JSON), path.join(root, 'locator-mixed', LOCATOR_JSON));
    writeFileSync(path.join(outside, 'reference.json'), '{}');
    symlinkSync(path.join(outside, 'reference.json'), path.join(root, 'reference-link.json'));
    writeFileSync(path.join(outside, 'scenario.json'), '{}');
    symlinkSync(path.join(outside, 'scenario.json'), path.join(root, 'scenario-link.json'));
    runtime = await createTestRuntime({ plugins: [plugin, simPlugin] });
    await runtime.start();
  });
  afterAll(async () => {
    await runtime.stop();
    rmSync(base, { recursive: true, force: true });
  });

  async function run(nodeType: 'pose.estimate' | 'pose.locate', config: Record<string, unknown>, inputs: unknown[] = []) {
    const data = buildFlow({ feed: ['test.feed', { input: 'in' }], pose: [nodeType, config], out: ['test.collect', { output: 'poses' }] }, [nodeType === 'pose.estimate' ? 'feed.out -> pose.windows' : 'feed.out -> pose.frames', 'pose.poses -> out.in']);
    const job = await runtime.runJob(data, { inputs: { in: inputs }, timeoutMs: 60_000, access: { files: new FileAccess([root]) } });
    return job.done;
  }

  it('pose.estimate loads a model folder inside its roots, and the shipped model by default', async () => {
    const windows = syntheticSamples(spec, environment, 2, 11).flatMap((s) => s.windows);
    for (const model of ['model', path.join(root, 'model')]) {
      const result = await run('pose.estimate', { model, environments: [environment], presenceThreshold: 0 }, windows);
      expect(result.error, model).toBeNull();
      expect((result.outputs.poses as PoseFrame[]).map((f) => f.metadata.modelId)).toEqual(['confined-test', 'confined-test']);
    }
    const shipped = await run('pose.estimate', { environments: [environment] });
    expect(shipped.error).toBeNull();
    expect(shipped.status).toBe('completed');
  });

  it('pose.estimate refuses model folders and scenarios outside, through symlinks (folder or weight file) and missing, with one message', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: path.join(outside, 'model') }, path.join(outside, 'model')],
      [{ model: 'model-link' }, 'model-link'],
      [{ model: 'model-mixed' }, path.join('model-mixed', 'weights.bin')],
      [{ model: '../outside/model' }, '../outside/model'],
      [{ model: 'no-such-model' }, 'no-such-model'],
      [{ scenario: path.join(outside, 'scenario.json') }, path.join(outside, 'scenario.json')],
      [{ scenario: 'scenario-link.json' }, 'scenario-link.json'],
      [{ scenario: path.join(outside, 'missing.json') }, path.join(outside, 'missing.json')],
    ];
    for (const [config, requested] of cases) {
      const result = await run('pose.estimate', { environments: [environment], ...config });
      expect(result.status, requested).toBe('failed');
      expect(result.error).toContain(refusal(requested));
    }
  });

  it('pose.locate loads a locator folder inside its roots and the shipped one by default; refuses models, references and scenarios outside', async () => {
    for (const model of ['locator', '']) {
      const result = await run('pose.locate', { model });
      expect(result.error, model).toBeNull();
      expect(result.status).toBe('completed');
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ model: path.join(outside, 'locator') }, path.join(outside, 'locator')],
      [{ model: 'locator-mixed' }, path.join('locator-mixed', LOCATOR_JSON)],
      [{ references: [path.join(outside, 'reference.json')] }, path.join(outside, 'reference.json')],
      [{ references: ['reference-link.json'] }, 'reference-link.json'],
      [{ references: ['missing.json'] }, 'missing.json'],
      [{ scenario: 'scenario-link.json' }, 'scenario-link.json'],
      [{ scenario: path.join(outside, 'scenario.json') }, path.join(outside, 'scenario.json')],
    ];
    for (const [config, requested] of cases) {
      const result = await run('pose.locate', config);
      expect(result.status, requested).toBe('failed');
      expect(result.error).toContain(refusal(requested));
    }
  });
});
