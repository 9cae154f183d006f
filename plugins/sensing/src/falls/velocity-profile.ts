/**
 * The time–velocity profile of one window of CSI (CARM-style) and the features of its strongest event.
 * Mirrors pilot/carm.py's `window_features` step for step: that pilot is where the choices were made.
 */
import { STATE_FEATURES, stateFeatures } from './state-change.js';

/** Rate of the slot grid the profile is computed on (Hz): the rate the real Intel 5300 captures give. */
export const PROFILE_RATE_HZ = 20;
/** Short-time Fourier transform: 0.8-s Hann windows, 0.1-s hop, zero-padded to 32 points (0.625-Hz bins). */
const WIN = 16;
const HOP = 2;
const NFFT = 32;
/** Half-width of the moving mean that is the static part removed from every stream (2 s in all). */
const SLOW_HALF = 20;
/** Principal components kept after removing the static part. */
const COMPONENTS = 4;
/** Velocity bands in Hz of Doppler (body-part speeds of about 0.15–2.4 m/s at 5 GHz). */
const BANDS: [number, number][] = [[0.5, 1.5], [1.5, 3], [3, 5], [5, 8]];
/** Per-second band energies from 3 s before the peak to 5 s after it. */
const SECONDS_BEFORE = 3;
const SECONDS_AFTER = 5;
/** Seconds before and after its peak that an event's features read. */
export const PROFILE_EVENT_SPAN = { before: SECONDS_BEFORE, after: SECONDS_AFTER } as const;
const E = 1e-9;
const FREQ = Array.from({ length: NFFT / 2 + 1 }, (_, k) => (k * PROFILE_RATE_HZ) / NFFT);
const HANN = Float64Array.from({ length: WIN }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (WIN - 1)));
const COS = Float64Array.from({ length: (NFFT / 2 + 1) * WIN }, (_, i) => Math.cos((2 * Math.PI * Math.floor(i / WIN) * (i % WIN)) / NFFT));
const SIN = Float64Array.from({ length: (NFFT / 2 + 1) * WIN }, (_, i) => Math.sin((2 * Math.PI * Math.floor(i / WIN) * (i % WIN)) / NFFT));

/**
 * Feature groups: the profile of the amplitudes (`a`), the profile of the phase between receive chains (`p`),
 * and how the still channel after the event differs from before it with the burst's shape (`s`, state-change.ts).
 */
export type ProfileKind = 'a' | 'p' | 's';

/** Names of the features of one kind, in the order `eventFeatures` lays them out. */
function kindNames(kind: 'a' | 'p'): string[] {
  const names: string[] = [];
  for (let off = -SECONDS_BEFORE; off < SECONDS_AFTER; off++) for (let j = 0; j < BANDS.length; j++) names.push(`${kind}_b${j}_t${off}`);
  return [...names, `${kind}_f50`, `${kind}_f90`, `${kind}_width`, `${kind}_after`, `${kind}_before`, `${kind}_peak`, `${kind}_settled`];
}

/**
 * The shape of the phase profile's burst, read with the state change (group `s`): rise (half height to peak)
 * and decay (peak to half height) in seconds, and the share of 3–8 Hz Doppler over the burst. A fall speeds up
 * under gravity and stops on the floor; in pilot/falls_after.py these with the state change separated falls
 * from squats, sits and pick-ups far better than either alone (whole samples).
 */
const SHAPE_FEATURES = ['s_rise', 's_decay', 's_fast_share'];

/** Every feature name: amplitude-profile ones, phase-difference-profile ones, then group `s` (state change and burst shape). */
export const PROFILE_FEATURES = [...kindNames('a'), ...kindNames('p'), ...STATE_FEATURES, ...SHAPE_FEATURES];

/** A window of slots: `rows[t]` holds one slot's streams of one kind (columns). */
export type StreamWindow = Float64Array[];

