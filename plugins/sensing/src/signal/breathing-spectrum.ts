import FFT from 'fft.js';

/** A breathing rate read from the spectrum of several channels, and how clearly it stands out. */
export interface BreathingEstimate {
  bpm: number;
  /** Peak over median of the combined in-band spectrum. */
  quality: number;
  /**
   * The peak is one tooth of a comb: at least three multiples of one fundamental carry ≥ 30 % of the peak's
   * power. Chest motion puts most of its power in the first one or two; an evenly spaced comb is a periodic
   * disturbance of the radio or the room (the ESP32 breathing recordings show one at 9.85 bpm, apnea takes too).
   */
  comb: boolean;
  /**
   * The peak sits on the band's edge and the spectrum keeps rising past it: the slope of something outside
   * the band (a slow drift below 6 bpm, faster movement above), not a rate inside it.
   */
  edge: boolean;
}

const transforms = new Map<number, { fft: FFT; input: Float64Array; output: number[] }>();

function transformOf(size: number) {
  let entry = transforms.get(size);
  if (!entry) {
    const fft = new FFT(size);
    entry = { fft, input: new Float64Array(size), output: fft.createComplexArray() as number[] };
    transforms.set(size, entry);
  }
  return entry;
}

/**
 * Combine the power spectra of `channels` (each `length` samples at `rateHz`, oldest first) in the band
 * [minBpm, maxBpm]: each channel's in-band spectrum is normalised to sum 1 and weighted by its own
 * peakiness (max / sum), so channels that carry a clean periodic chest motion dominate and noisy ones
 * fade. Linear trend removed and a Hann window applied per channel; zero-padded to at least twice the length, the peak
 * refined by a parabola through its neighbours.
 */
export function breathingSpectrumPeak(channels: Float64Array[], length: number, rateHz: number, minBpm: number, maxBpm: number): BreathingEstimate | null {
  if (length < 8 || channels.length === 0) return null;
  let size = 256;
  while (size < 2 * length) size *= 2;
  const { fft, input, output } = transformOf(size);
  const lo = Math.max(1, Math.ceil((minBpm / 60) * size / rateHz));
  const hi = Math.min(size / 2 - 1, Math.floor((maxBpm / 60) * size / rateHz));
  if (hi - lo < 3) return null;
  const combined = new Float64Array(hi - lo + 1);
  const power = new Float64Array(hi - lo + 1);
  // The two bins just outside each edge, weighted like the band (for `edge`).
  let below = 0;
  let above = 0;
  const binPower = (k: number) => (k >= 1 && k < size / 2 ? output[2 * k] ** 2 + output[2 * k + 1] ** 2 : 0);
  const mid = (length - 1) / 2;
  let tt = 0;
  for (let i = 0; i < length; i++) tt += (i - mid) ** 2;
  for (const channel of channels) {
    let mean = 0;
    for (let i = 0; i < length; i++) mean += channel[i];
    mean /= length;
    let slope = 0;
    for (let i = 0; i < length; i++) slope += (i - mid) * (channel[i] - mean);
    slope /= tt;
    input.fill(0);
    for (let i = 0; i < length; i++) {
      const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1));
      input[i] = (channel[i] - mean - slope * (i - mid)) * hann;
    }
    fft.realTransform(output, input as unknown as number[]);
    let sum = 0;
    let max = 0;
    for (let k = lo; k <= hi; k++) {
      const p = output[2 * k] ** 2 + output[2 * k + 1] ** 2;
      power[k - lo] = p;
      sum += p;
      if (p > max) max = p;
    }
    if (sum <= 0) continue;
    const weight = max / sum;
    for (let k = 0; k < power.length; k++) combined[k] += (power[k] / sum) * weight;
    below += (Math.max(binPower(lo - 1), binPower(lo - 2)) / sum) * weight;
    above += (Math.max(binPower(hi + 1), binPower(hi + 2)) / sum) * weight;
  }
  let best = 0;
  for (let k = 1; k < combined.length; k++) if (combined[k] > combined[best]) best = k;
  if (combined[best] <= 0) return null;
  const sorted = Float64Array.from(combined).sort();
  const median = sorted[sorted.length >> 1] || 1e-12;
  let offset = 0;
  if (best > 0 && best < combined.length - 1) {
    const a = combined[best - 1];
    const b = combined[best];
    const c = combined[best + 1];
    const denom = a - 2 * b + c;
    if (denom < 0) offset = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denom));
  }
  const bin = lo + best + offset;
  const edge = (best <= 1 && below >= combined[best]) || (best >= combined.length - 2 && above >= combined[best]);
  return { bpm: (bin * rateHz * 60) / size, quality: combined[best] / median, comb: isComb(combined, lo, bin, size, rateHz), edge };
}

/** Whether the peak at `peakBin` is one of ≥ 3 strong, evenly spaced teeth (see `BreathingEstimate.comb`). */
function isComb(spectrum: Float64Array, lo: number, peakBin: number, size: number, rateHz: number): boolean {
  const peak = spectrum[Math.round(peakBin) - lo];
  const tolerance = Math.max(1, Math.round((0.7 / 60) * (size / rateHz)));
  const strongAt = (bin: number) => {
    let max = 0;
    for (let b = Math.round(bin) - tolerance; b <= Math.round(bin) + tolerance; b++) if (b - lo >= 0 && b - lo < spectrum.length) max = Math.max(max, spectrum[b - lo]);
    return max >= 0.3 * peak;
  };
  for (let k = 1; k <= 4; k++) {
    const fundamental = peakBin / k;
    if (fundamental < lo) break;
    let teeth = 0;
    for (let m = 1; m * fundamental <= lo + spectrum.length - 1; m++) if (strongAt(m * fundamental)) teeth++;
    if (teeth >= 3) return true;
  }
  return false;
}
