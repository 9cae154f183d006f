import type { SignalChainOptions } from '@wiflow/plugin-csi';
import { z } from 'zod';

/**
 * How a training dataset is made from the simulator; stored in the model contract
 * (`training.dataset`) so `wiflow eval` can rebuild exactly the same unseen test rooms.
 */
export const DatasetRecipeSchema = z.object({
  generator: z.literal('@wiflow/plugin-sim').default('@wiflow/plugin-sim'),
  seed: z.union([z.number(), z.string()]).default('wiflow-pose-v1'),
  rooms: z.number().int().min(3).default(60),
  secondsPerSession: z.number().positive().default(30),
  sessionsPerRoom: z.number().int().positive().default(2),
  /** Overrides of the simulator's random ranges (receivers, rate...). */
  ranges: z.record(z.string(), z.unknown()).default({ receivers: [3, 3], rateHz: 20 }),
  /** Frames per window and hop between windows, per link. */
  windowFrames: z.number().int().positive().default(16),
  hopFrames: z.number().int().positive().default(10),
  /**
   * The @wiflow/plugin-csi signal chain settings, in `csi.signal-chain` config form (plus
   * `windowLength`/`hop` from above): flows feeding this model must use the same.
   */
  signalChain: z.object({
    grid: z.string().default('ht20-grouped'),
    sanitize: z.boolean().default(true),
    hampelWindow: z.number().int().min(0).default(9),
    hampelSigmas: z.number().positive().default(3),
    normalize: z.enum(['mean', 'max', 'none']).default('mean'),
  }).default({ grid: 'ht20-grouped', sanitize: true, hampelWindow: 9, hampelSigmas: 3, normalize: 'mean' }),
});

/** The `csi.signal-chain` node config that makes a recipe's windows for one environment. */
export function signalChainConfig(recipe: DatasetRecipe, environmentId: string): Record<string, unknown> {
  return { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames, environmentId };
}

/** `SignalChain` constructor options for a recipe (the same chain `csi.signal-chain` runs). */
export function signalChainOptions(recipe: DatasetRecipe, environmentId: string): SignalChainOptions {
  const c = recipe.signalChain;
  return {
    grid: c.grid as SignalChainOptions['grid'],
    sanitize: c.sanitize,
    hampel: c.hampelWindow === 0 ? false : { window: c.hampelWindow, nSigmas: c.hampelSigmas },
    normalize: c.normalize,
    window: { length: recipe.windowFrames, hop: recipe.hopFrames },
    environmentId,
  };
}

/** A dataset recipe. */
export type DatasetRecipe = z.output<typeof DatasetRecipeSchema>;
