import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRealRoot, evaluateReal } from '../index.js';

const root = defaultRealRoot();
const have = existsSync(root);
if (!have) console.log(`real captures not found at ${root}: the real-data evaluation test is skipped`);

const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'real-subset.expected.json'), 'utf8')) as { perGroup: number; tolerance: number; results: Record<string, number> };

describe.skipIf(!have)('real-data evaluation (subset)', () => {
  // About 105 CPU-seconds with the velocity-profile fall detector on every Intel 5300 file (2026-11-27): room for a loaded machine.
  it('reproduces the recorded subset figures within tolerance', { timeout: 600_000 }, async () => {
    const evaluation = await evaluateReal(root, { perGroup: expected.perGroup });
    expect(evaluation).not.toBeNull();
    const got = Object.fromEntries(evaluation!.results.map((r) => [r.name, r.value]));
    expect(Object.keys(got).sort()).toEqual(Object.keys(expected.results).sort());
    for (const [name, value] of Object.entries(expected.results)) expect(Math.abs((got[name] ?? NaN) - value), name).toBeLessThanOrEqual(expected.tolerance);
  });

  it('says so and returns nothing when the folder is absent', async () => {
    expect(await evaluateReal(join(root, 'no-such-folder'))).toBeNull();
  });
});
