import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileAccess, type Runtime } from '@wiflow/core';
import { buildFlow, confinementFolders, confinementRefusal as refusal, createTestRuntime } from '@wiflow/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import simPlugin from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

describe('scenario files of sim nodes in a confined run', () => {
  const { base, root, outside } = confinementFolders('wiflow-sim-confine-');
  let runtime: Runtime;

  beforeAll(async () => {
    const text = JSON.stringify(testScenario({ durationS: 0.2 }));
    writeFileSync(path.join(root, 'room.json'), text);
    writeFileSync(path.join(outside, 'secret.json'), text);
    symlinkSync(path.join(outside, 'secret.json'), path.join(root, 'link-out.json'));
    symlinkSync(outside, path.join(root, 'dir-out'));
    runtime = await createTestRuntime({ plugins: [simPlugin] });
    await runtime.start();
  });
  afterAll(async () => {
    await runtime.stop();
    rmSync(base, { recursive: true, force: true });
  });

  async function run(data: ReturnType<typeof buildFlow>) {
    const job = await runtime.runJob(data, { timeoutMs: 30_000, access: { files: new FileAccess([root]) } });
    return job.done;
  }
  const source = (scenario: unknown) => buildFlow({ sim: ['sim.source', { scenario, realtime: false, durationS: 0.2 }], out: ['test.collect', { output: 'truth' }] }, ['sim.truth -> out.in']);
  const truthPoses = (scenario: unknown) =>
    buildFlow({ sim: ['sim.source', { scenario: testScenario(), realtime: false, durationS: 0.2 }], poses: ['sim.truth-poses', { scenario }], out: ['test.collect', { output: 'poses' }] }, ['sim.truth -> poses.truth', 'poses.poses -> out.in']);

  it('sim.source reads a scenario inside its roots (relative or absolute) and an inline one', async () => {
    for (const scenario of ['room.json', path.join(root, 'room.json'), testScenario()]) {
      const result = await run(source(scenario));
      expect(result.error, JSON.stringify(scenario)).toBeNull();
      expect(result.status).toBe('completed');
      expect((result.outputs.truth as unknown[]).length).toBe(20);
    }
  });

  it('sim.source refuses scenarios outside, through symlinks, with .. and missing ones, all with one message', async () => {
    for (const requested of [path.join(outside, 'secret.json'), 'link-out.json', 'dir-out/secret.json', '../outside/secret.json', 'missing.json', path.join(outside, 'missing.json')]) {
      const result = await run(source(requested));
      expect(result.status, requested).toBe('failed');
      expect(result.error).toContain(refusal(requested));
      expect(result.outputs.truth ?? []).toEqual([]);
    }
  });

  it('sim.truth-poses reads its scenario inside the roots and refuses one outside the same way', async () => {
    const inside = await run(truthPoses('room.json'));
    expect(inside.error).toBeNull();
    expect((inside.outputs.poses as unknown[]).length).toBeGreaterThan(0);
    for (const requested of ['link-out.json', path.join(outside, 'secret.json'), path.join(outside, 'missing.json')]) {
      const result = await run(truthPoses(requested));
      expect(result.status, requested).toBe('failed');
      expect(result.error).toContain(refusal(requested));
    }
  });
});
