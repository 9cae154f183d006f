// What the profiles' RSSI noise is sized from: on the real Intel 5300 captures of a still person
// (../shared/data/real/activities-intel5300, labels `lying` and `sitting`; evaluation data, read in
// place, nothing copied), each receive chain's RSSI as the reader reports it, packet by packet.
// It prints per file: whether every value is a whole dB, the mean |change| between consecutive
// packets, the share of packets whose RSSI changed, and the σ of Gaussian noise that, rounded to
// whole dB about a steady level (its fraction of a dB uniform), gives the same mean |change|.
// Usage: node plugins/sim/scripts/rssi-still.mjs [folder]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readCapture } from '@wiflow/plugin-csi';

const dir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../../../../shared/data/real/activities-intel5300'));
if (!existsSync(dir)) {
  console.log(`rssi-still skipped: ${dir} is absent`);
  process.exit(0);
}

/** E|round(r + σz₁) − round(r + σz₂)| over r uniform in [0, 1): what whole-dB noise of σ changes per packet. */
function expectedStep(sigma) {
  const grid = 200;
  let total = 0;
  for (let i = 0; i < grid; i++) {
    const r = (i + 0.5) / grid;
    // P(round(r + σz) = n) for the few n that matter.
    const p = [];
    for (let n = -6; n <= 6; n++) p.push([n, cdf((n + 0.5 - r) / sigma) - cdf((n - 0.5 - r) / sigma)]);
    for (const [a, pa] of p) for (const [b, pb] of p) total += Math.abs(a - b) * pa * pb;
  }
  return total / grid;
}
function cdf(x) {
  // Abramowitz–Stegun 7.1.26 erf.
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
function sigmaFor(step) {
  let lo = 0.01, hi = 3;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (expectedStep(mid) < step) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

const labels = JSON.parse(readFileSync(path.join(dir, 'labels.json'), 'utf8')).filter((l) => l.label === 'lying' || l.label === 'sitting');
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const steps = [];
console.log('file  packets  whole dB  mean |change| dB  packets changed  σ that matches (dB)');
for (const { file } of labels) {
  // A minute of each (the lying takes run for minutes; a person shifts now and then).
  const frames = (await readCapture(path.join(dir, file), { onError: 'stop' })).filter((f) => f.rssi?.length).slice(0, 20 * 60);
  let whole = 0, values = 0, change = 0, changed = 0, pairs = 0;
  for (let i = 0; i < frames.length; i++) {
    const a = frames[i].rssi;
    for (const v of a) { values++; if (Number.isInteger(v)) whole++; }
    if (i === 0) continue;
    const b = frames[i - 1].rssi;
    if (a.length !== b.length) continue;
    for (let c = 0; c < a.length; c++) { pairs++; const d = Math.abs(a[c] - b[c]); change += d; if (d > 0) changed++; }
  }
  const step = change / pairs;
  steps.push(step);
  console.log(`${file}  ${frames.length}  ${(whole / values).toFixed(3)}  ${step.toFixed(3)}  ${(changed / pairs).toFixed(3)}  ${sigmaFor(step).toFixed(2)}`);
}
const m = median(steps);
console.log(`median over ${steps.length} takes: mean |change| ${m.toFixed(3)} dB per packet and chain → σ ${sigmaFor(m).toFixed(2)} dB before whole-dB rounding`);
