import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SLOT_SIZE, MODEL_SPEC_JSON, type ModelSpec } from '../model/contract.js';
import { PoseModel } from '../model/pose-model.js';
import { evaluateModel, recordedMeanPose } from '../eval/evaluate.js';
import { SMALL_SELECTION } from '../eval/evaluate-split.js';
import { writeModelCard } from '../eval/model-card.js';
import type { SimModule } from '../sim/pose-dataset.js';
import { DatasetRecipeSchema } from '../sim/recipe.js';
import { packedSplit } from '../sim/simulated-datasets.js';
import type { PackedDataset } from './dataset.js';

/** The presence threshold with the best exact-count accuracy on a dataset (ties: closest to 0.5). */
export function tunePresenceThreshold(model: PoseModel, data: PackedDataset): { threshold: number; countAccuracy: number } {
  const P = model.spec.output.maxPersons;
  const output = model.predict(data.csi, data.geometry, data.count);
  let best = { threshold: 0.5, countAccuracy: -1 };
  for (let t = 0.05; t < 0.951; t += 0.05) {
    const threshold = Math.round(t * 100) / 100;
    let ok = 0;
    for (let i = 0; i < data.count; i++) {
      let n = 0;
      for (let s = 0; s < P; s++) if (1 / (1 + Math.exp(-output[(i * P + s) * SLOT_SIZE])) > threshold) n++;
      if (n === data.truths[i].length) ok++;
    }
    const accuracy = ok / Math.max(1, data.count);
    if (accuracy > best.countAccuracy + 1e-9 || (Math.abs(accuracy - best.countAccuracy) < 1e-9 && Math.abs(threshold - 0.5) < Math.abs(best.threshold - 0.5))) best = { threshold, countAccuracy: accuracy };
  }
  return best;
}

/**
 * Finish a trained model directory: tune the presence threshold on the validation rooms
 * (the contract changes, the weights and their hash do not), then evaluate on the test rooms
 * (full split and the CI subset) and write eval-test.json, eval-test-small.json, validation.json
 * and MODEL_CARD.md. Splits come from the work directory's cache, else the simulator.
 */
export async function finaliseModel(options: { modelDir: string; workDir: string; sim?: SimModule; onProgress?: (phase: string, value: number, total: number, info: string) => void }): Promise<{ spec: ModelSpec; hash: string }> {
  const progress = options.onProgress ?? (() => {});
  let model = await PoseModel.load(options.modelDir);
  const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset ?? {});
  const cacheDir = path.join(options.workDir, 'data');
  const validation = await packedSplit(recipe, { split: 'val', sim: options.sim }, model.spec, cacheDir, (d, t, n) => progress('simulate val', d, t, `${n} samples`));
  const tuned = tunePresenceThreshold(model, validation);
  const spec: ModelSpec = { ...model.spec, output: { ...model.spec.output, presenceThreshold: tuned.threshold }, training: { ...model.spec.training, presenceThresholdTuning: { on: 'validation rooms', threshold: tuned.threshold, countAccuracy: Number(tuned.countAccuracy.toFixed(4)) } } };
  writeFileSync(path.join(options.modelDir, MODEL_SPEC_JSON), JSON.stringify(spec, null, 2) + '\n');
  model = await PoseModel.load(options.modelDir);
  const meanPose = recordedMeanPose(model);
  writeFileSync(path.join(options.modelDir, 'validation.json'), JSON.stringify(evaluateModel(model, validation, meanPose), null, 2) + '\n');
  const test = await packedSplit(recipe, { split: 'test', sim: options.sim }, spec, cacheDir, (d, t, n) => progress('simulate test', d, t, `${n} samples`));
  const small = await packedSplit(recipe, { split: 'test', ...SMALL_SELECTION, sim: options.sim }, spec, cacheDir);
  const full = evaluateModel(model, test, meanPose);
  const smallReport = evaluateModel(model, small, meanPose);
  const info = (d: PackedDataset) => ({ samples: d.count, rooms: d.environments.length });
  writeFileSync(path.join(options.modelDir, 'eval-test.json'), JSON.stringify({ modelId: spec.modelId, modelHash: model.hash, ...info(test), ...full }, null, 2) + '\n');
  writeFileSync(path.join(options.modelDir, 'eval-test-small.json'), JSON.stringify({ modelId: spec.modelId, modelHash: model.hash, ...info(small), ...smallReport }, null, 2) + '\n');
  writeModelCard(options.modelDir, spec, model.hash, full, smallReport, info(test), info(small), statSync(path.join(options.modelDir, 'weights.bin')).size);
  return { spec, hash: model.hash };
}
