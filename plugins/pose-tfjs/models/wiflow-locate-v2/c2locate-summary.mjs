// c2locate-protocol.md: the runs (a: 2.3.0 C2 off, b: 2.3.0 C2 on, c: refit C2 on, d: refit C2 off, control) summarised,
// per people count, with the protocol's reading and paired 95 % bootstrap intervals over rooms.
// Each run is DIR/<name>.json (`wiflow locate eval --per-room --json`), DIR/<name>.cpu ("wall user sys"
// seconds, from /usr/bin/time -f '%e %U %S') and DIR/<name>.uptime (uptime before and after).
// Usage: node models/wiflow-locate-v2/c2locate-summary.mjs DIR [suffix]   (suffix: e.g. -v2 for --realism v2 runs)
import { existsSync, readFileSync } from 'node:fs';
import { bootstrap, pooled } from './room-bootstrap.mjs';

const [dir, suffix = ''] = process.argv.slice(2);
const round = (v, d = 3) => (v == null ? null : +v.toFixed(d));
const RUNS = { a: '2.3.0, C2 off', b: '2.3.0, C2 on', c: 'refit on C2, C2 on', d: 'refit on C2 off, C2 off (control)' };

const read = (name) => {
  const base = `${dir}/${name}${suffix}`;
  if (!existsSync(`${base}.cpu`) || !readFileSync(`${base}.cpu`, 'utf8').trim()) return null; // a run still going: time writes .cpu at its end
  const j = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const [wall, user, sys] = readFileSync(`${base}.cpu`, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const buckets = Object.fromEntries(['1', '2', '3', 'all'].map((k) => [k, {
    countExact: round(j.model[k]?.countAccuracy), floorMeanM: round(j.floorErrorM[k]?.mean), floorMedianM: round(j.floorErrorM[k]?.median), floorP90M: round(j.floorErrorM[k]?.p90),
  }]));
  return { modelHash: j.modelHash.slice(0, 12), propagationWhatIf: j.propagationWhatIf ?? null, rooms: j.rooms, samples: j.samples, emptyCountExact: round(j.model['0']?.countAccuracy), buckets, perRoom: j.perRoom, wallSeconds: wall, cpuSeconds: round(user + sys, 1), uptime: readFileSync(`${base}.uptime`, 'utf8').trim().split('\n') };
};
const runs = Object.fromEntries(Object.keys(RUNS).map((k) => [k, read(k)]));

/** x − y pooled over all rooms, with the paired bootstrap interval (the same resampled rooms for both). */
const change = (x, y) => {
  const a = runs[x], b = runs[y];
  if (!a || !b) return null;
  const rooms = b.perRoom.map((r) => r.room);
  const ma = new Map(a.perRoom.map((r) => [r.room, r])), mb = new Map(b.perRoom.map((r) => [r.room, r]));
  const diff = (idx, key) => pooled(idx.map((i) => ma.get(rooms[i])))[key] - pooled(idx.map((i) => mb.get(rooms[i])))[key];
  const all = rooms.map((_, i) => i);
  return { count: round(diff(all, 'count')), countInterval: bootstrap(rooms.length, (idx) => diff(idx, 'count')), floorM: round(diff(all, 'floor')), floorIntervalM: bootstrap(rooms.length, (idx) => diff(idx, 'floor')) };
};
// The protocol's reading: "worse" / "better" / "no measurable change" of a change.
const reading = (d) => {
  if (!d) return null;
  const countWorse = d.countInterval[1] < 0, floorWorse = d.floorIntervalM[0] > 0;
  const countBetter = d.countInterval[0] > 0, floorBetter = d.floorIntervalM[1] < 0;
  if (countWorse || floorWorse) return 'worse';
  if (countBetter || floorBetter) return 'better';
  return 'no measurable change';
};
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
