// capon-protocol.md, amendment 2: B and C1f on the fresh splits val3 and val4, pooled over their 46 rooms (count exact
// weighted by samples; floor error mean, median and p90 over every paired person, quantiles at ⌊q·n⌋ as the reports
// take them), the four conditions, and each split's own figures.
// Each run is DIR/<name>-<split>.{json,cpu,uptime} as `readRun` reads them (room-bootstrap.mjs), written with --per-room.
// Usage: node models/wiflow-locate-v2/capon-confirm.mjs DIR > capon-confirm.json
import { pooled, readRun, runsWithoutRooms } from './room-bootstrap.mjs';

const dir = process.argv[2];
const SPLITS = ['val3', 'val4'];
const runs = {};
for (const k of ['B', 'C1f']) for (const s of SPLITS) runs[`${k}-${s}`] = readRun(dir, `${k}-${s}`);
const round = (v) => +v.toFixed(3);
const figures = (k) => {
  const rooms = SPLITS.flatMap((s) => runs[`${k}-${s}`].perRoom);
  const errors = Float64Array.from(rooms.flatMap((r) => r.floorErrorsM)).sort();
  const at = (q) => errors[Math.min(errors.length - 1, Math.floor(q * errors.length))];
  return { rooms: rooms.length, people: errors.length, countExact: round(pooled(rooms).count), floorMeanM: round(errors.reduce((a, b) => a + b, 0) / errors.length), floorMedianM: round(at(0.5)), floorP90M: round(at(0.9)) };
};
const b = figures('B'), c = figures('C1f');
const change = { floorMedianM: round(c.floorMedianM - b.floorMedianM), floorMeanM: round(c.floorMeanM - b.floorMeanM), floorP90M: round(c.floorP90M - b.floorP90M), countExact: round(c.countExact - b.countExact) };
const conditions = { medianDown005: change.floorMedianM <= -0.05, meanNotUp: change.floorMeanM <= 0, p90UpAtMost010: change.floorP90M <= 0.1, countKept: change.countExact >= -0.02 };
const confirmed = Object.values(conditions).every(Boolean);
for (const [k, r] of Object.entries(runs)) console.error(`${k}: ${r.modelHash}, ${r.rooms} rooms, ${r.samples} samples, ${r.wallSeconds} s wall, ${r.cpuSeconds} CPU-s; load ${r.uptime.map((u) => u.replace(/.*load average: /, '')).join(' → ')}; all: count ${r.buckets.all.countExact}, floor ${r.buckets.all.floorMeanM} / ${r.buckets.all.floorMedianM} / ${r.buckets.all.floorP90M} m; one person ${r.buckets['1'].floorMeanM} / ${r.buckets['1'].floorMedianM} m, count ${r.buckets['1'].countExact}`);
console.error(`pooled B ${JSON.stringify(b)}\npooled C1f ${JSON.stringify(c)}\nchange ${JSON.stringify(change)}\nconditions ${JSON.stringify(conditions)}; confirmed: ${confirmed}`);
console.log(JSON.stringify({ runs: runsWithoutRooms(runs), pooled: { B: b, C1f: c }, change, conditions, confirmed }, null, 1));
