// c2locate-protocol.md: the runs (a: 2.3.0 C2 off, b: 2.3.0 C2 on, c: refit C2 on, d: refit C2 off, control) summarised,
// per people count, with the protocol's reading and paired 95 % bootstrap intervals over rooms.
// Each run is DIR/<name>.json (`wiflow locate eval --per-room --json`), DIR/<name>.cpu ("wall user sys"
// seconds, from /usr/bin/time -f '%e %U %S') and DIR/<name>.uptime (uptime before and after).
// Usage: node models/wiflow-locate-v2/c2locate-summary.mjs DIR [suffix]   (suffix: e.g. -v2 for --realism v2 runs)
import { pairedChange, readRun, reading } from './room-bootstrap.mjs';

const [dir, suffix = ''] = process.argv.slice(2);
const RUNS = { a: '2.3.0, C2 off', b: '2.3.0, C2 on', c: 'refit on C2, C2 on', d: 'refit on C2 off, C2 off (control)' };

const read = (name) => readRun(dir, `${name}${suffix}`);
const runs = Object.fromEntries(Object.keys(RUNS).map((k) => [k, read(k)]));
const change = (x, y) => pairedChange(runs[x], runs[y]);
const changes = { c2On: change('b', 'a'), refitUnderC2: change('c', 'b'), refitAgainstToday: change('c', 'a'), refitOff: change('d', 'a'), c2OnBothRefitted: change('c', 'd') };
const verdict = { c2On: reading(changes.c2On), refitUnderC2: reading(changes.refitUnderC2), refitRecovers: changes.refitAgainstToday ? reading(changes.refitAgainstToday) !== 'worse' : null, c2OnBothRefitted: reading(changes.c2OnBothRefitted) };

for (const [k, label] of Object.entries(RUNS)) {
  const r = runs[k];
  if (!r) { console.error(`${k} (${label}): not measured`); continue; }
  console.error(`${k} (${label}): ${r.modelHash}, ${r.rooms} rooms, ${r.samples} samples, ${r.wallSeconds} s wall, ${r.cpuSeconds} CPU-s; load ${r.uptime.map((u) => u.replace(/.*load average: /, '')).join(' → ')}`);
  for (const b of ['1', '2', '3', 'all']) { const x = r.buckets[b]; console.error(`  ${b}: count exact ${x.countExact}; floor error mean / median / p90 ${x.floorMeanM} / ${x.floorMedianM} / ${x.floorP90M} m`); }
}
for (const [k, d] of Object.entries(changes)) if (d) console.error(`${k}: count exact ${d.count} [${d.countInterval.join(', ')}], floor error ${d.floorM} m [${d.floorIntervalM.join(', ')}]`);
console.error(`reading: ${JSON.stringify(verdict)}`);
console.log(JSON.stringify({ suffix, runs: Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r && { ...r, perRoom: undefined }])), changes, verdict }, null, 1));
