import type { CsiFrame } from '@wiflow/core';

/**
 * Statistics that say how CSI looks, computed the same way on real and simulated captures
 * (issue 20: "simulated vs real"). All work on amplitudes per stream (tx × rx × subcarrier),
 * which survive every chip's phase impairments.
 */

/** Packets per second of a capture (median gap between timestamps, µs). */
export function captureRateHz(frames: readonly CsiFrame[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < frames.length; i++) gaps.push(frames[i].timestamp - frames[i - 1].timestamp);
  gaps.sort((a, b) => a - b);
  const g = gaps[Math.floor(gaps.length / 2)] ?? 0;
  return g > 0 ? 1e6 / g : 0;
}

/** Amplitude series per stream: [stream][packet]. Frames with another shape than the first are left out. */
export function amplitudeStreams(frames: readonly CsiFrame[]): Float64Array[] {
  if (!frames.length) return [];
  const n = frames[0].csi.re.length;
  const ok = frames.filter((f) => f.csi.re.length === n);
  const out = Array.from({ length: n }, () => new Float64Array(ok.length));
  ok.forEach((f, t) => {
    for (let i = 0; i < n; i++) out[i][t] = Math.hypot(f.csi.re[i], f.csi.im[i]);
  });
  // Streams that are always zero (null tones some readers keep) say nothing.
  return out.filter((s) => s.some((v) => v > 0));
}

const mean = (v: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  return v.length ? s / v.length : 0;
};
const median = (v: number[]) => {
  const s = v.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** Autocorrelation of a mean-removed series at a lag. */
function autocorrelation(v: Float64Array, lag: number): number {
  const m = mean(v);
  let num = 0;
  let den = 0;
  for (let i = 0; i < v.length; i++) {
    const a = v[i] - m;
    den += a * a;
    if (i + lag < v.length) num += a * (v[i + lag] - m);
  }
  return den > 0 ? num / den : NaN;
}

/** Still scene: spread of the amplitude over time (std / mean per stream) and how slowly it changes (autocorrelation at one packet and at one second); medians over streams. */
export function stillSceneStatistics(frames: readonly CsiFrame[]): { amplitudeCv: number; autocorrelationLag1: number; autocorrelation1s: number } {
  const rate = captureRateHz(frames);
  const streams = amplitudeStreams(frames);
  const cv = streams.map((s) => {
    const m = mean(s);
    let v = 0;
    for (const x of s) v += (x - m) ** 2;
    return m > 0 ? Math.sqrt(v / s.length) / m : NaN;
  });
  return {
    amplitudeCv: median(cv),
    autocorrelationLag1: median(streams.map((s) => autocorrelation(s, 1))),
    autocorrelation1s: median(streams.map((s) => autocorrelation(s, Math.max(1, Math.round(rate))))),
  };
}

/** Power spectrum of the mean-removed amplitude, averaged over streams and 64-packet segments (direct DFT; bins up to half the rate). */
export function amplitudeSpectrum(frames: readonly CsiFrame[], segment = 64): { hz: number[]; power: number[] } {
  const rate = captureRateHz(frames);
  const streams = amplitudeStreams(frames);
  const bins = segment / 2;
  const power = new Array(bins).fill(0);
  let count = 0;
  for (const s of streams) {
    for (let start = 0; start + segment <= s.length; start += segment / 2) {
      const seg = s.subarray(start, start + segment);
      const m = mean(seg);
      const scale = m > 0 ? 1 / m : 0;
      for (let k = 0; k < bins; k++) {
        let re = 0;
        let im = 0;
        for (let i = 0; i < segment; i++) {
          const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (segment - 1));
          const x = (seg[i] - m) * scale * w;
          re += x * Math.cos((2 * Math.PI * k * i) / segment);
          im -= x * Math.sin((2 * Math.PI * k * i) / segment);
        }
        power[k] += re * re + im * im;
      }
      count++;
    }
  }
  return { hz: power.map((_, k) => (k * rate) / segment), power: power.map((p) => (count ? p / count : 0)) };
}

/** Walking: the frequencies below which 50 % and 90 % of the amplitude's fluctuation power lies (DC left out). */
export function dopplerStatistics(frames: readonly CsiFrame[]): { medianHz: number; p90Hz: number } {
  const { hz, power } = amplitudeSpectrum(frames);
  const total = power.slice(1).reduce((a, b) => a + b, 0);
  let acc = 0;
  let p50 = NaN;
  let p90 = NaN;
  for (let k = 1; k < power.length; k++) {
    acc += power[k];
    if (Number.isNaN(p50) && acc >= 0.5 * total) p50 = hz[k];
    if (Number.isNaN(p90) && acc >= 0.9 * total) p90 = hz[k];
  }
  return { medianHz: p50, p90Hz: p90 };
}

