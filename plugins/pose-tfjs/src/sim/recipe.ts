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
});

/** A dataset recipe. */
export type DatasetRecipe = z.output<typeof DatasetRecipeSchema>;