interface Profile {
  /** Energy per frequency bin and profile frame, frame-major (`frames × bins`). */
  spec: Float64Array;
  frames: number;
  /** The static part of every stream per slot (slot-major). */
  slow: Float64Array;
  columns: number;
}

/** Static part removed, streams scaled to unit spread, the first components, their short-time spectra summed. */
function profileOf(rows: StreamWindow): Profile {
  const n = rows.length;
  const m = rows[0].length;
  const slow = new Float64Array(n * m);
  const d = new Float64Array(n * m);
  for (let c = 0; c < m; c++) {
    // Moving mean with the edges repeated (numpy.pad mode 'edge').
    let sum = 0;
    const at = (i: number) => rows[Math.min(n - 1, Math.max(0, i))][c];
    for (let i = -SLOW_HALF; i <= SLOW_HALF; i++) sum += at(i);
    for (let t = 0; t < n; t++) {
      slow[t * m + c] = sum / (2 * SLOW_HALF + 1);
      sum += at(t + SLOW_HALF + 1) - at(t - SLOW_HALF);
    }
    let mean = 0;
    for (let t = 0; t < n; t++) mean += (d[t * m + c] = rows[t][c] - slow[t * m + c]) / n;
    let ss = 0;
    for (let t = 0; t < n; t++) ss += (d[t * m + c] - mean) ** 2;
    const sd = Math.sqrt(ss / n) + E;
    // Centred after scaling, as the pilot's SVD of (d - mean).
    for (let t = 0; t < n; t++) d[t * m + c] = (d[t * m + c] - mean) / sd;
  }
  const pcs = principalScores(d, n, m, COMPONENTS);
  const frames = Math.max(1, Math.floor((n - WIN) / HOP) + 1);
  const bins = NFFT / 2 + 1;
  const spec = new Float64Array(frames * bins);
  for (let f = 0; f < frames; f++) {
    const s = f * HOP;
    for (let k = 0; k < COMPONENTS; k++) {
      for (let b = 0; b < bins; b++) {
        let re = 0;
        let im = 0;
        for (let i = 0; i < WIN && s + i < n; i++) {
          const v = pcs[(s + i) * COMPONENTS + k] * HANN[i];
          re += v * COS[b * WIN + i];
          im -= v * SIN[b * WIN + i];
        }
        spec[f * bins + b] += re * re + im * im;
      }
    }
  }
  return { spec, frames, slow, columns: m };
}

/**
 * Scores of the `k` leading principal components of the centred `n × m` matrix `d` (row-major), by subspace
 * iteration on its `m × m` covariance. The profile sums power over the components, so only the subspace matters.
 */
function principalScores(d: Float64Array, n: number, m: number, k: number): Float64Array {
  const cov = new Float64Array(m * m);
  for (let t = 0; t < n; t++) {
    const o = t * m;
    for (let i = 0; i < m; i++) {
      const v = d[o + i];
      if (v === 0) continue;
      for (let j = i; j < m; j++) cov[i * m + j] += v * d[o + j];
    }
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) cov[i * m + j] = cov[j * m + i];
  // Start from fixed, distinct vectors so the result does not depend on a random draw.
  let q = new Float64Array(m * k);
  for (let i = 0; i < m; i++) for (let c = 0; c < k; c++) q[i * k + c] = Math.cos(((i + 1) * (c + 1) * Math.PI) / (m + 1)) + (c === i % k ? 1 : 0);
  orthonormalize(q, m, k);
  for (let it = 0; it < 40; it++) {
    const next = new Float64Array(m * k);
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {
      const a = cov[i * m + j];
      for (let c = 0; c < k; c++) next[i * k + c] += a * q[j * k + c];
    }
    orthonormalize(next, m, k);
    let change = 0;
    for (let c = 0; c < k; c++) {
      let dot = 0;
      for (let i = 0; i < m; i++) dot += next[i * k + c] * q[i * k + c];
      change = Math.max(change, 1 - Math.abs(dot));
    }
    q = next;
    if (change < 1e-10) break;
  }
  const scores = new Float64Array(n * k);
  for (let t = 0; t < n; t++) for (let i = 0; i < m; i++) {
    const v = d[t * m + i];
    for (let c = 0; c < k; c++) scores[t * k + c] += v * q[i * k + c];
  }
  return scores;
}

