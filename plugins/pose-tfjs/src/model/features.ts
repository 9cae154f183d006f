import type { CsiWindow } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import { frameFeatureSize, geometryFeatureSize, type ModelSpec } from './contract.js';
import type { EnvironmentGeometry } from './environment.js';

/** Check the parts of a window the model depends on; throws a clear error. */
export function validateWindow(window: CsiWindow, spec: ModelSpec): void {
  const pairs = window.ntx * window.nrx;
  const expected = window.length * pairs * window.nsc;
  if (!Number.isInteger(window.length) || window.length < 1) throw PoseErrors.windowInvalid(`length ${window.length} is not a positive integer`);
  if (pairs !== spec.input.antennaPairs) throw PoseErrors.windowInvalid(`${window.ntx}×${window.nrx} antennas, the model expects ${spec.input.antennaPairs} tx×rx pairs`);
  if (window.nsc !== spec.input.subcarriers) throw PoseErrors.windowInvalid(`${window.nsc} subcarriers, the model expects ${spec.input.subcarriers} (resample to the canonical grid first)`);
  if (!(window.amplitude instanceof Float32Array) || window.amplitude.length !== expected) throw PoseErrors.windowInvalid(`amplitude must be a Float32Array of ${expected} values`);
  if (!(window.phase instanceof Float32Array) || window.phase.length !== expected) throw PoseErrors.windowInvalid(`phase must be a Float32Array of ${expected} values`);
  const sanitised = window.features.some((f) => f.startsWith('phase:sanitised'));
  if (spec.input.phase === 'conjugate' && sanitised) throw PoseErrors.windowInvalid('the model takes conjugate-product phases and needs unsanitised phase: set the signal chain\'s sanitize to false');
  if (spec.input.phase === 'sanitised' && window.features.some((f) => f.startsWith('phase:unwrapped'))) throw PoseErrors.windowInvalid('the model takes sanitised phase: set the signal chain\'s sanitize to true');
}

/**
 * Write one link window into a sample's csi features: the window's frames are averaged into
 * `spec.input.frames` equal time bins (so any window length works; phases by circular mean
 * in 'conjugate' mode), values are z-scored, non-finite values become 0. `out` is the
 * sample's `[frames × featureSize]` slice.
 */
export function writeLinkFeatures(window: CsiWindow, linkIndex: number, spec: ModelSpec, out: Float32Array, offset = 0): void {
  if (spec.input.phase === 'sanitised' && spec.input.temporal === 'absolute' && window.length >= spec.input.frames) {
    writeSanitisedAbsolute(window, linkIndex, spec, out, offset);
    return;
  }
  const T = spec.input.frames;
  const per = spec.input.antennaPairs * spec.input.subcarriers;
  const width = frameFeatureSize(spec);
  const { amplitudeMean, amplitudeStd, phaseMean, phaseStd } = spec.normalisation;
  const conjugate = spec.input.phase === 'conjugate';
  const sums = new Float64Array(T * per * 2);
  const sines = conjugate ? new Float64Array(T * per) : null;
  const counts = new Float64Array(T);
  const phase = conjugate ? new Float32Array(per) : null;
  for (let frame = 0; frame < window.length; frame++) {
    const bin = Math.min(T - 1, Math.floor((frame * T) / window.length));
    counts[bin]++;
    const base = frame * per;
    const dst = bin * per * 2;
    if (phase) conjugatePhase(window, base, phase);
    for (let k = 0; k < per; k++) {
      const a = window.amplitude[base + k];
      sums[dst + 2 * k] += Number.isFinite(a) ? a : 0;
      const p = phase ? phase[k] : window.phase[base + k];
      if (!Number.isFinite(p)) continue;
      if (sines) {
        sums[dst + 2 * k + 1] += Math.cos(p);
        sines[bin * per + k] += Math.sin(p);
      } else sums[dst + 2 * k + 1] += p;
    }
  }
  const values = new Float64Array(T * per * 2);
  for (let t = 0; t < T; t++) {
    // Short windows leave empty bins: repeat the nearest filled bin.
    const source = counts[t] > 0 ? t : lastFilled(counts, t);
    const n = counts[source] || 1;
    const src = source * per * 2;
    for (let k = 0; k < per; k++) {
      values[t * per * 2 + 2 * k] = sums[src + 2 * k] / n;
      values[t * per * 2 + 2 * k + 1] = sines ? Math.atan2(sines[source * per + k], sums[src + 2 * k + 1]) : sums[src + 2 * k + 1] / n;
    }
  }
  if (spec.input.temporal === 'deviation') {
    for (let j = 0; j < per * 2; j++) {
      let mean = 0;
      if (sines && j % 2 === 1) {
        // Circular: deviation from the circular mean, wrapped to (−π, π].
        let c = 0, s = 0;
        for (let t = 0; t < T; t++) { c += Math.cos(values[t * per * 2 + j]); s += Math.sin(values[t * per * 2 + j]); }
        mean = Math.atan2(s, c);
        for (let t = 0; t < T; t++) { const d = values[t * per * 2 + j] - mean; values[t * per * 2 + j] = Math.atan2(Math.sin(d), Math.cos(d)); }
        continue;
      }
      for (let t = 0; t < T; t++) mean += values[t * per * 2 + j];
      mean /= T;
      for (let t = 0; t < T; t++) values[t * per * 2 + j] -= mean;
    }
  }
  for (let t = 0; t < T; t++) {
    const dst = offset + t * width + linkIndex * per * 2;
    for (let k = 0; k < per; k++) {
      out[dst + 2 * k] = (values[t * per * 2 + 2 * k] - amplitudeMean) / amplitudeStd;
      out[dst + 2 * k + 1] = (values[t * per * 2 + 2 * k + 1] - phaseMean) / phaseStd;
    }
  }
}

