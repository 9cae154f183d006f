// Pilot (not shipped): applies pilot/refloor-protocol.md's rule to the per-room records of refloor_candidates.mjs.
//   node plugins/sensing/pilot/refloor_choose.mjs /tmp/refloor-pilot
import { existsSync, readFileSync } from 'node:fs';

const dir = process.argv[2] ?? '/tmp/refloor-pilot';
const DAY = 86_400;
const load = (name) => (existsSync(`${dir}/${name}.json`) ? JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')) : null);
const base = load('base');
const sum = (rooms, k) => rooms.reduce((s, r) => s + r[k], 0);
const median = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const figures = (rooms) => ({
  recall: sum(rooms, 'stillFound') / sum(rooms, 'stillSeconds'),
  perDay: (sum(rooms, 'episodes') / sum(rooms, 'emptySeconds')) * DAY,
  walkIn: sum(rooms, 'walkFound') / sum(rooms, 'walkSeconds'),
  leadPerDay: (sum(rooms, 'leadEpisodes') / sum(rooms, 'leadSeconds')) * DAY,
  afterLeaving: median(rooms.map((r) => r.afterLeaving)),
});
// Paired bootstrap over rooms: 2,000 draws, mulberry32 seeded 6.
let state = 6;
const random = () => { state = (state + 0x6d2b79f5) | 0; let t = Math.imul(state ^ (state >>> 15), 1 | state); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const n = base.perRoom.length;
const draws = Array.from({ length: 2000 }, () => Array.from({ length: n }, () => Math.floor(random() * n)));
const interval = (values) => { const s = [...values].sort((a, b) => a - b); return [s[Math.floor(0.025 * s.length)], s[Math.ceil(0.975 * s.length) - 1]]; };
const f = (v, d = 3) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(d));
const b = figures(base.perRoom);
const bootB = draws.map((d) => figures(d.map((i) => base.perRoom[i])));
console.log(`base (no reference): recall ${f(b.recall)} [${interval(bootB.map((x) => x.recall)).map((v) => f(v)).join('-')}], false presence ${f(b.perDay, 1)}/day [${interval(bootB.map((x) => x.perDay)).map((v) => f(v, 1)).join('-')}], walk-in ${f(b.walkIn)}, lead-in ${f(b.leadPerDay, 1)}/day, after leaving ${b.afterLeaving} s; ${base.wallS} s wall, ${base.cpuS} s CPU`);
const passing = [];
for (const name of ['A', 'B', 'C', 'D', 'E']) {
  const c = load(name);
  if (!c) continue;
  const x = figures(c.perRoom);
  const diffs = draws.map((d) => { const fc = figures(d.map((i) => c.perRoom[i])); const fb = figures(d.map((i) => base.perRoom[i])); return { recall: fc.recall - fb.recall, perDay: fc.perDay - fb.perDay }; });
  const dRecall = interval(diffs.map((d) => d.recall));
  const dPerDay = interval(diffs.map((d) => d.perDay));
  const checks = {
    'false presence falls (point)': x.perDay < b.perDay,
    'false presence diff 95 % upper < 0': dPerDay[1] < 0,
    'recall diff ≥ -0.005 (point)': x.recall - b.recall >= -0.005,
    'recall diff 95 % lower ≥ -0.02': dRecall[0] >= -0.02,
    'walk-in recall diff ≥ -0.01': x.walkIn - b.walkIn >= -0.01,
    'after leaving ≤ base + 30 s': x.afterLeaving <= b.afterLeaving + 30,
  };
  const pass = Object.values(checks).every(Boolean);
  if (pass) passing.push({ name, x, changed: Object.keys(c.config).length });
  console.log(`${name} ${JSON.stringify(c.config)}: recall ${f(x.recall)} (diff ${f(x.recall - b.recall)} [${dRecall.map((v) => f(v)).join(', ')}]), false presence ${f(x.perDay, 1)}/day (diff ${f(x.perDay - b.perDay, 1)} [${dPerDay.map((v) => f(v, 1)).join(', ')}]), walk-in ${f(x.walkIn)}, lead-in ${f(x.leadPerDay, 1)}/day, after leaving ${x.afterLeaving} s; ${c.wallS} s wall, ${c.cpuS} s CPU: ${pass ? 'passes' : `fails ${Object.entries(checks).filter(([, v]) => !v).map(([k]) => k).join('; ')}`}`);
}
passing.sort((p, q) => p.x.perDay - q.x.perDay || q.x.recall - p.x.recall || p.changed - q.changed);
console.log(passing.length ? `choice: ${passing[0].name}` : 'choice: none (nothing ships)');
