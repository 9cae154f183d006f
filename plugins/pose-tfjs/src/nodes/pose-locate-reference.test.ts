// pose.locate and its empty-room references as a flow meets them: a reference that is missing
// or does not fit a link fails the flow naming the link and the field; it never falls back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import type { Runtime } from '@wiflow/core';
import csiPlugin from '@wiflow/plugin-csi';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { environmentFromScenario, simulateReference, writeReference } from '../index.js';

const scenario = sim.hallScenario({ durationS: 3 });

let dir: string;
let runtime: Runtime;
const file = (name: string) => path.join(dir, name);
const environment = environmentFromScenario(sim.validateScenario(scenario) as never);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-locate-ref-'));
  const reference = simulateReference(sim as never, sim.validateScenario(scenario) as never, 2);
  writeReference(file('hall.json'), reference);
  writeReference(file('two-antennas.json'), { ...reference, links: reference.links.map((l) => ({ ...l, nrx: 2, re: l.re.slice(0, 2 * 3 * l.subcarriers.length), im: l.im.slice(0, 2 * 3 * l.subcarriers.length) })) });
  writeReference(file('wide.json'), { ...reference, links: reference.links.map((l) => ({ ...l, bandwidthHz: 40e6 })) });
  writeReference(file('other-room.json'), { ...reference, environmentId: 'kitchen' });
  runtime = await createTestRuntime({ plugins: [simPlugin, csiPlugin, plugin], dataDir: dir });
  await runtime.start();
});
afterAll(async () => {
  await runtime.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(locate: Record<string, unknown>) {
  const job = await runtime.runJob(buildFlow({
    sim: ['sim.source', { scenario, realtime: false, durationS: 3 }],
    locate: ['pose.locate', { environments: [environment], ...locate }],
    poses: ['test.collect', { output: 'poses' }],
  }, ['sim.frames -> locate.frames', 'locate.poses -> poses.in']), { timeoutMs: 60_000 });
  return job.done;
}

describe('pose.locate with a reference that does not fit', () => {
  it('runs with the reference of its room', async () => {
    const result = await run({ references: [file('hall.json')] });
    expect(result.error).toBeNull();
    expect((result.outputs.poses as unknown[]).length).toBeGreaterThan(0);
  });

  it('fails when an environment has no reference, or the reference file is missing, saying which', async () => {
    const none = await run({ references: [] });
    expect(none.status).toBe('failed');
    expect(none.error).toMatch(/environment hall: no empty-room reference; record the empty room with `wiflow locate record`/);
    const other = await run({ references: [file('other-room.json')] });
    expect(other.error).toMatch(/environment hall: no empty-room reference \(the references given are for kitchen\)/);
    const missing = await run({ references: [file('gone.json')] });
    expect(missing.status).toBe('failed');
    expect(missing.error).toMatch(/references\[0\] \(.*gone\.json\)/);
  });

  it('fails before any frame when the antennas differ, and on the first frame when the bandwidth does, naming link and field', async () => {
    const antennas = await run({ references: [file('two-antennas.json')] });
    expect(antennas.status).toBe('failed');
    expect(antennas.error).toMatch(/link router->laptop: field nrx \(receive antennas\) of the empty-room reference is 2, the link has 3 in the environment's rxArray/);
    const wide = await run({ references: [file('wide.json')] });
    expect(wide.status).toBe('failed');
    expect(wide.error).toMatch(/link router->laptop: field bandwidthHz of the empty-room reference is 40 MHz, the link has 20 MHz/);
    expect(wide.outputs.poses ?? []).toEqual([]);
    void readFileSync;
  });
});
