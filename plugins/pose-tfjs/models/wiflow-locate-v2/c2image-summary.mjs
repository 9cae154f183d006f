// c2image-protocol.md: the runs (a: 2.3.0 C2 off, b: 2.3.0 C2 on, D1/D2 with `diffuseWhitening` on and off)
// summarised per people count, with paired 95 % bootstrap intervals over rooms and the protocol's reading.
// Each run is DIR/<name>.{json,cpu,uptime} as `readRun` reads them (room-bootstrap.mjs).
// Usage: node models/wiflow-locate-v2/c2image-summary.mjs DIR > c2image-val.json
import { logRunsAndChanges, pairedChange, readRun, runsWithoutRooms } from './room-bootstrap.mjs';

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
logRunsAndChanges(Object.entries(RUNS).map(([k, label]) => [`${k} (${label})`, runs[k]]), Object.entries(changes));
console.error(`reading: ${JSON.stringify(verdict)}; lead: ${winners[0] ?? 'none'}`);
console.log(JSON.stringify({ runs: runsWithoutRooms(runs), changes, verdict, lead: winners[0] ?? null }, null, 1));
