// `wiflow locate twin-fit` as an installer runs it: a planned room's declared environment and its
// empty-room reference in files, a (short) twin fitted, the per-room locator read back and used
// for that room only, its frames naming it.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetRecipeSchema, environmentFromScenario, fitCountBias, loadLocatorModel, PoseLocator, registerPoseCommands, simulateReference, TWIN_COUNT, writeReference, type EnvironmentGeometry, type TwinEstimate } from '../index.js';

let dir: string;
let rooms: { scenario: sim.Scenario; environment: EnvironmentGeometry }[];

function cli(lines: string[] = []) {
  const p = new Command('wiflow').exitOverride().configureOutput({ writeErr: () => undefined });
  registerPoseCommands(p, { runtime: async () => ({ dataDir: dir }) as never, print: (l) => lines.push(l) });
  return (...args: string[]) => p.parseAsync(['node', 'wiflow', ...args]);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-twin-fit-'));
  const recipe = DatasetRecipeSchema.parse(loadLocatorModel().spec.training.dataset);
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
  rooms = plan.sessions.filter((s) => s.split === 'val').slice(0, 2).map((s) => ({ scenario: s.scenario, environment: environmentFromScenario(s.scenario) }));
  for (const [i, room] of rooms.entries()) {
    writeFileSync(path.join(dir, `environment-${i}.json`), JSON.stringify(room.environment));
    writeReference(path.join(dir, `reference-${i}.json`), simulateReference(sim as never, room.scenario as never));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wiflow locate twin-fit', () => {
  const out = () => path.join(dir, 'room-0');
  const lines: string[] = [];
  beforeAll(async () => {
    await cli(lines)('locate', 'twin-fit', '--environment', path.join(dir, 'environment-0.json'), '--reference', path.join(dir, 'reference-0.json'), '--twin-sessions', '4', '--twin-seconds', '3', '--out', out());
  }, 120_000);

  it('writes a locator for that environment only, with the correction it fitted on the twin recorded', () => {
    const shipped = loadLocatorModel();
    const model = loadLocatorModel(out());
    expect(model.spec.modelId).toBe(`${shipped.spec.modelId}+twin`);
    expect(model.spec.environmentId).toBe(rooms[0].environment.id);
    const record = model.spec.training.twinCount as { base: string; sessions: number; countBias: number[]; birthAboveNoise: number };
    expect(record.base).toBe(`${shipped.spec.modelId}@${shipped.hash}`);
    expect(record.sessions).toBe(4);
    // The head is the shipped one with the recorded bias on its logits; the margin is one of the grid.
    const last = (m: typeof model) => m.spec.countHead.layers[m.spec.countHead.layers.length - 1];
    last(model).bias.forEach((v, k) => expect(v).toBeCloseTo(last(shipped).bias[k] + record.countBias[k], 9));
    expect(last(model).weights).toEqual(last(shipped).weights);
    expect(TWIN_COUNT.birthMargins).toContain(model.spec.tracker?.birthAboveNoise);
    expect(record.birthAboveNoise).toBe(model.spec.tracker?.birthAboveNoise);
    expect(lines.join('\n')).toContain(`for environment ${rooms[0].environment.id} only`);
  });

  it("its room's frames name it (model id and the hash of its locator.json); another room is refused", () => {
    const model = loadLocatorModel(out());
    const room = rooms[0];
    const locator = new PoseLocator(model, [room.environment], [simulateReference(sim as never, room.scenario as never)], { densePose: 'none' });
    let frame = null;
    for (const tick of new sim.Simulator(room.scenario).run(2)) for (const f of tick.frames) frame = locator.push(f) ?? frame;
    expect(frame?.metadata).toMatchObject({ modelId: model.spec.modelId, modelHash: model.hash });
    const other = rooms[1];
    expect(() => new PoseLocator(model, [other.environment], [simulateReference(sim as never, other.scenario as never)])).toThrow(expect.objectContaining({ code: 'WIFLOW_POSE_MODEL_INVALID', message: expect.stringContaining(`fitted for environment ${room.environment.id}`) }));
  }, 60_000);

  it('a second fit of the same room and reference writes the same locator (the same hash), whatever the CPU time', async () => {
    const again = path.join(dir, 'room-0-again');
    await cli()('locate', 'twin-fit', '--environment', path.join(dir, 'environment-0.json'), '--reference', path.join(dir, 'reference-0.json'), '--twin-sessions', '4', '--twin-seconds', '3', '--out', again);
    expect(loadLocatorModel(again).hash).toBe(loadLocatorModel(out()).hash);
    expect(loadLocatorModel(again).spec.training.twinCount).not.toHaveProperty('cpuSeconds');
  }, 120_000);

  it("a reference of another room is refused before anything is simulated or written", async () => {
    const never = path.join(dir, 'never');
    await expect(cli()('locate', 'twin-fit', '--environment', path.join(dir, 'environment-0.json'), '--reference', path.join(dir, 'reference-1.json'), '--out', never)).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISSING' });
    expect(existsSync(never)).toBe(false);
  });
});

describe('fitCountBias', () => {
  it("moves the head's logits toward the counts the twin shows", () => {
    const shipped = loadLocatorModel();
    const features = shipped.spec.countHead.featureMean;
    const estimates = (people: number): TwinEstimate[] => Array.from({ length: 20 }, (_, i) => ({ timeS: i / 4, peaks: [], features, people }));
    const toThree = fitCountBias(shipped.spec, estimates(3));
    const toNone = fitCountBias(shipped.spec, estimates(0));
    expect(toThree[3]).toBeGreaterThan(Math.max(toThree[0], toThree[1], toThree[2]));
    expect(toNone[0]).toBeGreaterThan(Math.max(toNone[1], toNone[2], toNone[3]));
  });
});
