import type { CsiFrame } from '@wiflow/core';
import { invalidArgument } from '../errors.js';

/** MAD to standard deviation for normally distributed data. */
export const MAD_SCALE = 1.4826;

function median(values: Float64Array, count: number): number {
  // Insertion sort: windows are small (a handful of values).
  for (let i = 1; i < count; i++) {
    const v = values[i];
    let j = i - 1;
    while (j >= 0 && values[j] > v) {
      values[j + 1] = values[j];
      j--;
    }
    values[j + 1] = v;
  }
  const mid = count >> 1;
  return count & 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/**
 * Hampel filter of a series (centred window of `2·halfWindow + 1`): a value more than
 * `nSigmas · 1.4826 · MAD` from the window median is replaced by the median. Returns a copy
 * and how many values were replaced.
 */
export function hampelFilter(series: ArrayLike<number>, halfWindow = 3, nSigmas = 3): { values: Float32Array; replaced: number } {
  if (halfWindow < 1) throw invalidArgument('hampel halfWindow must be at least 1');
  const out = Float32Array.from(series);
  const scratch = new Float64Array(2 * halfWindow + 1);
  let replaced = 0;
  for (let i = 0; i < series.length; i++) {
    const from = Math.max(0, i - halfWindow);
    const to = Math.min(series.length - 1, i + halfWindow);
    const count = to - from + 1;
    for (let k = 0; k < count; k++) scratch[k] = series[from + k];
    const m = median(scratch, count);
    for (let k = 0; k < count; k++) scratch[k] = Math.abs(series[from + k] - m);
    const mad = median(scratch, count);
    if (mad > 0 && Math.abs(series[i] - m) > nSigmas * MAD_SCALE * mad) {
      out[i] = m;
      replaced++;
    }
  }
  return { values: out, replaced };
}

/**
 * Causal Hampel filter over time for a stream of amplitude vectors of one link: each value is
 * compared with the median of itself and the previous `window − 1` values at the same position.
 * Each position keeps its window sorted (one insertion per frame), so the median is a lookup and
 * the MAD a walk outward from it: O(window) per value, no sorting. A window whose MAD is zero
 * (quantised, repeated values) replaces nothing.
 */
export class HampelState {
  readonly window: number;
  readonly nSigmas: number;
  #ring: Float32Array | null = null;
  #sorted: Float32Array | null = null;
  #width = 0;
  #count = 0;
  #next = 0;
  /** Values replaced so far. */
  replaced = 0;

  constructor(window = 9, nSigmas = 3) {
    if (!Number.isInteger(window) || window < 3) throw invalidArgument('hampel window must be an integer of at least 3');
    this.window = window;
    this.nSigmas = nSigmas;
  }

  /** Filter `values[from .. from+width)` in place against the history, then add the raw values to it. */
  filter(values: Float32Array, from = 0, width = values.length - from): void {
    const w = this.window;
    if (!this.#ring || this.#width !== width) {
      this.#ring = new Float32Array(w * width);
      this.#sorted = new Float32Array(w * width);
      this.#width = width;
      this.#count = 0;
      this.#next = 0;
    }
    const ring = this.#ring;
    const sorted = this.#sorted!;
    const count = this.#count;
    const full = count === w;
    const ringAt = this.#next * width;
    const threshold = this.nSigmas * MAD_SCALE;
    const mid = w >> 1;
    const even = (w & 1) === 0;
    for (let k = 0; k < width; k++) {
      const raw = values[from + k];
      // Non-finite values take part as 0 so the window stays ordered; they are never replaced.
      const x = raw === raw && raw !== Infinity && raw !== -Infinity ? raw : 0;
      const base = k * w;
      let i: number;
      if (full) {
        const old = ring[ringAt + k];
        i = base;
        while (i < base + w - 1 && sorted[i] !== old) i++;
        sorted[i] = x;
      } else {
        i = base + count;
        sorted[i] = x;
      }
      const last = full ? base + w - 1 : base + count;
      while (i > base && sorted[i - 1] > sorted[i]) {
        const t = sorted[i - 1];
        sorted[i - 1] = sorted[i];
        sorted[i] = t;
        i--;
      }
      while (i < last && sorted[i + 1] < sorted[i]) {
        const t = sorted[i + 1];
        sorted[i + 1] = sorted[i];
        sorted[i] = t;
        i++;
      }
      ring[ringAt + k] = x;
      if (count + (full ? 0 : 1) < w || x !== raw) continue;
      const m = even ? (sorted[base + mid - 1] + sorted[base + mid]) / 2 : sorted[base + mid];
      // The k-th smallest |v − m|: merge the two sides walking outward from the median.
      let left = base + (even ? mid - 1 : mid);
      let right = left + 1;
      let previous = 0;
      let deviation = 0;
      for (let taken = 0; taken <= mid; taken++) {
        previous = deviation;
        const dl = left >= base ? m - sorted[left] : Infinity;
        const dr = right < base + w ? sorted[right] - m : Infinity;
        if (dl <= dr) {
          deviation = dl;
          left--;
        } else {
          deviation = dr;
          right++;
        }
      }
      const mad = even ? (previous + deviation) / 2 : deviation;
      if (mad > 0 && Math.abs(x - m) > threshold * mad) {
        values[from + k] = m;
        this.replaced++;
      }
    }
    this.#next = (this.#next + 1) % w;
    if (count < w) this.#count++;
  }
}

/** Amplitude of a frame's CSI with Hampel outliers (against `state`'s history) replaced; phases kept. */
export function hampelFrame(frame: CsiFrame, state: HampelState): CsiFrame {
  const { re, im } = frame.csi;
  const amplitude = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) amplitude[i] = Math.hypot(re[i], im[i]);
  const filtered = amplitude.slice();
  state.filter(filtered);
  const outRe = new Float32Array(re.length);
  const outIm = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) {
    if (amplitude[i] === 0) {
      outRe[i] = filtered[i];
      continue;
    }
    const ratio = filtered[i] / amplitude[i];
    outRe[i] = re[i] * ratio;
    outIm[i] = im[i] * ratio;
  }
  return { ...frame, csi: { re: outRe, im: outIm }, scaled: undefined };
}
