import type { CsiFrame } from '@wiflow/core';

/** How amplitudes are normalised per stream: by their mean, by their maximum, or not at all. */
export type AmplitudeNormalization = 'mean' | 'max' | 'none';

/** Scale `values[from .. from+count)` in place so its mean (or max) is 1; all-zero stays zero. */
export function normalizeInPlace(values: Float32Array, from: number, count: number, mode: AmplitudeNormalization): void {
  if (mode === 'none') return;
  let reference = 0;
  if (mode === 'mean') {
    for (let k = 0; k < count; k++) reference += values[from + k];
    reference /= count;
  } else {
    for (let k = 0; k < count; k++) if (values[from + k] > reference) reference = values[from + k];
  }
  if (reference <= 0 || !Number.isFinite(reference)) return;
  const inverse = 1 / reference;
  for (let k = 0; k < count; k++) values[from + k] *= inverse;
}

/**
 * A copy of the frame with each stream's complex CSI scaled so its amplitudes have mean (or max)
 * 1: removes AGC and path-loss scale so devices and packets compare.
 */
export function normalizeAmplitude(frame: CsiFrame, mode: AmplitudeNormalization = 'mean'): CsiFrame {
  const { re, im } = frame.csi;
  const outRe = Float32Array.from(re);
  const outIm = Float32Array.from(im);
  if (mode === 'none') return { ...frame, csi: { re: outRe, im: outIm } };
  const amplitude = new Float32Array(re.length);
  for (let i = 0; i < re.length; i++) amplitude[i] = Math.hypot(re[i], im[i]);
  for (let s = 0; s < frame.ntx * frame.nrx; s++) {
    const from = s * frame.nsc;
    let reference = 0;
    for (let k = 0; k < frame.nsc; k++) reference = mode === 'mean' ? reference + amplitude[from + k] : Math.max(reference, amplitude[from + k]);
    if (mode === 'mean') reference /= frame.nsc;
    if (reference <= 0 || !Number.isFinite(reference)) continue;
    for (let k = 0; k < frame.nsc; k++) {
      outRe[from + k] /= reference;
      outIm[from + k] /= reference;
    }
  }
  return { ...frame, csi: { re: outRe, im: outIm }, scaled: undefined };
}
