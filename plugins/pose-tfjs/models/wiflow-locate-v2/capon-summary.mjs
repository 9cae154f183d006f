// capon-protocol.md: the runs (B: 2.3.0; C1, C10: Capon scoring; Bf, C1f, C10f: the same with the count head
// refitted, amendment 1) on `val` and `val2`, each against B with paired 95 % bootstrap intervals over rooms, the
// 46 rooms of both splits pooled, and the protocol's reading.
// Each run is DIR/<name>-<split>.{json,cpu,uptime} as `readRun` reads them (room-bootstrap.mjs).
// Usage: node models/wiflow-locate-v2/capon-summary.mjs DIR > capon-val.json
import { logRunsAndChanges, pairedChange, readRun, runsWithoutRooms } from './room-bootstrap.mjs';

const dir = process.argv[2];
const SPLITS = ['val', 'val2'];
const RUNS = { B: '2.3.0 (matched filter)', C1: 'Capon, loading 1', C10: 'Capon, loading 10', Bf: '2.3.0 imaging, count head refitted', C1f: 'Capon 1, count head refitted', C10f: 'Capon 10, count head refitted' };
const runs = {};
for (const k of Object.keys(RUNS)) for (const s of SPLITS) runs[`${k}-${s}`] = readRun(dir, `${k}-${s}`);
/** Both splits' rooms as one run (room names prefixed by their split), for the pooled interval. */
const both = (k) => (SPLITS.every((s) => runs[`${k}-${s}`]) ? { perRoom: SPLITS.flatMap((s) => runs[`${k}-${s}`].perRoom.map((r) => ({ ...r, room: `${s}/${r.room}` }))) } : null);
const changes = {};
const verdict = {};
for (const c of ['C1', 'C10', 'Bf', 'C1f', 'C10f']) {
  for (const s of SPLITS) changes[`${c}-${s} − B`] = pairedChange(runs[`${c}-${s}`], runs[`B-${s}`]);
  changes[`${c} − B, both splits`] = pairedChange(both(c), both('B'));
  const per = SPLITS.map((s) => changes[`${c}-${s} − B`]);
  const pooledChange = changes[`${c} − B, both splits`];
  verdict[c] = per.every(Boolean) && pooledChange ? {
    floorDownOnEachSplit: per.every((d) => d.floorM <= -0.05),
    countKeptOnEachSplit: per.every((d) => d.count >= -0.02),
    pooledFloorIntervalBelowZero: pooledChange.floorIntervalM[1] < 0,
  } : null;
  if (verdict[c]) verdict[c].wins = Object.values(verdict[c]).every(Boolean);
}
const pooledFloor = (k) => changes[`${k} − B, both splits`]?.floorM ?? Infinity;
const winners = Object.keys(verdict).filter((c) => c !== 'Bf' && verdict[c]?.wins).sort((x, y) => pooledFloor(x) - pooledFloor(y));
logRunsAndChanges(Object.entries(runs).map(([k, r]) => [`${k} (${RUNS[k.split('-')[0]]})`, r]), Object.entries(changes));
console.error(`reading: ${JSON.stringify(verdict)}; lead: ${winners[0] ?? 'none'}`);
console.log(JSON.stringify({ runs: runsWithoutRooms(runs), changes, verdict, lead: winners[0] ?? null }, null, 1));
