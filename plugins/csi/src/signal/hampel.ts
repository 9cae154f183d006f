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
 */
export class HampelState {
  readonly window: number;
  readonly nSigmas: number;
  #history: Float32Array | null = null;
  #width = 0;
  #filled = 0;
  #next = 0;
  #scratch: Float64Array;
  /** Values replaced so far. */
  replaced = 0;

  constructor(window = 5, nSigmas = 3) {
    if (!Number.isInteger(window) || window < 3) throw invalidArgument('hampel window must be an integer of at least 3');
    this.window = window;
    this.nSigmas = nSigmas;
    this.#scratch = new Float64Array(window);
  }

  /** Filter `values[from .. from+width)` in place against the history, then add them to it. */
  filter(values: Float32Array, from = 0, width = values.length - from): void {
    if (!this.#history || this.#width !== width) {
      this.#history = new Float32Array(this.window * width);
      this.#width = width;
      this.#filled = 0;
      this.#next = 0;
    }
    const history = this.#history;
    const scratch = this.#scratch;
    const previous = this.#filled;
    const threshold = this.nSigmas * MAD_SCALE;
    // The history keeps the raw values: filtered ones would pull later medians toward themselves.
    history.set(values.subarray(from, from + width), this.#next * width);
    if (previous === this.window - 1) {
      // The ring now holds exactly the window: this value and the previous window − 1.
      const count = this.window;
      for (let k = 0; k < width; k++) {
        const x = values[from + k];
        for (let h = 0; h < count; h++) scratch[h] = history[h * width + k];
        const m = median(scratch, count);
        for (let h = 0; h < count; h++) scratch[h] = Math.abs(history[h * width + k] - m);
        const mad = median(scratch, count);
        if (mad > 0 && Math.abs(x - m) > threshold * mad) {
          values[from + k] = m;
          this.replaced++;
        }
      }
    }
    this.#next = (this.#next + 1) % this.window;
    if (this.#filled < this.window - 1) this.#filled++;
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
