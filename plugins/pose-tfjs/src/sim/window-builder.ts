import type { CsiFrame, CsiWindow } from '@wiflow/core';

/** Turns one link's frames into windows. */
export interface WindowBuilder {
  /** Add a frame; returns a window when one completes (every `hopFrames` frames once full). */
  push(frame: CsiFrame): CsiWindow | null;
}

/** Options of the window builder. */
export interface WindowBuilderOptions {
  environmentId: string;
  windowFrames: number;
  hopFrames: number;
}

/** Steps applied to every frame, in order (written into `CsiWindow.features`). */
export const WINDOW_FEATURES = [
  'amplitude |H| divided by the frame mean amplitude (AGC and gain removed)',
  'phase unwrapped over subcarriers, linear fit removed per antenna pair (timing offset and random phase removed)',
];

/**
 * Per-link window builder used to make training data: per frame, normalised amplitude and
 * sanitised phase (unwrap over subcarriers, remove the least-squares line per antenna pair),
 * then sliding windows of `windowFrames` frames every `hopFrames` frames.
 */
export function createWindowBuilder(options: WindowBuilderOptions): WindowBuilder {
  const amplitudes: Float32Array[] = [];
  const phases: Float32Array[] = [];
  const frames: CsiFrame[] = [];
  let sinceLast = 0;
  return {
    push(frame) {
      const sanitised = sanitiseFrame(frame);
      amplitudes.push(sanitised.amplitude);
      phases.push(sanitised.phase);
      frames.push(frame);
      if (frames.length > options.windowFrames) {
        amplitudes.shift();
        phases.shift();
        frames.shift();
      }
      sinceLast++;
      if (frames.length < options.windowFrames || sinceLast < options.hopFrames) return null;
      sinceLast = 0;
      const first = frames[0], last = frames[frames.length - 1];
      const per = first.ntx * first.nrx * first.nsc;
      const amplitude = new Float32Array(per * frames.length);
      const phase = new Float32Array(per * frames.length);
      for (let t = 0; t < frames.length; t++) {
        amplitude.set(amplitudes[t], t * per);
        phase.set(phases[t], t * per);
      }
      return {
        sourceId: last.sourceId,
        link: { ...last.link },
        environmentId: options.environmentId,
        startTimestamp: first.timestamp,
        endTimestamp: last.timestamp,
        time: last.time,
        length: frames.length,
        ntx: last.ntx,
        nrx: last.nrx,
        nsc: last.nsc,
        subcarriers: last.subcarriers,
        centerFrequencyHz: last.centerFrequencyHz,
        amplitude,
        phase,
        features: WINDOW_FEATURES,
        provenance: last.provenance,
        truth: last.truth,
      };
    },
  };
}

/** Normalised amplitude and sanitised phase of one frame, [tx][rx][subcarrier]. */
export function sanitiseFrame(frame: CsiFrame): { amplitude: Float32Array; phase: Float32Array } {
  const { re, im } = frame.csi;
  const n = re.length;
  const nsc = frame.nsc;
  const amplitude = new Float32Array(n);
  const phase = new Float32Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    amplitude[i] = Math.hypot(re[i], im[i]);
    sum += amplitude[i];
  }
  const mean = sum / n || 1;
  for (let i = 0; i < n; i++) amplitude[i] /= mean;
  const x = frame.subcarriers;
  for (let base = 0; base < n; base += nsc) {
    let previous = Math.atan2(im[base], re[base]);
    let offset = 0;
    phase[base] = previous;
    for (let k = 1; k < nsc; k++) {
      const raw = Math.atan2(im[base + k], re[base + k]);
      let step = raw - previous;
      if (step > Math.PI) offset -= 2 * Math.PI;
      else if (step < -Math.PI) offset += 2 * Math.PI;
      previous = raw;
      step = raw + offset;
      phase[base + k] = step;
    }
    let sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (let k = 0; k < nsc; k++) {
      const xi = x[k], yi = phase[base + k];
      sx += xi; sy += yi; sxx += xi * xi; sxy += xi * yi;
    }
    const denominator = nsc * sxx - sx * sx;
    const slope = denominator !== 0 ? (nsc * sxy - sx * sy) / denominator : 0;
    const intercept = (sy - slope * sx) / nsc;
    for (let k = 0; k < nsc; k++) phase[base + k] -= slope * x[k] + intercept;
  }
  return { amplitude, phase };
}
