import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import { MODEL_JSON, WEIGHTS_BIN } from './file-io-handler.js';

/** File holding the wiflow contract of a model directory (beside model.json and weights.bin). */
export const MODEL_SPEC_JSON = 'wiflow-model.json';

/** Contract id a model directory declares; bump the number on any incompatible change. */
export const POSE_CONTRACT = 'wiflow-pose/1';

/**
 * The input/output contract of a wiflow pose model (bring-your-own models follow it too):
 * - input `csi`: float32 `[batch, frames, links × antennaPairs × subcarriers × 2]`, laid out
 *   `[frame][link][pair][subcarrier][amplitude, phase]`, each value z-scored with
 *   `normalisation` (amplitude and phase separately); `input.phase` says which phase;
 * - input `geometry`: float32 `[batch, 3 + 6 × links]`: room width, depth, height, then per
 *   link tx x, y, z and rx x, y, z, all metres divided by `geometryScale`;
 * - output: float32 `[batch, maxPersons, 3 + 17 × 3]`: per slot a presence logit, the floor
 *   position as fractions of the room width and depth, then per COCO keypoint the offset
 *   from the floor position in x and y and the height z, in metres.
 */
export const ModelSpecSchema = z.object({
  contract: z.literal(POSE_CONTRACT),
  modelId: z.string().min(1),
  version: z.string().min(1),
  description: z.string().default(''),
  input: z.object({
    frames: z.number().int().positive(),
    links: z.number().int().positive(),
    antennaPairs: z.number().int().positive(),
    subcarriers: z.number().int().positive(),
    /** Sample rate (Hz) the window frames are expected at, informative. */
    sampleRateHz: z.number().positive().nullable().default(null),
    geometryScale: z.number().positive().default(5),
    /**
     * The phase feature: 'sanitised' takes the window's phase as is; 'conjugate' expects
     * unsanitised (unwrapped) phase and uses, per receive antenna r > 0, the phase of the
     * conjugate product with antenna 0 of the same transmit chain (keeps the angle of
     * arrival, cancels the per-packet offsets shared by a receiver), and for antenna 0 its
     * sanitised phase (linear fit removed).
     */
    phase: z.enum(['sanitised', 'conjugate']).default('sanitised'),
    /**
     * 'absolute' keeps each bin's values; 'deviation' subtracts the window's mean per feature
     * (only what changes within the window is left: people, not the room's static multipath).
     */
    temporal: z.enum(['absolute', 'deviation']).default('absolute'),
  }),
  normalisation: z.object({
    amplitudeMean: z.number(),
    amplitudeStd: z.number().positive(),
    phaseMean: z.number(),
    phaseStd: z.number().positive(),
  }),
  output: z.object({
    maxPersons: z.number().int().positive(),
    presenceThreshold: z.number().min(0).max(1).default(0.5),
  }),
  /** Free-form record of how the weights were made (data, seed, epochs), copied into the model card. */
  training: z.record(z.string(), z.unknown()).default({}),
});

/** A parsed model contract. */
export type ModelSpec = z.output<typeof ModelSpecSchema>;

/** Values per person slot in the model output. */
export const SLOT_SIZE = 3 + 17 * 3;

/** Width of the csi input per frame for a spec. */
export function frameFeatureSize(spec: Pick<ModelSpec, 'input'>): number {
  return spec.input.links * spec.input.antennaPairs * spec.input.subcarriers * 2;
}

/** Width of the geometry input for a spec. */
export function geometryFeatureSize(spec: Pick<ModelSpec, 'input'>): number {
  return 3 + 6 * spec.input.links;
}

/** Read and validate a model directory's contract (clear errors for a missing or malformed one). */
export function readModelSpec(directory: string): ModelSpec {
  for (const file of [MODEL_JSON, WEIGHTS_BIN, MODEL_SPEC_JSON]) {
    if (!existsSync(path.join(directory, file))) throw PoseErrors.modelNotFound(directory);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(directory, MODEL_SPEC_JSON), 'utf8'));
  } catch (error) {
    throw PoseErrors.modelInvalid(directory, `${MODEL_SPEC_JSON} is not JSON: ${(error as Error).message}`);
  }
  const parsed = ModelSpecSchema.safeParse(raw);
  if (!parsed.success) throw PoseErrors.modelInvalid(directory, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}