/**
 * Breathing: modulation depth of the amplitude in the breathing band (0.1–0.6 Hz): RMS of the
 * band-limited amplitude over its mean, per stream; the median and the best stream.
 */
export function breathingDepth(frames: readonly CsiFrame[]): { medianDepth: number; bestDepth: number } {
  const rate = captureRateHz(frames);
  const streams = amplitudeStreams(frames);
  const n = streams[0]?.length ?? 0;
  const depths = streams.map((s) => {
    const m = mean(s);
    let band = 0;
    for (let k = 1; k < n / 2; k++) {
      const f = (k * rate) / n;
      if (f < 0.1 || f > 0.6) continue;
      let re = 0;
      let im = 0;
      for (let i = 0; i < n; i++) {
        re += (s[i] - m) * Math.cos((2 * Math.PI * k * i) / n);
        im -= (s[i] - m) * Math.sin((2 * Math.PI * k * i) / n);
      }
      band += (2 * (re * re + im * im)) / (n * n);
    }
    return m > 0 ? Math.sqrt(band) / m : NaN;
  });
  return { medianDepth: median(depths), bestDepth: Math.max(...depths.filter(Number.isFinite)) };
}

/** How a fall looks: motion per second (mean over streams of std/mean within 1-s windows): its peak, the peak over the median second, and how many seconds stay above half the peak. */
export function fallStatistics(frames: readonly CsiFrame[]): { peakMotion: number; peakOverMedian: number; secondsAboveHalf: number } {
  const rate = Math.max(1, Math.round(captureRateHz(frames)));
  const streams = amplitudeStreams(frames);
  const n = streams[0]?.length ?? 0;
  const motion: number[] = [];
  for (let start = 0; start + rate <= n; start += Math.max(1, Math.round(rate / 4))) {
    let sum = 0;
    for (const s of streams) {
      const w = s.subarray(start, start + rate);
      const m = mean(w);
      let v = 0;
      for (const x of w) v += (x - m) ** 2;
      sum += m > 0 ? Math.sqrt(v / w.length) / m : 0;
    }
    motion.push(sum / streams.length);
  }
  const peak = Math.max(...motion);
  const above = motion.filter((m) => m >= peak / 2).length / 4;
  return { peakMotion: peak, peakOverMedian: peak / median(motion), secondsAboveHalf: above };
}

/**
 * Motion as a sensing pipeline reads it: each packet's amplitudes divided by their receive chain's mean over
 * the subcarriers (plugin-sensing's link sensor normalises so, which cancels AGC and any change of a chain's
 * whole band), then per second (4 windows a second) the mean over streams of std / mean. A body that changes a
 * chain's band alike leaves this at the noise floor; only a change of the band's shape raises it. Peak and
 * median second. Frames whose shape differs from the first are left out, as in `amplitudeStreams`.
 */
export function bandShapeMotion(frames: readonly CsiFrame[]): { peak: number; median: number } {
  if (!frames.length) return { peak: NaN, median: NaN };
  const { ntx, nrx, nsc } = frames[0];
  const ok = frames.filter((f) => f.ntx === ntx && f.nrx === nrx && f.nsc === nsc);
  const chains = ntx * nrx;
  const shapes = ok.map((f) => {
    const out = new Float64Array(chains * nsc);
    for (let c = 0; c < chains; c++) {
      let sum = 0;
      for (let k = 0; k < nsc; k++) sum += out[c * nsc + k] = Math.hypot(f.csi.re[c * nsc + k], f.csi.im[c * nsc + k]);
      const m = sum / nsc;
      for (let k = 0; k < nsc; k++) out[c * nsc + k] = m > 0 ? out[c * nsc + k] / m : 0;
    }
    return out;
  });
  const rate = Math.max(1, Math.round(captureRateHz(ok)));
  const width = chains * nsc;
  const motion: number[] = [];
  for (let start = 0; start + rate <= shapes.length; start += Math.max(1, Math.round(rate / 4))) {
    let sum = 0;
    for (let i = 0; i < width; i++) {
      let m = 0;
      for (let t = start; t < start + rate; t++) m += shapes[t][i];
      m /= rate;
      let v = 0;
      for (let t = start; t < start + rate; t++) v += (shapes[t][i] - m) ** 2;
      sum += m > 0 ? Math.sqrt(v / rate) / m : 0;
    }
    motion.push(sum / width);
  }
  return { peak: motion.length ? Math.max(...motion) : NaN, median: median(motion) };
}
