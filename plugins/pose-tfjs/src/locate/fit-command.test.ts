// `wiflow locate fit --profile` and `wiflow locate eval --profile` as a user runs them: a real
// fit on one training room (seconds), its model read back, evaluated on the hardware it was
// fitted for unless told otherwise.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHardwareProfile, loadLocatorModel, locateSplit, registerPoseCommands, DatasetRecipeSchema } from '../index.js';

let dir: string;

function cli(lines: string[] = []) {
  // As the wiflow program is built (core's cli/program.ts): its own --version is known wherever it stands.
  const p = new Command('wiflow').version('0.0.0-harness').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerPoseCommands(p, { runtime: async () => ({ dataDir: dir }) as never, print: (l) => lines.push(l) });
  return (...args: string[]) => p.parseAsync(['node', 'wiflow', ...args]);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-locate-fit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hardware profiles of the locator', () => {
  it('image the same planned room with 3, 4 or 6 links, as eval-e2e places them', async () => {
    const shipped = loadLocatorModel();
    const recipe = DatasetRecipeSchema.parse(shipped.spec.training.dataset);
    const linksOf = async (name: string) => {
      for await (const instant of locateSplit(shipped, recipe, { split: 'val', maxSessions: 1, maxSeconds: 1 }, undefined, await loadHardwareProfile(name))) return instant.environment.links.map((l) => `${l.tx}->${l.rx}`);
      throw new Error('no estimate');
    };
    const three = await linksOf('recipe');
    expect(three).toHaveLength(3);
    const four = await linksOf('recipe+4rx');
    expect(four).toHaveLength(4);
    expect(four.slice(0, 3)).toEqual(three);
    expect(four[3]).toMatch(/->added-rx$/);
    const six = await linksOf('recipe+2tx');
    expect(six).toHaveLength(6);
    expect(six.filter((l) => l.startsWith('added-tx->'))).toHaveLength(3);
  }, 60_000);

  it('an unknown profile is refused with the known ones, before anything is fitted or written', async () => {
    const out = path.join(dir, 'never');
    await expect(cli()('locate', 'fit', '--profile', 'wifi7-magic', '--train-sessions', '1', '--out', out)).rejects.toMatchObject({ code: 'WIFLOW_SIM_PROFILE_UNKNOWN', message: expect.stringContaining('recipe') });
    expect(existsSync(out)).toBe(false);
  });

  it('locate fit needs --out, so no fit lands on the shipped model by a default path', async () => {
    await expect(cli()('locate', 'fit', '--train-sessions', '1')).rejects.toMatchObject({ code: 'commander.missingMandatoryOptionValue' });
  });
});

describe('wiflow locate fit: options refused before anything is imaged', () => {
  it.each([
    ['not JSON', '{scorer', /--imaging must be a JSON object/],
    ['an array', '[]', /--imaging must be a JSON object/],
    ['an unknown setting', '{"scorrer":"capon"}', /--imaging: .*scorrer/],
    ['a bad value', '{"scorer":"music"}', /--imaging: scorer/],
  ])('--imaging with %s', async (_, value, message) => {
    await expect(cli()('locate', 'fit', '--train-sessions', '1', '--imaging', value, '--out', path.join(dir, 'never'))).rejects.toThrow(message);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });
});

