import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRealRoot, evaluateReal, SensingConfigSchema, withoutCopies } from '../index.js';

const root = defaultRealRoot();
const have = existsSync(root);
if (!have) console.log(`real captures not found at ${root}: the real-data evaluation test is skipped`);

const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'real-subset.expected.json'), 'utf8')) as { perGroup: number; tolerance: number; results: Record<string, number> };

describe.skipIf(!have)('real-data evaluation (subset)', () => {
  // About 72 CPU-seconds (2026-11-27, byte copies counted once, the velocity-profile fall detector on every Intel 5300 file): room for a loaded machine.
  it('reproduces the recorded subset figures within tolerance', { timeout: 600_000 }, async () => {
    const evaluation = await evaluateReal(root, { perGroup: expected.perGroup });
    expect(evaluation).not.toBeNull();
    const got = Object.fromEntries(evaluation!.results.map((r) => [r.name, r.value]));
    expect(Object.keys(got).sort()).toEqual(Object.keys(expected.results).sort());
    for (const [name, value] of Object.entries(expected.results)) expect(Math.abs((got[name] ?? NaN) - value), name).toBeLessThanOrEqual(expected.tolerance);
  });

  it('with fallsOnly, gives the same falls rows and nothing else; with the shipped settings passed, the same figures', { timeout: 600_000 }, async () => {
    const evaluation = await evaluateReal(root, { perGroup: expected.perGroup, fallsOnly: true, config: SensingConfigSchema.parse({}) });
    const got = Object.fromEntries(evaluation!.results.map((r) => [r.name, r.value]));
    const fallRows = Object.keys(expected.results).filter((name) => name.startsWith('falls'));
    expect(Object.keys(got).sort()).toEqual(fallRows.sort());
    for (const name of fallRows) expect(Math.abs((got[name] ?? NaN) - expected.results[name]), name).toBeLessThanOrEqual(expected.tolerance);
    expect(evaluation!.fitted).toBeNull();
  });

  it('says so and returns nothing when the folder is absent', async () => {
    expect(await evaluateReal(join(root, 'no-such-folder'))).toBeNull();
  });
});

describe('byte copies in a labelled set', () => {
  it('counts a recording filed under two labels once, under the label with fewer files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wiflow-copies-'));
    try {
      for (const d of ['both', 'down', 'up']) mkdirSync(join(dir, d));
      const files: Record<string, string> = { 'both/a.dat': 'A', 'both/b.dat': 'B', 'both/c.dat': 'C', 'down/a.dat': 'A', 'up/b.dat': 'B' };
      for (const [f, body] of Object.entries(files)) writeFileSync(join(dir, f), body);
      const entries = [
        { file: 'both/a.dat', label: 'sit and stand' },
        { file: 'both/b.dat', label: 'sit and stand' },
        { file: 'both/c.dat', label: 'sit and stand' },
        { file: 'down/a.dat', label: 'sit down' },
        { file: 'up/b.dat', label: 'stand up' },
      ];
      const { kept, dropped } = withoutCopies(dir, entries);
      expect(kept.map((e) => e.file)).toEqual(['both/c.dat', 'down/a.dat', 'up/b.dat']);
      expect(dropped.map((e) => e.file)).toEqual(['both/a.dat', 'both/b.dat']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
