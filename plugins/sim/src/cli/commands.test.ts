import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { createTestRuntime } from '@wiflow/core/testing';
import { readCapture } from '@wiflow/plugin-csi';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import simPlugin, { parseJsonLinesRecording, type DatasetManifest } from '../index.js';

const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/scenarios/home-two-people-fall.yaml');
const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sim-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<string[]> {
  const runtime = await createTestRuntime({ plugins: [simPlugin] });
  const lines: string[] = [];
  const program = new Command('wiflow').exitOverride();
  runtime.hooks.cli.call(program, { runtime: async () => runtime, print: (l) => lines.push(l) });
  await program.parseAsync(['node', 'wiflow', ...args]);
  return lines;
}

describe('wiflow simulate / dataset', () => {
  it('registers the sim.source node', async () => {
    const runtime = await createTestRuntime({ plugins: [simPlugin] });
    expect(runtime.registry.has('sim.source')).toBe(true);
  });

  it('simulate writes a wiflow recording with ground truth that plugin-csi reads back', async () => {
    const out = path.join(dir, 'home.wfr');
    const lines = await cli('simulate', example, '--out', out, '--duration', '1', '--seed', '3', '--quiet');
    expect(lines.join('\n')).toMatch(/simulated 1 s of home-two-people-fall .* frames .*\[wfr\]/);
    const frames: CsiFrame[] = await readCapture(out);
    expect(frames.length).toBeGreaterThan(90);
    expect(frames.length).toBeLessThanOrEqual(100);
    const f = frames[0];
    expect(f).toMatchObject({ format: 'sim', provenance: 'simulated', ntx: 3, nrx: 3, nsc: 30, sourceId: 'sim:home-living-room:laptop', link: { tx: 'router', rx: 'laptop' } });
    expect(Array.from(f.subcarriers.slice(0, 3))).toEqual([-28, -26, -24]);
    const truth = f.truth as GroundTruthFrame;
    expect(truth.environmentId).toBe('home-living-room');
    expect(truth.persons.map((p) => p.id)).toEqual([1, 2]);
    expect(truth.persons[0].keypoints3d).toHaveLength(17);
    for (const frame of frames) expect(frame.truth).toBeDefined();
  });

  it('simulate --profile nexmon-80 writes 1×4 frames on the 242-tone grid; a realistic random room carries its distractors in the truth', async () => {
    const out = path.join(dir, 'nexmon.wfr');
    await cli('simulate', example, '--out', out, '--duration', '0.5', '--profile', 'nexmon-80', '--quiet');
    const frames: CsiFrame[] = await readCapture(out);
    expect(frames[0]).toMatchObject({ ntx: 1, nrx: 4, nsc: 242 });
    expect(frames[0].bandwidthHz).toBe(80e6);
    const intel = path.join(dir, 'intel.wfr');
    await cli('simulate', example, '--out', intel, '--duration', '0.2', '--profile', 'intel5300-ht20', '--tx', '1', '--quiet');
    expect((await readCapture(intel))[0]).toMatchObject({ ntx: 1, nrx: 3, nsc: 30 });
    await expect(cli('simulate', example, '--out', intel, '--profile', 'wifi7', '--quiet')).rejects.toThrow(/unknown hardware profile "wifi7"/);
    const real = path.join(dir, 'real.wfr');
    // Seed 4 draws a room with at least one distractor at realism v2.
    await cli('simulate', 'random', '--out', real, '--duration', '0.2', '--seed', '4', '--realism', 'v2', '--quiet');
    const truth = (await readCapture(real))[0].truth as GroundTruthFrame;
    expect(truth.distractors?.length).toBeGreaterThan(0);
    await expect(cli('simulate', 'random', '--out', real, '--realism', 'v3', '--quiet')).rejects.toThrow(/--realism expects one of none, v2/);
  });

  it('realism --propagation takes a JSON object of propagation settings and says so when it gets anything else', async () => {
    await expect(cli('realism', '--real', dir, '--propagation', '{"reverberation":')).rejects.toThrow(/--propagation expects a JSON object of propagation settings/);
    await expect(cli('realism', '--real', dir, '--propagation', '[1]')).rejects.toThrow(/--propagation expects a JSON object/);
  });

  it('realism --seed takes an integer (the seed of every simulated scenario) and says so when it gets anything else', async () => {
    await expect(cli('realism', '--real', dir, '--seed', '2.5')).rejects.toThrow(/--seed expects an integer, got "2.5"/);
  });

  it('simulate --bench --json prints the real-time factor, frames per CPU-second and the baseline of the same run', async () => {
    const lines = await cli('simulate', '--bench', '--json', '--duration', '0.3');
    const result = JSON.parse(lines[0]) as Record<string, number>;
    expect(Object.keys(result)).toEqual(['realTimeFactor', 'framesPerCpuSecond', 'baselineRealTimeFactor']);
    for (const v of Object.values(result)) expect(v).toBeGreaterThan(0);
    await expect(cli('simulate', '--quiet')).rejects.toThrow(/needs a scenario and --out/);
  }, 60_000);

  it('simulate --format jsonl and a random scenario', async () => {
    const out = path.join(dir, 'random.jsonl');
    await cli('simulate', 'random', '--out', out, '--duration', '0.2', '--seed', '8', '--format', 'jsonl', '--no-impairments', '--quiet');
    const { frames, metadata } = parseJsonLinesRecording(readFileSync(out, 'utf8'));
    expect(metadata.source).toBe('@wiflow/plugin-sim');
    expect(frames).toHaveLength(20);
    expect(frames[0].truth?.persons.length).toBeGreaterThan(0);
  });

  it('simulate reports bad input', async () => {
    await expect(cli('simulate', path.join(dir, 'missing.yaml'), '--out', path.join(dir, 'x.wfr'), '--quiet')).rejects.toThrow(/cannot read scenario/);
    await expect(cli('simulate', example, '--out', path.join(dir, 'x.wfr'), '--duration', 'abc', '--quiet')).rejects.toThrow(/--duration expects a number/);
  });

  it('dataset writes a split whose test rooms are disjoint from the training rooms', async () => {
    const out = path.join(dir, 'dataset');
    const lines = await cli('dataset', '--out', out, '--rooms', '4', '--seconds', '0.2', '--sessions', '2', '--seed', '5', '--quiet');
    expect(lines.join('\n')).toMatch(/dataset of 4 rooms/);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as DatasetManifest;
    const { train, val, test } = manifest.splits;
    expect(train.length).toBeGreaterThanOrEqual(1);
    expect(test.length).toBeGreaterThanOrEqual(1);
    expect(train.filter((id) => test.includes(id) || val.includes(id))).toEqual([]);
    const trainSigs = new Set(manifest.sessions.filter((s) => s.split === 'train').map((s) => s.roomSignature));
    for (const s of manifest.sessions.filter((x) => x.split !== 'train')) expect(trainSigs.has(s.roomSignature)).toBe(false);
    expect(manifest.sessions).toHaveLength(8);
    const frames = await readCapture(path.join(out, manifest.sessions[0].recording));
    expect(frames.length).toBe(manifest.sessions[0].frames);
    expect(frames[0].truth?.environmentId).toBe(manifest.sessions[0].roomId);
  });
});