/**
 * The default contract's features ('sanitised' phase, 'absolute' bins, no empty bins) without
 * the general path's per-value branches: the same sums in the same order, so the same values,
 * about 3× faster (featurisation was half of `pose.estimate`'s time per window).
 */
function writeSanitisedAbsolute(window: CsiWindow, linkIndex: number, spec: ModelSpec, out: Float32Array, offset: number): void {
  const T = spec.input.frames;
  const per = spec.input.antennaPairs * spec.input.subcarriers;
  const width = frameFeatureSize(spec);
  const { amplitudeMean, amplitudeStd, phaseMean, phaseStd } = spec.normalisation;
  const amplitude = window.amplitude, phase = window.phase;
  const sums = new Float64Array(per * 2);
  let frame = 0;
  for (let t = 0; t < T; t++) {
    sums.fill(0);
    let n = 0;
    // Frames of bin t: those with floor(frame × T / length) = t, as in the general path.
    for (; frame < window.length && Math.min(T - 1, Math.floor((frame * T) / window.length)) === t; frame++, n++) {
      const base = frame * per;
      for (let k = 0; k < per; k++) {
        const a = amplitude[base + k];
        if (Number.isFinite(a)) sums[2 * k] += a;
        const p = phase[base + k];
        if (Number.isFinite(p)) sums[2 * k + 1] += p;
      }
    }
    const dst = offset + t * width + linkIndex * per * 2;
    for (let k = 0; k < per; k++) {
      out[dst + 2 * k] = (sums[2 * k] / n - amplitudeMean) / amplitudeStd;
      out[dst + 2 * k + 1] = (sums[2 * k + 1] / n - phaseMean) / phaseStd;
    }
  }
}

/** Conjugate-product phases of one frame of a window (see the contract's `input.phase`). */
function conjugatePhase(window: CsiWindow, base: number, out: Float32Array): void {
  const nsc = window.nsc;
  const x = window.subcarriers;
  for (let t = 0; t < window.ntx; t++) {
    const ref = base + t * window.nrx * nsc;
    for (let r = 0; r < window.nrx; r++) {
      const at = (t * window.nrx + r) * nsc;
      if (r > 0) {
        for (let k = 0; k < nsc; k++) {
          const d = window.phase[base + at + k] - window.phase[ref + k];
          out[at + k] = Math.atan2(Math.sin(d), Math.cos(d));
        }
        continue;
      }
      const first = window.phase[ref], last = window.phase[ref + nsc - 1];
      const slope = x[nsc - 1] === x[0] ? 0 : (last - first) / (x[nsc - 1] - x[0]);
      let mean = 0;
      for (let k = 0; k < nsc; k++) mean += window.phase[ref + k] - slope * x[k];
      mean /= nsc;
      for (let k = 0; k < nsc; k++) out[at + k] = window.phase[ref + k] - slope * x[k] - mean;
    }
  }
}

function lastFilled(counts: Float64Array, t: number): number {
  for (let i = t - 1; i >= 0; i--) if (counts[i] > 0) return i;
  for (let i = t + 1; i < counts.length; i++) if (counts[i] > 0) return i;
  return t;
}

/** The geometry input of an environment (room size, then each link's tx and rx), scaled. */
export function writeGeometryFeatures(environment: EnvironmentGeometry, spec: ModelSpec, out: Float32Array, offset = 0): void {
  if (environment.links.length !== spec.input.links) {
    throw PoseErrors.windowInvalid(`environment ${environment.id} has ${environment.links.length} links, the model expects ${spec.input.links}`);
  }
  const s = spec.input.geometryScale;
  out[offset] = environment.room.width / s;
  out[offset + 1] = environment.room.depth / s;
  out[offset + 2] = environment.room.height / s;
  environment.links.forEach((link, i) => {
    for (let d = 0; d < 3; d++) {
      out[offset + 3 + 6 * i + d] = link.txPosition[d] / s;
      out[offset + 6 + 6 * i + d] = link.rxPosition[d] / s;
    }
  });
}

/** Index of a window's link in an environment (by tx and rx id), or -1. */
export function linkIndexOf(environment: EnvironmentGeometry, window: CsiWindow): number {
  return environment.links.findIndex((l) => l.tx === window.link.tx && l.rx === window.link.rx);
}

/** Sizes of one sample's inputs. */
export function sampleSizes(spec: ModelSpec): { csi: number; geometry: number } {
  return { csi: spec.input.frames * frameFeatureSize(spec), geometry: geometryFeatureSize(spec) };
}