function orthonormalize(q: Float64Array, m: number, k: number): void {
  for (let c = 0; c < k; c++) {
    for (let p = 0; p < c; p++) {
      let dot = 0;
      for (let i = 0; i < m; i++) dot += q[i * k + c] * q[i * k + p];
      for (let i = 0; i < m; i++) q[i * k + c] -= dot * q[i * k + p];
    }
    let norm = 0;
    for (let i = 0; i < m; i++) norm += q[i * k + c] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < m; i++) q[i * k + c] /= norm;
  }
}

function bandSeries(p: Profile): Float64Array[] {
  const bins = NFFT / 2 + 1;
  return BANDS.map(([lo, hi]) => {
    const out = new Float64Array(p.frames);
    for (let f = 0; f < p.frames; f++) for (let b = 0; b < bins; b++) if (FREQ[b] >= lo && FREQ[b] < hi) out[f] += p.spec[f * bins + b];
    return out;
  });
}

const sumBands = (bands: Float64Array[]) => {
  const out = new Float64Array(bands[0].length);
  for (const b of bands) for (let i = 0; i < out.length; i++) out[i] += b[i];
  return out;
};

/** numpy.convolve(x, ones(5)/5, 'same'). */
function smooth5(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    let s = 0;
    for (let j = i - 2; j <= i + 2; j++) if (j >= 0 && j < x.length) s += x[j];
    out[i] = s / 5;
  }
  return out;
}

/** numpy.percentile with linear interpolation. */
function percentile(x: ArrayLike<number>, q: number): number {
  const s = Float64Array.from(x).sort();
  const pos = (q / 100) * (s.length - 1);
  const lo = Math.floor(pos);
  return s[lo] + (pos - lo) * ((s[Math.min(s.length - 1, lo + 1)] ?? s[lo]) - s[lo]);
}

const median = (x: Float64Array) => percentile(x, 50);

/** What `eventFeatures` found in a window. */
export interface WindowEvent {
  /** Features laid out as `PROFILE_FEATURES` (a group's NaN when `kinds` left it out). */
  features: Float64Array;
  /** Slot (within the window) of the strongest event's peak. */
  peakSlot: number;
  /** Log of the phase-difference profile's smoothed peak energy: which event of a sample is its strongest. */
  strength: number;
}

/**
 * Features of the strongest event of a window (its peak found on the phase-difference profile).
 * `amplitude` and `phase` are the window's slots, oldest first; the amplitude profile is computed only when asked.
 */
