import type { CsiFrame } from '@wiflow/core';
import { invalidArgument } from '../errors.js';
import { HT20_TONES, HT40_TONES, INTEL_HT20_GROUPED, range } from '../readers/subcarriers.js';

/** Named canonical subcarrier grids (physical indices). */
export const CANONICAL_GRIDS = {
  /** 802.11n/ac 20 MHz occupied tones, −28..−1, 1..28 (56). */
  ht20: HT20_TONES,
  /** 802.11n/ac 40 MHz occupied tones, −58..−2, 2..58 (114). */
  ht40: HT40_TONES,
  /** 802.11ac 80 MHz occupied tones, −122..−2, 2..122 (242). */
  vht80: Int16Array.from([...range(-122, -2, 1), ...range(2, 122, 1)]),
  /** The Intel 5300's 30 groups at 20 MHz. */
  'ht20-grouped': INTEL_HT20_GROUPED,
  /** 802.11a/g legacy tones, −26..−1, 1..26 (52), the ESP32's LLTF. */
  legacy20: Int16Array.from([...range(-26, -1, 1), ...range(1, 26, 1)]),
} as const;

/** A canonical grid name. */
export type CanonicalGridName = keyof typeof CANONICAL_GRIDS;

/** A grid by name, or a custom list of ascending physical indices. */
export function resolveGrid(grid: CanonicalGridName | Int16Array | readonly number[]): Int16Array {
  if (typeof grid === 'string') {
    const named = CANONICAL_GRIDS[grid];
    if (!named) throw invalidArgument(`unknown subcarrier grid ${grid} (known: ${Object.keys(CANONICAL_GRIDS).join(', ')})`);
    return named;
  }
  const array = grid instanceof Int16Array ? grid : Int16Array.from(grid);
  if (array.length === 0) throw invalidArgument('a subcarrier grid needs at least one index');
  for (let i = 1; i < array.length; i++) if (array[i] <= array[i - 1]) throw invalidArgument('a subcarrier grid must be strictly ascending');
  return array;
}

/**
 * How to fill each grid index from a source's subcarriers: linear interpolation between the two
 * nearest source tones by physical index; outside the source's span, the nearest edge tone.
 */
export interface ResamplePlan {
  grid: Int16Array;
  /** Source positions (into the source's subcarrier order) of the lower and upper neighbour, and the upper weight. */
  lower: Int32Array;
  upper: Int32Array;
  weight: Float32Array;
}

const plans = new WeakMap<Int16Array, WeakMap<Int16Array, ResamplePlan>>();

/** Plan (cached per source and grid array) for resampling `source` indices onto `grid`. */
export function planResample(source: Int16Array, grid: Int16Array): ResamplePlan {
  let byGrid = plans.get(source);
  if (!byGrid) {
    byGrid = new WeakMap();
    plans.set(source, byGrid);
  }
  let plan = byGrid.get(grid);
  if (plan) return plan;
  if (source.length === 0) throw invalidArgument('cannot resample a frame without subcarriers');
  const order = Array.from(source.keys()).sort((a, b) => source[a] - source[b]);
  const sorted = order.map((i) => source[i]);
  const lower = new Int32Array(grid.length);
  const upper = new Int32Array(grid.length);
  const weight = new Float32Array(grid.length);
  let j = 0;
  for (let g = 0; g < grid.length; g++) {
    const x = grid[g];
    while (j + 1 < sorted.length && sorted[j + 1] <= x) j++;
    if (x <= sorted[0]) {
      lower[g] = upper[g] = order[0];
    } else if (x >= sorted[sorted.length - 1]) {
      lower[g] = upper[g] = order[sorted.length - 1];
    } else {
      lower[g] = order[j];
      upper[g] = order[j + 1];
      weight[g] = sorted[j + 1] === sorted[j] ? 0 : (x - sorted[j]) / (sorted[j + 1] - sorted[j]);
    }
  }
  plan = { grid, lower, upper, weight };
  byGrid.set(grid, plan);
  return plan;
}

/** Resample one stream's complex values (`re/im[from .. from+nsc)`) onto the plan's grid at `out*[to ..]`. */
export function resampleStream(plan: ResamplePlan, re: Float32Array, im: Float32Array, from: number, outRe: Float32Array, outIm: Float32Array, to: number): void {
  const { lower, upper, weight } = plan;
  for (let g = 0; g < lower.length; g++) {
    const a = from + lower[g];
    const b = from + upper[g];
    const w = weight[g];
    outRe[to + g] = re[a] + (re[b] - re[a]) * w;
    outIm[to + g] = im[a] + (im[b] - im[a]) * w;
  }
}

/** A copy of the frame with its CSI (and scaled CSI) resampled onto a canonical grid by physical index. */
export function resampleFrame(frame: CsiFrame, grid: CanonicalGridName | Int16Array = 'ht20'): CsiFrame {
  const target = resolveGrid(grid);
  const plan = planResample(frame.subcarriers, target);
  const streams = frame.ntx * frame.nrx;
  const n = target.length;
  const re = new Float32Array(streams * n);
  const im = new Float32Array(streams * n);
  for (let s = 0; s < streams; s++) resampleStream(plan, frame.csi.re, frame.csi.im, s * frame.nsc, re, im, s * n);
  let scaled: CsiFrame['scaled'];
  if (frame.scaled) {
    scaled = { re: new Float32Array(streams * n), im: new Float32Array(streams * n) };
    for (let s = 0; s < streams; s++) resampleStream(plan, frame.scaled.re, frame.scaled.im, s * frame.nsc, scaled.re, scaled.im, s * n);
  }
  return { ...frame, subcarriers: target, nsc: n, csi: { re, im }, scaled };
}
