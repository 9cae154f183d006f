// The packed-split cache behind `wiflow eval` (<dataDir>/pose-eval) and `wiflow train`: a split
// simulated by another simulator must never be served again (issue 21: after the simulator
// changed, `wiflow eval` kept giving the old rooms' figures until the folder was deleted).
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ModelSpecSchema } from '../model/contract.js';
import { SHIPPED_MODEL_DIR } from '../model/pose-model.js';
import { DatasetRecipeSchema } from './recipe.js';
import { packedSplit, splitCacheKey } from './simulated-datasets.js';
import { simulatorFingerprint } from './simulator-fingerprint.js';

const spec = ModelSpecSchema.parse(JSON.parse(readFileSync(path.join(SHIPPED_MODEL_DIR, 'wiflow-model.json'), 'utf8')));
const recipe = DatasetRecipeSchema.parse(spec.training.dataset ?? {});
// One session, two seconds: enough samples to tell a simulation from a cache read.
const selection = { split: 'test' as const, maxSessions: 1, maxSeconds: 2 };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function cacheDirectory(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-split-cache-'));
  dirs.push(dir);
  return dir;
}

/** Pack the split and say whether it was simulated (progress is only reported while simulating). */
async function pack(cache: Parameters<typeof packedSplit>[3]): Promise<{ simulated: boolean; count: number }> {
  let simulated = false;
  const data = await packedSplit(recipe, selection, spec, cache, () => { simulated = true; });
  return { simulated, count: data.count };
}

describe('packed-split cache', () => {
  it('reuses an entry made by the same simulator, and never one made by another', async () => {
    const directory = cacheDirectory();
    const lines: string[] = [];
    const first = await pack({ directory, fingerprint: 'simulator-a', log: (l) => lines.push(l) });
    expect(first.simulated).toBe(true);
    expect(first.count).toBeGreaterThan(0);
    expect(await pack({ directory, fingerprint: 'simulator-a', log: (l) => lines.push(l) })).toEqual({ simulated: false, count: first.count });
    expect(lines).toEqual([]);

    const again = await pack({ directory, fingerprint: 'simulator-b', log: (l) => lines.push(l) });
    expect(again.simulated).toBe(true);
    // One line says why the rooms were simulated again; the old entry is gone, not left to grow.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('removed 1 cached test split made by another simulator');
    expect(readdirSync(directory)).toEqual([`test-${splitCacheKey(recipe, selection, spec)}-simulator-b`]);
  });

  it('never reuses an entry written before entries named their simulator', async () => {
    const directory = cacheDirectory();
    await pack(directory);
    // The old code's name for the same split: recipe, selection and contract, no simulator.
    const legacy = path.join(directory, `test-${splitCacheKey(recipe, selection, spec)}`);
    renameSync(path.join(directory, readdirSync(directory)[0]), legacy);
    // As `wiflow eval` calls it: a directory only, the installed simulator, the line on stderr.
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect((await pack(directory)).simulated).toBe(true);
      expect(stderr.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.includes('made by another simulator'))).toHaveLength(1);
    } finally {
      stderr.mockRestore();
    }
    expect(existsSync(legacy)).toBe(false);
    expect(readdirSync(directory)).toEqual([`test-${splitCacheKey(recipe, selection, spec)}-${simulatorFingerprint()}`]);
  });

  it('fingerprints the installed simulator the same way twice', () => {
    expect(simulatorFingerprint()).toMatch(/^[0-9a-f]{16}$/);
    expect(simulatorFingerprint()).toBe(simulatorFingerprint());
  });
});