describe('wiflow locate fit --profile', () => {
  const out = () => path.join(dir, 'locate-4rx');
  const lines: string[] = [];
  const shippedHash = loadLocatorModel().hash;
  beforeAll(async () => {
    await cli(lines)('locate', 'fit', '--profile', 'recipe+4rx', '--train-sessions', '1', '--birth-above-noise', '0.3', '--model-version', '9.1.0', '--imaging', '{"scorer":"capon","caponLoading":10}', '--out', out());
  }, 120_000);

  it('writes a loadable model that records its profile, birth rule, imaging and version, and says so', () => {
    const model = loadLocatorModel(out());
    expect(model.spec.modelId).toBe('locate-4rx');
    expect(model.spec.version).toBe('9.1.0');
    // --imaging is merged over the shipped imaging settings.
    expect(model.spec.imaging).toEqual({ ...loadLocatorModel().spec.imaging, scorer: 'capon', caponLoading: 10 });
    expect(model.spec.training).toMatchObject({ profile: 'recipe+4rx', split: 'train', rooms: 1 });
    expect(model.spec.tracker?.birthAboveNoise).toBe(0.3);
    // The rest of the tracker is the shipped one's.
    expect(model.spec.tracker?.confirmHits).toBe(loadLocatorModel().spec.tracker?.confirmHits);
    expect(lines.join('\n')).toContain(`wrote ${out()} (sha256 ${model.hash}); profile recipe+4rx; count head on ${String(model.spec.training.samples)} samples from 1 rooms`);
  });

  it('locate eval scores it on the profile it was fitted on, unless --profile says otherwise', async () => {
    const own: string[] = [];
    await cli(own)('locate', 'eval', '--model', out(), '--small', '--empty-room', '1', '--json');
    const report = JSON.parse(own.join('\n')) as { modelId: string; modelHash: string; profile: string; emptyRoom: { rooms: number } };
    expect(report).toMatchObject({ modelId: 'locate-4rx', modelHash: loadLocatorModel(out()).hash, profile: 'recipe+4rx' });
    expect(report.emptyRoom.rooms).toBe(4);
    const other: string[] = [];
    await cli(other)('locate', 'eval', '--model', out(), '--small', '--empty-room', '1', '--profile', 'recipe', '--json');
    expect(JSON.parse(other.join('\n'))).toMatchObject({ modelId: 'locate-4rx', profile: 'recipe' });
    const shipped: string[] = [];
    await cli(shipped)('locate', 'eval', '--small', '--empty-room', '1', '--json');
    expect(JSON.parse(shipped.join('\n'))).toMatchObject({ modelId: 'wiflow-locate-v2', profile: 'recipe' });
    // The shipped model's file is not touched by any of this.
    expect(loadLocatorModel().hash).toBe(shippedHash);
  }, 120_000);
});

describe('wiflow locate eval --per-room', () => {
  it("gives each room's figures and each paired person's error, which pool to the split's own figures", async () => {
    const lines: string[] = [];
    await cli(lines)('locate', 'eval', '--small', '--per-room', '--json');
    const report = JSON.parse(lines.join('\n')) as {
      model: { all: { countAccuracy: number } };
      floorErrorM: { all: { people: number; mean: number; median: number; p90: number } };
      perRoom: { samples: number; countExact: number; people: number; floorErrorM: number | null; floorErrorsM: number[] }[];
    };
    expect(report.perRoom.length).toBeGreaterThan(1);
    const samples = report.perRoom.reduce((n, r) => n + r.samples, 0);
    expect(report.perRoom.reduce((n, r) => n + r.countExact * r.samples, 0) / samples).toBeCloseTo(report.model.all.countAccuracy, 9);
    const errors = report.perRoom.flatMap((r) => r.floorErrorsM).sort((a, b) => a - b);
    for (const r of report.perRoom) expect(r.floorErrorsM).toHaveLength(r.people);
    expect(errors).toHaveLength(report.floorErrorM.all.people);
    // Millimetres: the pooled errors give the split's mean and median to within rounding.
    expect(errors.reduce((a, b) => a + b, 0) / errors.length).toBeCloseTo(report.floorErrorM.all.mean, 3);
    // The report's quantiles are the sorted values at ⌊q·n⌋ (`floorErrorDistribution`).
    const at = (q: number) => errors[Math.min(errors.length - 1, Math.floor(q * errors.length))];
    expect(Math.abs(at(0.5) - report.floorErrorM.all.median)).toBeLessThanOrEqual(0.0005);
    expect(Math.abs(at(0.9) - report.floorErrorM.all.p90)).toBeLessThanOrEqual(0.0005);
  }, 120_000);
});
