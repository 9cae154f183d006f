// deadband-protocol.md: the grid's outputs (deadband-grid.sh OUTDIR) summarised, with the rule
// applied and 95 % bootstrap intervals over rooms (paired: the same resampled rooms for both models).
// Usage: node models/wiflow-locate-v2/deadband-summary.mjs OUTDIR > models/wiflow-locate-v2/deadband-grid.json
//        node models/wiflow-locate-v2/deadband-summary.mjs OUTDIR --alive 0.4   (exit 1 once a guard failed)
import { existsSync, readFileSync } from 'node:fs';
import { bootstrap, pooled } from './room-bootstrap.mjs';

const [out, flag, which] = process.argv.slice(2);
const MODELS = { S: 'shipped 2.3.0 (dead band 0.2)', '0.3': 'dead band 0.3', '0.4': 'dead band 0.4', '0.6': 'dead band 0.6', P: '2.2.0 (no staticChainGain)' };
const SPLITS = ['val', 'val2'], REALISMS = ['none', 'v2'];
const round = (v, d = 3) => (v == null ? null : +v.toFixed(d));

const read = (m, s, r) => {
  const base = `${out}/${m}-${s}-${r}`;
  if (!existsSync(`${base}.json`)) return null;
  const j = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const [wall, user, sys] = readFileSync(`${base}.cpu`, 'utf8').trim().split(' ').map(Number);
  return { modelHash: j.modelHash.slice(0, 12), rooms: j.rooms, samples: j.samples, countExact: round(j.model.all.countAccuracy), floorErrorM: round(j.model.all.floorErrorM), perRoom: j.perRoom, cpuSeconds: round(user + sys, 1), wallSeconds: wall, uptime: readFileSync(`${base}.uptime`, 'utf8').trim().split('\n') };
};
const grid = {};
for (const m of Object.keys(MODELS)) for (const s of SPLITS) for (const r of REALISMS) { const e = read(m, s, r); if (e) ((grid[m] ??= {})[s] ??= {})[r] = e; }
const at = (m, s, r) => grid[m]?.[s]?.[r] ?? null;

/** Change of model m against S on one split and realism, with paired bootstrap intervals over rooms. */
const change = (m, s, r, base = 'S') => {
  const a = at(m, s, r), b = at(base, s, r);
  if (!a || !b) return null;
  const rooms = b.perRoom.map((x) => x.room);
  const byRoom = (e) => new Map(e.perRoom.map((x) => [x.room, x]));
  const ma = byRoom(a), mb = byRoom(b);
  const diff = (idx, key) => pooled(idx.map((i) => ma.get(rooms[i])))[key] - pooled(idx.map((i) => mb.get(rooms[i])))[key];
  return {
    count: round(a.countExact - b.countExact), countInterval: bootstrap(rooms.length, (idx) => diff(idx, 'count')),
    floorM: round(a.floorErrorM - b.floorErrorM), floorIntervalM: bootstrap(rooms.length, (idx) => diff(idx, 'floor')),
  };
};

// The rule (deadband-protocol.md), per candidate and split.
const verdicts = {};
for (const c of ['0.3', '0.4', '0.6']) {
  const v = { splits: {}, failed: null, complete: true };
  for (const s of SPLITS) {
    const none = change(c, s, 'none'), v2 = change(c, s, 'v2');
    const guard = none ? none.count >= -0.01 && none.floorM <= 0.03 : null;
    const gain = v2 ? (v2.count >= 0.005 && v2.floorM <= 0.03) || (v2.floorM <= -0.03 && v2.count >= -0.005) : null;
    v.splits[s] = { none, v2, guardNone: guard, gainV2: gain };
    if (guard === false) v.failed ??= `realism none guard on ${s}`;
    if (gain === false) v.failed ??= `no realism v2 gain on ${s}`;
    if (guard === null || gain === null) v.complete = false;
  }
  v.passes = v.failed === null && v.complete;
  verdicts[c] = v;
}
if (flag === '--alive') process.exit(verdicts[which]?.failed ? 1 : 0);

const mean = (c, key) => (at(c, 'val', 'v2')[key] + at(c, 'val2', 'v2')[key]) / 2;
const passing = Object.entries(verdicts).filter(([, v]) => v.passes).map(([c]) => c)
  .sort((a, b) => (Math.abs(mean(b, 'countExact') - mean(a, 'countExact')) > 0.005 ? mean(b, 'countExact') - mean(a, 'countExact') : mean(a, 'floorErrorM') - mean(b, 'floorErrorM') || Math.abs(a - 0.2) - Math.abs(b - 0.2)));
// Step 2 of the brief: 2.2.0 -> 2.3.0 on each split (S against P).
const shipChange = Object.fromEntries(SPLITS.map((s) => [s, Object.fromEntries(REALISMS.map((r) => [r, change('S', s, r, 'P')]))]));
const strip = (e) => e && { ...e, perRoom: e.perRoom.map((x) => ({ ...x, countExact: round(x.countExact), floorErrorM: round(x.floorErrorM) })) };
const figures = Object.fromEntries(Object.entries(grid).map(([m, bySplit]) => [m, { name: MODELS[m], ...Object.fromEntries(Object.entries(bySplit).map(([s, byR]) => [s, Object.fromEntries(Object.entries(byR).map(([r, e]) => [r, strip(e)]))])) }]));
console.log(JSON.stringify({ protocol: 'deadband-protocol.md', command: 'npx wiflow locate eval --split <val|val2> --realism <none|v2> --per-room --json --model <dir>', verdicts, passing, winner: passing[0] ?? null, shippedAgainst220: shipChange, figures }, null, 1));
