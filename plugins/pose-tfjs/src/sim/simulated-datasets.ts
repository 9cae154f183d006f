import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../model/contract.js';
import { DatasetPacker, loadDataset, saveDataset, type PackedDataset, type PoseSample } from '../training/dataset.js';
import { simulateSplit, type SplitSelection } from './pose-dataset.js';
import type { DatasetRecipe } from './recipe.js';

/** Progress of simulation: sessions done of total, and samples so far. */
export type SimulationProgress = (sessionsDone: number, sessionsTotal: number, samples: number) => void;

/** Cache key of a packed split: the recipe, the selection and the model input contract. */
export function splitCacheKey(recipe: DatasetRecipe, selection: SplitSelection, spec: Pick<ModelSpec, 'input' | 'normalisation' | 'output'>): string {
  const { sim: _sim, ...chosen } = selection;
  return createHash('sha256').update(JSON.stringify({ recipe, selection: chosen, input: spec.input, normalisation: spec.normalisation, maxPersons: spec.output.maxPersons })).digest('hex').slice(0, 16);
}

/**
 * Simulate one split and pack it for a model contract, cached under `cacheDir` (a second
 * call with the same recipe, selection and contract reads the cache instead of simulating).
 */
export async function packedSplit(recipe: DatasetRecipe, selection: SplitSelection, spec: ModelSpec, cacheDir: string | null, onProgress?: SimulationProgress, first?: PoseSample[]): Promise<PackedDataset> {
  const directory = cacheDir ? path.join(cacheDir, `${selection.split}-${splitCacheKey(recipe, selection, spec)}`) : null;
  if (directory && existsSync(path.join(directory, 'header.json'))) return loadDataset(directory).data;
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
  if (directory) saveDataset(directory, data, { recipe, selection: { ...selection, sim: undefined } });
  return data;
}
