// What the intel5300-ht40 profile's per-chain draws are sized from: on the real Intel 5300 HT40
// takes in ../shared/data/real/breathing-intel5300 (evaluation only, read in place), each
// receive chain's complex gain against the first packet, relative to chain 0, packet by packet.
// Usage: node plugins/sim/scripts/ht40-chains.mjs [folder]
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readCapture } from '@wiflow/plugin-csi';

const dir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../../../../shared/data/real/breathing-intel5300'));
if (!existsSync(dir)) {
  console.log(`ht40-chains skipped: ${dir} is absent`);
  process.exit(0);
}

/** Chain r's phase (degrees) and gain (dB) against chain 0, this packet against the first. */
function chainsAgainstFirst(frame, first, nsc, ntx, nrx) {
  const gains = [];
  for (let r = 0; r < nrx; r++) {
    let nr = 0, ni = 0, d = 0;
    for (let t = 0; t < ntx; t++) for (let k = 0; k < nsc; k++) {
      const j = (t * nrx + r) * nsc + k;
      const a = first.re[j], b = first.im[j], x = frame.re[j], y = frame.im[j];
      nr += a * x + b * y; ni += a * y - b * x; d += a * a + b * b;
    }
    gains.push([nr / d, ni / d]);
  }
  const [ar, ai] = gains[0];
  return gains.slice(1).map(([br, bi]) => ({
    phaseDeg: (Math.atan2(bi * ar - br * ai, br * ar + bi * ai) * 180) / Math.PI,
    gainDb: 20 * Math.log10(Math.hypot(br, bi) / Math.hypot(ar, ai)),
  }));
}

const sd = (v) => { const m = v.reduce((a, b) => a + b, 0) / v.length; return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length); };
console.log('take  packets  within 20° of k·90°  quarter changes between packets  per-chain gain σ per packet (dB)');
for (const file of readdirSync(dir).filter((f) => f.endsWith('.dat')).sort()) {
  const frames = (await readCapture(path.join(dir, file))).filter((f) => f.nrx === 3);
  if (frames.length < 3) continue;
  const { ntx, nrx } = frames[0];
  const nsc = frames[0].subcarriers.length;
  let near = 0, total = 0, changes = 0, pairs = 0;
  const gainSteps = [];
  let previous = null;
  for (const f of frames.slice(1, 600)) {
    const now = chainsAgainstFirst(f.csi, frames[0].csi, nsc, ntx, nrx);
    for (const [i, c] of now.entries()) {
      const off = Math.abs(c.phaseDeg - 90 * Math.round(c.phaseDeg / 90));
      total++;
      if (off < 20) near++;
      if (previous) {
        pairs++;
        const q = (deg) => ((Math.round(deg / 90) % 4) + 4) % 4;
        if (q(c.phaseDeg) !== q(previous[i].phaseDeg)) changes++;
        gainSteps.push(c.gainDb - previous[i].gainDb);
      }
    }
    previous = now;
  }
  // A difference of two independent draws has √2 times their spread.
  console.log(`${file.padEnd(14)} ${String(frames.length).padEnd(8)} ${(near / total).toFixed(2).padEnd(20)} ${(changes / pairs).toFixed(2).padEnd(32)} ${(sd(gainSteps) / Math.SQRT2).toFixed(2)}`);
}
