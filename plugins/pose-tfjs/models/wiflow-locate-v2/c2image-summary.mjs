// c2image-protocol.md: the runs (a: 2.3.0 C2 off, b: 2.3.0 C2 on, D1/D2 with `diffuseWhitening` on and off)
// summarised per people count, with paired 95 % bootstrap intervals over rooms and the protocol's reading.
// Each run is DIR/<name>.{json,cpu,uptime} as `readRun` reads them (room-bootstrap.mjs).
// Usage: node models/wiflow-locate-v2/c2image-summary.mjs DIR > c2image-val.json
import { pairedChange, readRun } from './room-bootstrap.mjs';

const dir = process.argv[2];
const RUNS = { a: '2.3.0, C2 off', b: '2.3.0, C2 on', D1on: 'D1 (T 22 ns, ρ 10), C2 on', D1off: 'D1, C2 off', D2on: 'D2 (T 22 ns, ρ 30), C2 on', D2off: 'D2, C2 off' };
const runs = Object.fromEntries(Object.keys(RUNS).map((k) => [k, readRun(dir, k)]));
const changes = {};
const verdict = {};
for (const c of ['D1', 'D2']) {
  const on = pairedChange(runs[`${c}on`], runs.b), off = pairedChange(runs[`${c}off`], runs.a);
  changes[`${c}on-b`] = on;
  changes[`${c}off-a`] = off;
  // The protocol's three conditions; null: not measured.
  verdict[c] = on && off ? {
    c2OnFloorBetter: on.floorIntervalM[1] < 0,
    c2OnCountNotWorse: !(on.countInterval[1] < 0),
    c2OffWithinMargin: off.floorM <= 0.05 && off.count >= -0.02,
  } : null;
  if (verdict[c]) verdict[c].wins = Object.values(verdict[c]).every(Boolean);
}
const winners = ['D1', 'D2'].filter((c) => verdict[c]?.wins).sort((x, y) => runs[`${x}on`].buckets.all.floorMeanM - runs[`${y}on`].buckets.all.floorMeanM);
for (const [k, label] of Object.entries(RUNS)) {
  const r = runs[k];
  if (!r) { console.error(`${k} (${label}): not measured`); continue; }
  console.error(`${k} (${label}): ${r.modelHash}, ${r.rooms} rooms, ${r.samples} samples, ${r.wallSeconds} s wall, ${r.cpuSeconds} CPU-s; load ${r.uptime.map((u) => u.replace(/.*load average: /, '')).join(' → ')}`);
  for (const b of ['1', '2', '3', 'all']) { const x = r.buckets[b]; console.error(`  ${b}: count exact ${x.countExact}; floor error mean / median / p90 ${x.floorMeanM} / ${x.floorMedianM} / ${x.floorP90M} m`); }
}
for (const [k, d] of Object.entries(changes)) if (d) console.error(`${k}: count exact ${d.count} [${d.countInterval.join(', ')}], floor error ${d.floorM} m [${d.floorIntervalM.join(', ')}]`);
console.error(`reading: ${JSON.stringify(verdict)}; lead: ${winners[0] ?? 'none'}`);
console.log(JSON.stringify({ runs: Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r && { ...r, perRoom: undefined }])), changes, verdict, lead: winners[0] ?? null }, null, 1));
