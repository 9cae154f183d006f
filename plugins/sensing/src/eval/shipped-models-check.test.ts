import { describe, expect, it } from 'vitest';
import type { SensingModels } from '../config.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';
import { staleShippedModels } from './shipped-models-check.js';

/** What a fit prints: full precision, which the defaults round to 6 significant figures. */
function unrounded(models: SensingModels): SensingModels {
  const copy = structuredClone(models);
  copy.motion.intel5300!.mean = copy.motion.intel5300!.mean.map((m) => m * (1 + 3e-7));
  return copy;
}

describe('shipped models against a fresh fit', () => {
  it('finds nothing stale when the defaults are the fit, rounded as they are written', () => {
    expect(staleShippedModels(DEFAULT_SENSING_MODELS, unrounded(DEFAULT_SENSING_MODELS))).toEqual([]);
  });

  it('names a model whose fit moved (a weight in the fourth figure) and one whose inputs changed', () => {
    const fitted = structuredClone(DEFAULT_SENSING_MODELS);
    fitted.motion.intel5300!.weights = fitted.motion.intel5300!.weights.map((w, i) => (i === 0 ? w * 1.001 : w));
    fitted.fall = { ...fitted.fall, features: [...fitted.fall.features, 'log_before_over_peak'], mean: [...fitted.fall.mean, 0], scale: [...fitted.fall.scale, 1], weights: [...fitted.fall.weights, 0] };
    expect(staleShippedModels(DEFAULT_SENSING_MODELS, fitted)).toEqual(['motion.intel5300', 'fall']);
  });

  it('names a floor whose window the fit moved, and a model whose floor quantile moved', () => {
    const fitted = structuredClone(DEFAULT_SENSING_MODELS);
    fitted.motionFloor = { int8: { seconds: 600 } };
    fitted.motionSlow!.int8!.floorQuantile = 0.1;
    expect(staleShippedModels(DEFAULT_SENSING_MODELS, fitted)).toEqual(['motionSlow.int8', 'motionFloor.int8']);
  });

  it('names a family the defaults do not have', () => {
    const fitted = structuredClone(DEFAULT_SENSING_MODELS);
    fitted.motion.newchip = { ...fitted.motion.int8! };
    expect(staleShippedModels(DEFAULT_SENSING_MODELS, fitted)).toEqual(['motion.newchip']);
  });
});
