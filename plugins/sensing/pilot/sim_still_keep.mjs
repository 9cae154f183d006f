// Pilot (not shipped): does a faint breathing line (spectrum peak-to-median below the 4 a rate needs) keep a
// still person present past the 300-s hold, without more presence in empty rooms or after leaving? Validation
// rooms only. It replays the presence rules per link over dumps of pilot/sim_false_presence.mjs made with an
// endless hold (so every second's raw evidence is there) and fuses links per room as `combineRoomSecond` does.
// Run from the repository root after a build:
//   for k in still leave empty; do CONFIG='{"presenceHoldSeconds":100000}' node plugins/sensing/pilot/sim_false_presence.mjs 6 600 $k > /tmp/$k.jsonl; done
//   node plugins/sensing/pilot/sim_still_keep.mjs /tmp
// The replay of the shipped rules (no faint keep) gives exactly the links' own present seconds of a default run.
import fs from 'node:fs';
const load = (k) => fs.existsSync(`${dir}/${k}.jsonl`) ? fs.readFileSync(`${dir}/${k}.jsonl`, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const dir = process.argv[2] ?? '/tmp';
const kinds = ['still', 'leave', 'empty'];
const data = Object.fromEntries(kinds.map((k) => [k, load(k)]));
// per kind: room -> link -> rows by second
const group = (rows) => { const m = new Map(); for (const r of rows) { const R = m.get(r.room) ?? new Map(); m.set(r.room, R); const L = R.get(r.link) ?? []; R.set(r.link, L); L[r.s] = r; } return m; };
function latch(rows, rule) {
  const out = []; const mov = []; const br = []; let present = false; let last = -Infinity; let lastKeep = -Infinity;
  for (let s = 0; s < rows.length; s++) {
    const r = rows[s]; if (!r) { out[s] = present; continue; }
    const moving = r.mo >= 0.5;
    const breathing = r.b !== null || r.r === 'empty';
    const weak = rule.keepQ != null && r.eq != null && r.eq >= rule.keepQ && !r.edge;
    mov.push(moving ? 1 : 0); br.push(breathing ? 1 : 0);
    const recent = mov.slice(-10).reduce((a, b) => a + b, 0); const breathed = br.slice(-30).reduce((a, b) => a + b, 0);
    if (moving) last = s;
    if (present && (weak || breathing)) lastKeep = s;
    let basis = 'none';
    if (moving && recent >= 3) basis = 'entry';
    else if (present && moving) basis = 'moving';
    else if (breathing && (present || breathed >= 20)) basis = 'breathing';
    else if (present && s - last <= rule.hold) basis = 'hold';
    else if (present && rule.keepQ != null && s - lastKeep <= (rule.keepHold ?? 0)) basis = 'keep';
    present = basis !== 'none'; out[s] = present;
  }
  return out;
}
function roomSeries(R, rule) { const per = [...R.values()].map((rows) => latch(rows, rule)); const n = Math.max(...per.map((p) => p.length)); return Array.from({ length: n }, (_, s) => per.some((p) => p[s])); }
function score(rule) {
  const res = {};
  let tot = 0, found = 0; const miss = [];
  for (const [room, R] of group(data.still)) { const p = roomSeries(R, rule); let m = 0; for (let s = 10; s < p.length; s++) { tot++; if (p[s]) found++; else m++; } if (m) miss.push(`${room}:${m}`); }
  res.recall = (found / tot).toFixed(3) + ` (${miss.join(' ')})`;
  let ep = 0, es = 0;
  for (const [room, R] of group(data.empty)) { const p = roomSeries(R, rule); let was = false; for (let s = 10; s < p.length; s++) { es++; if (p[s] && !was) ep++; was = p[s]; } }
  res.fpd = (ep / es * 86400).toFixed(1) + ` (${ep} ep)`;
  const after = [];
  for (const [room, R] of group(data.leave)) { const rows = [...R.values()][0]; const left = rows.findLastIndex((r) => r && r.person) + 1; const p = roomSeries(R, rule); after.push(p.filter((x, s) => s >= left + 5 && x).length); }
  after.sort((a, b) => a - b); res.after = after.join(',');
  return res;
}
const rules = [{ hold: 300 }, ...[2, 2.5, 3, 3.5].flatMap((q) => [60, 120].map((kh) => ({ hold: 300, keepQ: q, keepHold: kh })))];
for (const r of rules) console.log(JSON.stringify(r), JSON.stringify(score(r)));
// distributions of eq
const pct = (a, ps) => { a = a.filter((x) => x != null).sort((x, y) => x - y); return a.length + ': ' + ps.map((p) => a[Math.floor(p * (a.length - 1))]?.toFixed(2)).join(' '); };
const st = data.still.filter((r) => r.person && r.st !== 'moving' && r.s > 40);
console.log('still eq', pct(st.map((r) => r.eq), [0.1, 0.25, 0.5, 0.75, 0.9]));
const lv = data.leave.filter((r) => !r.person && r.s > 100);
console.log('left eq', pct(lv.map((r) => r.eq), [0.1, 0.25, 0.5, 0.75, 0.9]));
console.log('empty eq', pct(data.empty.map((r) => r.eq), [0.1, 0.25, 0.5, 0.75, 0.9]));
