// The 95 % bootstrap over rooms the validation protocols use (deadband-protocol.md, distract-protocol.md):
// 2,000 resamples of room indices with a fixed seed, so the same rooms are drawn for every model
// (paired), and the pooling of per-room figures (count exact weighted by samples, floor error by
// matched people) that `wiflow locate eval --per-room` rooms are pooled with.
import { existsSync, readFileSync } from 'node:fs';

const round = (v, d = 3) => (v == null ? null : +v.toFixed(d));

/** Pooled figures of some rooms: count exact weighted by samples, floor error by matched people. */
export const pooled = (rooms) => {
  let samples = 0, exact = 0, people = 0, floor = 0;
  for (const r of rooms) { samples += r.samples; exact += r.countExact * r.samples; people += r.people; floor += (r.floorErrorM ?? 0) * r.people; }
  return { count: exact / samples, floor: people ? floor / people : null };
};

/** 95 % interval of a statistic of resampled room indices (2,000 draws, fixed seed). */
export const bootstrap = (n, statistic) => {
  let state = 20261127;
  const random = () => { state = (state * 1664525 + 1013904223) >>> 0; return state / 2 ** 32; };
  const values = [];
  for (let b = 0; b < 2000; b++) values.push(statistic(Array.from({ length: n }, () => Math.floor(random() * n))));
  values.sort((a, b) => a - b);
  return [round(values[49]), round(values[1949])];
};

/**
 * One `wiflow locate eval --per-room --json` run recorded as BASE.json, BASE.cpu ("wall user sys" seconds, from
 * /usr/bin/time -f '%e %U %S') and BASE.uptime (uptime before and after), BASE = `${dir}/${name}`; null while it runs.
 */
export const readRun = (dir, name) => {
  const base = `${dir}/${name}`;
  if (!existsSync(`${base}.cpu`) || !readFileSync(`${base}.cpu`, 'utf8').trim()) return null; // a run still going: time writes .cpu at its end
  const j = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const [wall, user, sys] = readFileSync(`${base}.cpu`, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const buckets = Object.fromEntries(['1', '2', '3', 'all'].map((k) => [k, {
    countExact: round(j.model[k]?.countAccuracy), floorMeanM: round(j.floorErrorM[k]?.mean), floorMedianM: round(j.floorErrorM[k]?.median), floorP90M: round(j.floorErrorM[k]?.p90),
  }]));
  return { modelHash: j.modelHash.slice(0, 12), propagationWhatIf: j.propagationWhatIf ?? null, rooms: j.rooms, samples: j.samples, emptyCountExact: round(j.model['0']?.countAccuracy), buckets, perRoom: j.perRoom, wallSeconds: wall, cpuSeconds: round(user + sys, 1), uptime: readFileSync(`${base}.uptime`, 'utf8').trim().split('\n') };
};

/** Run a − run b pooled over all rooms, with the paired bootstrap interval (the same resampled rooms for both). */
export const pairedChange = (a, b) => {
  if (!a || !b) return null;
  const rooms = b.perRoom.map((r) => r.room);
  const ma = new Map(a.perRoom.map((r) => [r.room, r])), mb = new Map(b.perRoom.map((r) => [r.room, r]));
  const diff = (idx, key) => pooled(idx.map((i) => ma.get(rooms[i])))[key] - pooled(idx.map((i) => mb.get(rooms[i])))[key];
  const all = rooms.map((_, i) => i);
  return { count: round(diff(all, 'count')), countInterval: bootstrap(rooms.length, (idx) => diff(idx, 'count')), floorM: round(diff(all, 'floor')), floorIntervalM: bootstrap(rooms.length, (idx) => diff(idx, 'floor')) };
};

/** The c2locate reading of a change: "worse" / "better" / "no measurable change". */
export const reading = (d) => {
  if (!d) return null;
  const countWorse = d.countInterval[1] < 0, floorWorse = d.floorIntervalM[0] > 0;
  const countBetter = d.countInterval[0] > 0, floorBetter = d.floorIntervalM[1] < 0;
  if (countWorse || floorWorse) return 'worse';
  if (countBetter || floorBetter) return 'better';
  return 'no measurable change';
};

/** A summary's log lines (stderr): each run's model, size, cost and load with its figures per people count, then each change. */
export const logRunsAndChanges = (labelledRuns, changes) => {
  for (const [label, r] of labelledRuns) {
    if (!r) { console.error(`${label}: not measured`); continue; }
    console.error(`${label}: ${r.modelHash}, ${r.rooms} rooms, ${r.samples} samples, ${r.wallSeconds} s wall, ${r.cpuSeconds} CPU-s; load ${r.uptime.map((u) => u.replace(/.*load average: /, '')).join(' → ')}`);
    for (const b of ['1', '2', '3', 'all']) { const x = r.buckets[b]; console.error(`  ${b}: count exact ${x.countExact}; floor error mean / median / p90 ${x.floorMeanM} / ${x.floorMedianM} / ${x.floorP90M} m`); }
  }
  for (const [label, d] of changes) if (d) console.error(`${label}: count exact ${d.count} [${d.countInterval.join(', ')}], floor error ${d.floorM} m [${d.floorIntervalM.join(', ')}]`);
};

/** The runs as a summary's JSON holds them: without their per-room rows. */
export const runsWithoutRooms = (runs) => Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r && { ...r, perRoom: undefined }]));
