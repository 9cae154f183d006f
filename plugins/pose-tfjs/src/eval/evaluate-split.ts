import { backendReport } from '../backend/backend.js';
import { PoseModel } from '../model/pose-model.js';
import { DatasetRecipeSchema } from '../sim/recipe.js';
import { packedSplit, type SimulationProgress } from '../sim/simulated-datasets.js';
import type { SimModule, SplitSelection } from '../sim/pose-dataset.js';
import { evaluateModel } from './evaluate.js';
import { withRealism, type RealismLevel } from '../locate/simulated.js';
import type { EvaluationReport } from './metrics.js';

/** The small deterministic subset `--small` evaluates (and CI runs): first sessions, first seconds. */
export const SMALL_SELECTION = { maxSessions: 4, maxSeconds: 12 } as const;

/** What was evaluated, printed beside the figures. */
export interface EvaluationDescription {
  modelId: string;
  modelHash: string;
  split: string;
  small: boolean;
  samples: number;
  rooms: number;
  backend: string;
  seconds: number;
}

/**
 * Evaluate a model directory on a split of the dataset its contract records (rebuilt with
 * the simulator: for 'test', rooms never seen in training), per person-count bucket.
 */
export async function evaluateShippedModel(options: { modelDir: string; split: 'train' | 'val' | 'test'; small: boolean; cacheDir: string | null; onProgress?: SimulationProgress; sim?: SimModule; realism?: RealismLevel }): Promise<{ report: EvaluationReport; description: EvaluationDescription }> {
  const started = Date.now();
  const model = await PoseModel.load(options.modelDir);
  // The realism level goes into the recipe's ranges, so the split cache keys it too.
  const recipe = withRealism(DatasetRecipeSchema.parse(model.spec.training.dataset ?? {}), options.realism);
  const selection: SplitSelection = options.small ? { split: options.split, ...SMALL_SELECTION, sim: options.sim } : { split: options.split, sim: options.sim };
  const data = await packedSplit(recipe, selection, model.spec, options.cacheDir, options.onProgress);
  const report = evaluateModel(model, data, null);
  return {
    report,
    description: {
      modelId: model.spec.modelId,
      modelHash: model.hash,
      split: options.split,
      small: options.small,
      samples: data.count,
      rooms: data.environments.length,
      backend: backendReport()?.backend ?? 'unknown',
      seconds: (Date.now() - started) / 1000,
    },
  };
}
