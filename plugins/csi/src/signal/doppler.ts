import FFT from 'fft.js';
import type { CsiWindow, LinkId, Provenance } from '@wiflow/core';
import { invalidArgument } from '../errors.js';

/** A Doppler spectrum of one window: power per frequency bin, averaged over subcarriers, per stream. */
export interface DopplerSpectrum {
  sourceId: string;
  link: LinkId;
  environmentId: string;
  /** Wall-clock ms of the window's last frame. */
  time: number;
  /** Sampling rate the window's timestamps imply (Hz). */
  sampleRateHz: number;
  /** Bin centre frequencies (Hz), ascending from −fs/2. */
  frequenciesHz: Float32Array;
  /** Power, row-major [stream][bin] over `ntx × nrx` streams. */
  power: Float32Array;
  streams: number;
  provenance: Provenance;
}

/** Options of `dopplerSpectrum`. */
export interface DopplerOptions {
  /** FFT size (power of two ≥ window length; default: the next power of two). */
  fftSize?: number;
  /** Subtract each subcarrier's mean over the window (removes the static paths). Default true. */
  removeStatic?: boolean;
}

const ffts = new Map<number, FFT>();

function nextPowerOfTwo(n: number): number {
  let p = 2;
  while (p < n) p *= 2;
  return p;
}

/**
 * Doppler spectrum of a window: for each stream and subcarrier, the complex series A·e^{jφ} over
 * time (static part removed, Hann-weighted) is Fourier transformed; powers are averaged over
 * subcarriers and ordered from −fs/2 to +fs/2. A walking person at 5 GHz shows up to ~±50 Hz.
 */
export function dopplerSpectrum(window: CsiWindow, options: DopplerOptions = {}): DopplerSpectrum {
  const { length, nsc } = window;
  if (length < 4) throw invalidArgument('a Doppler spectrum needs a window of at least 4 frames');
  const size = options.fftSize ?? nextPowerOfTwo(length);
  if (size < length || (size & (size - 1)) !== 0) throw invalidArgument(`fftSize ${size} must be a power of two of at least the window length ${length}`);
  let fft = ffts.get(size);
  if (!fft) {
    fft = new FFT(size);
    ffts.set(size, fft);
  }
  const streams = window.ntx * window.nrx;
  const frameSize = streams * nsc;
  const duration = (window.endTimestamp - window.startTimestamp) / 1e6;
  const sampleRateHz = duration > 0 ? (length - 1) / duration : 0;
  const input = fft.createComplexArray() as number[];
  const output = fft.createComplexArray() as number[];
  const power = new Float32Array(streams * size);
  const hann = new Float64Array(length);
  for (let t = 0; t < length; t++) hann[t] = length === 1 ? 1 : 0.5 - 0.5 * Math.cos((2 * Math.PI * t) / (length - 1));
  const removeStatic = options.removeStatic ?? true;
  for (let s = 0; s < streams; s++) {
    for (let k = 0; k < nsc; k++) {
      let meanRe = 0;
      let meanIm = 0;
      input.fill(0);
      for (let t = 0; t < length; t++) {
        const at = t * frameSize + s * nsc + k;
        const a = window.amplitude[at];
        const p = window.phase[at];
        const re = a * Math.cos(p);
        const im = a * Math.sin(p);
        input[2 * t] = re;
        input[2 * t + 1] = im;
        meanRe += re;
        meanIm += im;
      }
      meanRe /= length;
      meanIm /= length;
      for (let t = 0; t < length; t++) {
        input[2 * t] = (input[2 * t] - (removeStatic ? meanRe : 0)) * hann[t];
        input[2 * t + 1] = (input[2 * t + 1] - (removeStatic ? meanIm : 0)) * hann[t];
      }
      fft.transform(output, input);
      for (let b = 0; b < size; b++) {
        // fftshift: bin b of the output is frequency index b − size/2.
        const source = (b + size / 2) % size;
        power[s * size + b] += (output[2 * source] ** 2 + output[2 * source + 1] ** 2) / nsc;
      }
    }
  }
  const frequenciesHz = new Float32Array(size);
  for (let b = 0; b < size; b++) frequenciesHz[b] = ((b - size / 2) * sampleRateHz) / size;
  return { sourceId: window.sourceId, link: window.link, environmentId: window.environmentId, time: window.time, sampleRateHz, frequenciesHz, power, streams, provenance: window.provenance };
}
