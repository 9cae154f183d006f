/**
 * How the still channel after an event differs from the one before it: a fall ends on the floor, a pick-up
 * returns to standing, sitting down or standing up ends in another posture. Read from the raw streams of the
 * judged window around the event's peak. Chosen in pilot/falls_after.py: the amplitude shift alone separates
 * falls from pick-ups, sit-downs and stand-ups (leave-one-person-out AUC 0.90–1.00), but a fall lies in a band
 * (it shifts the channel more than a pick-up and less than sitting down), so its square is a feature too.
 */
import type { StreamWindow } from './velocity-profile.js';

/** The state before: 4–2 s before the peak; after: 2–4 s after it, in seconds (the detector judges a peak 5–6 s old). */
const BEFORE: [number, number] = [-4, -2];
const AFTER: [number, number] = [2, 4];
/** Fewest slots a state is read from; at the end of input the window's last slots stand in for a short "after". */
const MIN_SLOTS = 10;
const E = 1e-9;

/** Names of the state-change features, in the order `stateFeatures` returns them. */
export const STATE_FEATURES = ['s_amp_shift', 's_amp_shift_sq', 's_phase_shift', 's_amp_still_after'];

/** Slots [from, to) of the window, clamped, widened back to `MIN_SLOTS` from the window's edge when short. */
function span(n: number, from: number, to: number): [number, number] {
  let a = Math.max(0, Math.min(n, from));
  let b = Math.max(0, Math.min(n, to));
  if (b - a < MIN_SLOTS) {
    if (a === 0) b = Math.min(n, MIN_SLOTS);
    else a = Math.max(0, b - MIN_SLOTS);
  }
  return [a, b];
}

/** Each slot's amplitudes over their mean: the card's gain steps cancel, the channel's shape stays. */
function gainFree(rows: StreamWindow, a: number, b: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let t = a; t < b; t++) {
    const row = rows[t];
    let mean = 0;
    for (let i = 0; i < row.length; i++) mean += row[i] / row.length;
    out.push(row.map((v) => v / (mean + E)));
  }
  return out;
}

function medianOf(values: number[]): number {
  const s = values.sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/** Per-column median and variance of some rows. */
function summary(rows: Float64Array[]): { median: Float64Array; variance: Float64Array } {
  const m = rows[0].length;
  const median = new Float64Array(m);
  const variance = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    const col = rows.map((r) => r[c]);
    let mean = 0;
    for (const v of col) mean += v / col.length;
    let ss = 0;
    for (const v of col) ss += (v - mean) ** 2;
    variance[c] = ss / col.length;
    median[c] = medianOf(col);
  }
  return { median, variance };
}

/** Log of the distance between two states' medians over the spread inside them (a t-like figure). */
function shift(before: Float64Array[], after: Float64Array[]): number {
  const a = summary(before);
  const b = summary(after);
  let d = 0;
  let spread = 0;
  for (let c = 0; c < a.median.length; c++) {
    d += (b.median[c] - a.median[c]) ** 2;
    spread += 0.5 * (a.variance[c] + b.variance[c]);
  }
  return Math.log(Math.sqrt(d) / (Math.sqrt(spread) + E) + E);
}

/** Mean per-column spread of some rows. */
function meanSpread(rows: Float64Array[]): number {
  const { variance } = summary(rows);
  let s = 0;
  for (const v of variance) s += Math.sqrt(v) / variance.length;
  return s;
}

/**
 * State-change features of the event peaking at slot `peakSlot` of the window (`amplitude`, `phase`: its
 * slots at `rateHz`, oldest first; `phase` unwrapped over time), laid out as `STATE_FEATURES`.
 */
export function stateFeatures(amplitude: StreamWindow, phase: StreamWindow, peakSlot: number, rateHz: number): number[] {
  const n = amplitude.length;
  const [b0, b1] = span(n, peakSlot + BEFORE[0] * rateHz, peakSlot + BEFORE[1] * rateHz);
  const [a0, a1] = span(n, peakSlot + AFTER[0] * rateHz, peakSlot + AFTER[1] * rateHz);
  const before = gainFree(amplitude, b0, b1);
  const after = gainFree(amplitude, a0, a1);
  const ampShift = shift(before, after);
  const phaseShift = shift(phase.slice(b0, b1), phase.slice(a0, a1));
  // A fall ends still on the floor; a squat or a pick-up is often followed by rising again.
  const stillAfter = Math.log((meanSpread(after) + E) / (meanSpread(before) + E));
  return [ampShift, ampShift * ampShift, phaseShift, stillAfter];
}
