import type { CsiFrame } from '@wiflow/core';

const TWO_PI = 2 * Math.PI;

/** Unwrap phases in place along `values[start .. start+count)`: steps beyond π become their 2π-complement. */
export function unwrapPhase(values: Float32Array | Float64Array, start = 0, count = values.length - start): void {
  let offset = 0;
  let previous = values[start];
  for (let i = start + 1; i < start + count; i++) {
    const raw = values[i];
    const delta = raw - previous;
    if (delta > Math.PI) offset -= TWO_PI * Math.round(delta / TWO_PI);
    else if (delta < -Math.PI) offset += TWO_PI * Math.round(-delta / TWO_PI);
    previous = raw;
    values[i] = raw + offset;
  }
}

/**
 * Remove the linear phase term in place (sampling time offset and phase offset):
 * `a = (φ_n − φ_1)/(m_n − m_1)`, `b = mean(φ − a·m)`, `φ' = φ − a·m − b`, over unwrapped phases
 * `phase[start .. start+count)` at physical indices `m`. For symmetric grids `b` is `mean(φ)`.
 */
export function removeLinearPhase(phase: Float32Array | Float64Array, indices: Int16Array, start = 0, count = indices.length): void {
  const first = indices[0];
  const last = indices[count - 1];
  const slope = last === first ? 0 : (phase[start + count - 1] - phase[start]) / (last - first);
  let mean = 0;
  for (let k = 0; k < count; k++) mean += phase[start + k] - slope * indices[k];
  mean /= count;
  for (let k = 0; k < count; k++) phase[start + k] -= slope * indices[k] + mean;
}

/** Sanitised phase of every stream of a frame: atan2, unwrap across subcarriers, linear term removed. Row-major [tx][rx][sc]. */
export function sanitizedPhase(frame: CsiFrame): Float32Array {
  const { re, im } = frame.csi;
  const out = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) out[i] = Math.atan2(im[i], re[i]);
  for (let s = 0; s < frame.ntx * frame.nrx; s++) {
    unwrapPhase(out, s * frame.nsc, frame.nsc);
    removeLinearPhase(out, frame.subcarriers, s * frame.nsc, frame.nsc);
  }
  return out;
}

/** A copy of the frame whose complex CSI keeps each amplitude but carries the sanitised phase. */
export function sanitizePhase(frame: CsiFrame): CsiFrame {
  const phase = sanitizedPhase(frame);
  const { re, im } = frame.csi;
  const outRe = new Float32Array(re.length);
  const outIm = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) {
    const amplitude = Math.hypot(re[i], im[i]);
    outRe[i] = amplitude * Math.cos(phase[i]);
    outIm[i] = amplitude * Math.sin(phase[i]);
  }
  return { ...frame, csi: { re: outRe, im: outIm }, scaled: undefined };
}