export function eventFeatures(amplitude: StreamWindow, phase: StreamWindow, kinds: readonly ProfileKind[] = ['a', 'p', 's']): WindowEvent {
  const step = Math.round(PROFILE_RATE_HZ / HOP);
  const phaseProfile = profileOf(phase);
  const phaseTotal = sumBands(bandSeries(phaseProfile));
  const phaseSmooth = smooth5(phaseTotal);
  let p = 0;
  for (let i = 1; i < phaseSmooth.length; i++) if (phaseSmooth[i] > phaseSmooth[p]) p = i;
  const peakSlot = p * HOP + WIN / 2;
  const features = new Float64Array(PROFILE_FEATURES.length).fill(NaN);
  const perKind = (PROFILE_FEATURES.length - STATE_FEATURES.length - SHAPE_FEATURES.length) / 2;
  if (kinds.includes('s')) features.set(stateFeatures(amplitude, phase, Math.min(amplitude.length - 1, peakSlot), PROFILE_RATE_HZ), 2 * perKind);
  for (const kind of kinds) {
    if (kind === 's') continue;
    const prof = kind === 'p' ? phaseProfile : profileOf(amplitude);
    const bands = bandSeries(prof);
    const tot = sumBands(bands);
    const sm = smooth5(tot);
    const base = percentile(tot, 10) + E;
    let o = kind === 'a' ? 0 : perKind;
    for (let off = -SECONDS_BEFORE; off < SECONDS_AFTER; off++) {
      const lo = Math.max(0, p + off * step);
      const hi = Math.max(0, Math.min(prof.frames, p + (off + 1) * step));
      for (const band of bands) {
        let v = base / BANDS.length;
        if (hi > lo) {
          v = 0;
          for (let i = lo; i < hi; i++) v += band[i] / (hi - lo);
        }
        features[o++] = Math.log((v + E) / base);
      }
    }
    // The peak's speed: the frequencies below which 50 % and 90 % of its energy above 0.5 Hz lies.
    const bins = NFFT / 2 + 1;
    let total = 0;
    for (let b = 0; b < bins; b++) if (FREQ[b] >= 0.5) total += prof.spec[p * bins + b];
    const speedAt = (share: number) => {
      let c = 0;
      let last = 0;
      for (let b = 0; b < bins; b++) {
        if (FREQ[b] < 0.5) continue;
        c += prof.spec[p * bins + b];
        last = FREQ[b];
        if (c / (total + E) >= share) return FREQ[b];
      }
      return last;
    };
    features[o++] = speedAt(0.5);
    features[o++] = speedAt(0.9);
    const half = base + 0.5 * (sm[p] - base);
    let a = p;
    let b = p;
    while (a > 0 && sm[a - 1] > half) a--;
    while (b < sm.length - 1 && sm[b + 1] > half) b++;
    features[o++] = Math.log((b - a + 1) / step);
    if (kind === 'p' && kinds.includes('s')) {
      let fast = 0;
      let all = 0;
      for (let i = a; i <= b; i++) {
        fast += bands[2][i] + bands[3][i];
        all += tot[i];
      }
      features.set([((p - a) * HOP) / PROFILE_RATE_HZ, ((b - p) * HOP) / PROFILE_RATE_HZ, Math.log((fast + E) / (all + E))], 2 * perKind + STATE_FEATURES.length);
    }
    // What follows the peak (2–6 s after) and what led to it (6–2 s before): a fall ends low and still.
    const after = tot.subarray(p + 2 * step, p + 6 * step);
    const before = tot.subarray(Math.max(0, p - 6 * step), Math.max(0, p - 2 * step));
    features[o++] = Math.log((after.length ? median(after) : tot[tot.length - 1]) / base + E);
    features[o++] = Math.log((before.length ? median(before) : tot[0]) / base + E);
    features[o++] = Math.log(sm[p] / base);
    // How far the static part moved across the event (3 s each side), against its spread over the window.
    const n = prof.slow.length / prof.columns;
    const ip = Math.min(n - 1, peakSlot);
    const sa = Math.min(n - 1, ip + 3 * PROFILE_RATE_HZ);
    const sb = Math.max(0, ip - 3 * PROFILE_RATE_HZ);
    let moved = 0;
    let spread = 0;
    for (let c = 0; c < prof.columns; c++) {
      moved += (prof.slow[sa * prof.columns + c] - prof.slow[sb * prof.columns + c]) ** 2;
      let mean = 0;
      for (let t = 0; t < n; t++) mean += prof.slow[t * prof.columns + c] / n;
      let ss = 0;
      for (let t = 0; t < n; t++) ss += (prof.slow[t * prof.columns + c] - mean) ** 2;
      spread += ss / n;
    }
    features[o++] = Math.log(Math.sqrt(moved) / (Math.sqrt(spread) + E) + E);
  }
  return { features, peakSlot, strength: Math.log(phaseSmooth[p] + E) };
}
