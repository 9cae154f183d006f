import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime, runNode } from '@wiflow/core/testing';
import csiPlugin from '@wiflow/plugin-csi';
import { describe, expect, it } from 'vitest';
import simPlugin, { simSourceNode } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

describe('sim.source', () => {
  it('emits CsiFrames with truth attached and one truth frame per instant, as fast as possible', async () => {
    const scenario = testScenario({ people: [{ id: 1, start: { x: 2, y: 1 }, script: [{ action: 'walk', path: [[3, 3]] }] }] });
    const result = await runNode(simSourceNode, { config: { scenario, realtime: false, durationS: 0.5 } });
    expect(result.status).toBe('completed');
    const frames = result.outputs.frames as CsiFrame[];
    const truth = result.outputs.truth as GroundTruthFrame[];
    expect(truth).toHaveLength(50);
    expect(frames).toHaveLength(50);
    expect(frames[0]).toMatchObject({ provenance: 'simulated', format: 'sim', ntx: 3, nrx: 3, nsc: 56, link: { tx: 'tx', rx: 'rx' } });
    expect(frames[10].truth?.persons[0].id).toBe(1);
    expect(frames[10].truth?.time).toBe(truth[10].time);
    for (let i = 1; i < frames.length; i++) expect(frames[i].timestamp).toBeGreaterThan(frames[i - 1].timestamp);
  });

  it('draws a random room from a seed and honours the environment id', async () => {
    const result = await runNode(simSourceNode, { config: { randomSeed: 5, environmentId: 'lab', realtime: false, durationS: 0.1 } });
    expect(result.status).toBe('completed');
    expect((result.outputs.truth as GroundTruthFrame[])[0].environmentId).toBe('lab');
  });

  it('takes a hardware profile, realistic random rooms and the reference phase from its config', async () => {
    const esp = await runNode(simSourceNode, { config: { scenario: testScenario(), profile: 'esp32-ht20', realtime: false, durationS: 0.2 } });
    expect((esp.outputs.frames as CsiFrame[])[0]).toMatchObject({ ntx: 1, nrx: 1, nsc: 56 });
    const real = await runNode(simSourceNode, { config: { randomSeed: 4, realism: 'v2', realtime: false, durationS: 0.1 } });
    expect((real.outputs.truth as GroundTruthFrame[])[0].distractors?.length).toBeGreaterThan(0);
    const scenario = testScenario({ people: [{ id: 1, start: { x: 2, y: 1 }, script: [{ action: 'stand', duration: 5 }] }] });
    const reference = await runNode(simSourceNode, { config: { scenario, phase: 'reference', realtime: false, durationS: 0.1 } });
    expect((reference.outputs.truth as GroundTruthFrame[])[0].persons).toEqual([]);
  });

  it('paces frames in real time', async () => {
    const started = Date.now();
    const result = await runNode(simSourceNode, { config: { scenario: testScenario(), realtime: true, durationS: 0.3 } });
    expect(result.status).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const frames = result.outputs.frames as CsiFrame[];
    expect(Math.abs(frames[0].time - started)).toBeLessThan(1000);
  });

  it('fails the job with a clear error for a bad scenario', async () => {
    const result = await runNode(simSourceNode, { config: { scenario: { room: { width: 1 } }, realtime: false } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/invalid scenario/);
  });
});

describe('sim.source in a flow', () => {
  it('feeds plugin-csi: simulated frames and truth recorded by csi.record replay through csi.replay', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sim-flow-'));
    try {
      const file = path.join(dir, 'sim.wfr');
      const runtime = await createTestRuntime({ plugins: [csiPlugin, simPlugin] });
      await runtime.start();
      const record = buildFlow(
        { sim: ['sim.source', { scenario: testScenario({ people: [{ id: 1, start: { x: 2, y: 2 }, script: [{ action: 'stand', duration: 5 }] }] }), realtime: false, durationS: 0.3 }], rec: ['csi.record', { path: file }] },
        ['sim.frames -> rec.frames'],
      );
      const recorded = await (await runtime.runJob(record, { timeoutMs: 30_000 })).done;
      expect(recorded.status).toBe('completed');
      const replay = buildFlow({ play: ['csi.replay', { path: file, speed: 0 }], frames: ['test.collect', { output: 'frames' }], truth: ['test.collect', { output: 'truth' }] }, ['play.frames -> frames.in', 'play.truth -> truth.in']);
      const replayed = await (await runtime.runJob(replay, { timeoutMs: 30_000 })).done;
      expect(replayed.status).toBe('completed');
      const frames = replayed.outputs.frames as CsiFrame[];
      expect(frames).toHaveLength(30);
      expect(frames[0]).toMatchObject({ format: 'sim', provenance: 'simulated', nsc: 56 });
      expect(frames[5].truth?.persons[0].id).toBe(1);
      expect((replayed.outputs.truth as GroundTruthFrame[]).length).toBe(30);
      await runtime.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
