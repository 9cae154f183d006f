import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../model/contract.js';
import { DatasetPacker, loadDataset, saveDataset, type PackedDataset, type PoseSample } from '../training/dataset.js';
import { simulateSplit, type SplitSelection } from './pose-dataset.js';
import type { DatasetRecipe } from './recipe.js';
import { simulatorFingerprint } from './simulator-fingerprint.js';

/** Progress of simulation: sessions done of total, and samples so far. */
export type SimulationProgress = (sessionsDone: number, sessionsTotal: number, samples: number) => void;

/** Cache key of a packed split: the recipe, the selection and the model input contract. */
export function splitCacheKey(recipe: DatasetRecipe, selection: SplitSelection, spec: Pick<ModelSpec, 'input' | 'normalisation' | 'output'>): string {
  const { sim: _sim, ...chosen } = selection;
  return createHash('sha256').update(JSON.stringify({ recipe, selection: chosen, input: spec.input, normalisation: spec.normalisation, maxPersons: spec.output.maxPersons })).digest('hex').slice(0, 16);
}

/** Where packed splits are cached, and under which simulator. */
export interface SplitCache {
  directory: string;
  /**
   * The simulator the rooms come from (default: `simulatorFingerprint()` of the installed
   * packages). Give one when `selection.sim` is not the installed simulator.
   */
  fingerprint?: string;
  /** Where the one line about removed stale entries goes (default: stderr, so `--json` output stays clean). */
  log?: (line: string) => void;
}

/**
 * Simulate one split and pack it for a model contract, cached under the cache directory (a
 * second call with the same recipe, selection, contract and simulator reads the cache instead
 * of simulating). Entries of the same recipe made by another simulator, or by the code before
 * entries named their simulator, are removed, never read.
 */
export async function packedSplit(recipe: DatasetRecipe, selection: SplitSelection, spec: ModelSpec, cache: string | SplitCache | null, onProgress?: SimulationProgress, first?: PoseSample[]): Promise<PackedDataset> {
  const settings: SplitCache | null = typeof cache === 'string' ? { directory: cache } : cache;
  const fingerprint = settings ? settings.fingerprint ?? simulatorFingerprint() : null;
  const stem = `${selection.split}-${splitCacheKey(recipe, selection, spec)}`;
  const directory = settings ? path.join(settings.directory, `${stem}-${fingerprint}`) : null;
  if (directory && existsSync(path.join(directory, 'header.json'))) return loadDataset(directory).data;
  if (settings) removeStaleEntries(settings, stem, `${stem}-${fingerprint}`);
  const packer = new DatasetPacker(spec, 2048);
  let count = 0;
  for (const s of first ?? []) { packer.add(s); count++; }
  const skip = first?.length ?? 0;
  let seen = 0;
  let sessionsDone = 0, sessionsTotal = 0;
  for await (const sample of simulateSplit(recipe, selection, (done, total) => { sessionsDone = done; sessionsTotal = total; onProgress?.(done, total, count); })) {
    if (seen++ < skip) continue;
    packer.add(sample);
    count++;
    if (count % 200 === 0) onProgress?.(sessionsDone, sessionsTotal, count);
  }
  const data = packer.finish();
  if (directory) saveDataset(directory, data, { recipe, selection: { ...selection, sim: undefined }, simulator: fingerprint });
  return data;
}

/** Remove the entries of this split and recipe that another simulator made (`<stem>` before fingerprints, `<stem>-<other>` after). */
function removeStaleEntries(cache: SplitCache, stem: string, current: string): void {
  if (!existsSync(cache.directory)) return;
  const stale = readdirSync(cache.directory).filter((name) => name !== current && (name === stem || name.startsWith(`${stem}-`)));
  if (!stale.length) return;
  for (const name of stale) rmSync(path.join(cache.directory, name), { recursive: true, force: true });
  const log = cache.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  log(`${cache.directory}: removed ${stale.length} cached ${stem.split('-')[0]} split${stale.length === 1 ? '' : 's'} made by another simulator; simulating again (simulator ${current.slice(stem.length + 1)})`);
}
