// Per true visitor of shop-visit-pilot.mjs's record: which ids were near them (1 m, one-to-one per
// estimate, nearest first), when each was shown against when they entered, how long it was shown, its
// evidence while held, and, for each visitor lost with the gate on, why: never shown, shown too late
// (held so long that under retail's 10 s minimum visit was left) or split into short ids.
//   node plugins/evaluation/pilot/shop-visit-report.mjs <pilot.json> [--timeline]
import { readFileSync } from 'node:fs';

const [file, flag] = process.argv.slice(2);
const record = JSON.parse(readFileSync(file, 'utf8'));
const NEAR_M = 1;
const MIN_VISIT_S = 10;
const r1 = (v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);
const r2 = (v) => (v === null || v === undefined ? null : Math.round(v * 100) / 100);
const mean = (xs) => (xs.length ? xs.reduce((a, v) => a + v, 0) / xs.length : null);

/** One-to-one matches (truth id → index into persons) within NEAR_M, nearest pair first. */
function match(truth, persons) {
  const pairs = [];
  for (const [id, x, y] of truth) persons.forEach((p, j) => { const d = Math.hypot(p[1] - x, p[2] - y); if (d <= NEAR_M) pairs.push([d, id, j]); });
  pairs.sort((a, b) => a[0] - b[0]);
  const out = new Map(), used = new Set();
  for (const [, id, j] of pairs) if (!out.has(id) && !used.has(j)) { out.set(id, j); used.add(j); }
  return out;
}

const branches = Object.keys(record.branches);
const visitors = [];
for (const shop of record.shops) {
  const ids = new Set(shop.estimates.flatMap((e) => e.truth.map((t) => t[0])));
  for (const id of ids) {
    const v = { shop: shop.seed, id, enter: null, leave: null, located: [], branch: Object.fromEntries(branches.map((b) => [b, []])) };
    for (const e of shop.estimates) {
      if (!e.truth.some((t) => t[0] === id)) continue;
      v.enter ??= e.t;
      v.leave = e.t;
      const l = match(e.truth, e.located).get(id);
      v.located.push({ t: e.t, id: l === undefined ? null : e.located[l][0], evidence: l === undefined ? null : e.located[l][3] });
      for (const b of branches) {
        const j = e[b] ? match(e.truth, e[b]).get(id) : undefined;
        v.branch[b].push({ t: e.t, id: j === undefined ? null : e[b][j][0], status: j === undefined ? null : e[b][j][3] });
      }
    }
    visitors.push(v);
  }
}

/** Per track id near the visitor in one branch: first near, first and last shown near, span shown. */
function idsNear(samples) {
  const byId = new Map();
  for (const s of samples) {
    if (s.id === null) continue;
    let x = byId.get(s.id);
    if (!x) byId.set(s.id, (x = { id: s.id, firstNear: s.t, firstShown: null, lastShown: null }));
    if (s.status !== 'tentative' && s.status !== 'ended') { x.firstShown ??= s.t; x.lastShown = s.t; }
  }
  return [...byId.values()].map((x) => ({ ...x, shownS: x.firstShown === null ? 0 : r1(x.lastShown - x.firstShown) }));
}

const rows = [];
for (const v of visitors) {
  const row = { shop: v.shop, visitor: v.id, enter: v.enter, visitS: r1(v.leave - v.enter), locatedNearShare: r2(v.located.filter((s) => s.id !== null).length / v.located.length) };
  for (const b of branches) {
    const near = idsNear(v.branch[b]);
    const shown = near.filter((x) => x.firstShown !== null);
    const longest = shown.reduce((m, x) => Math.max(m, x.shownS), 0);
    row[b] = {
      counted: longest >= MIN_VISIT_S,
      ids: near.length,
      idsShown: shown.length,
      firstShownAfterEnterS: shown.length ? r1(Math.min(...shown.map((x) => x.firstShown)) - v.enter) : null,
      longestShownS: longest,
      // What a visit counted from each id's first held second would have lasted (firstNear → lastShown).
      longestFromFirstNearS: shown.reduce((m, x) => Math.max(m, r1(x.lastShown - x.firstNear)), 0),
      shownSumS: r1(shown.reduce((s, x) => s + x.shownS, 0)),
    };
  }
  if (row.on) {
    const heldTimes = new Set(v.branch.on.filter((s) => s.status === 'tentative').map((s) => s.t));
    const held = v.located.filter((s) => heldTimes.has(s.t)).map((s) => s.evidence ?? 0);
    const firstTen = v.located.filter((s) => s.t - v.enter < 10).map((s) => s.evidence ?? 0);
    row.evidence = { whileHeld: r2(mean(held)), heldS: r1(held.length / 4), first10s: r2(mean(firstTen)), wholeVisit: r2(mean(v.located.map((s) => s.evidence ?? 0))) };
    const on = row.on, off = row.off;
    row.lostWithGate = off.counted && !on.counted;
    row.cause = on.counted ? null
      : !off.counted ? 'not counted with the gate off either'
      : on.idsShown === 0 ? 'never shown'
      : on.longestFromFirstNearS >= MIN_VISIT_S ? 'shown too late'
      : on.idsShown >= 2 && on.shownSumS >= MIN_VISIT_S ? 'split'
      : 'shown, but under 10 s however counted';
  }
  rows.push(row);
}

const summary = {
  split: record.split, seeds: record.seeds, seconds: record.seconds, branches: record.branches,
  cpuSeconds: record.cpuSeconds, wallSeconds: record.wallSeconds, load: record.load,
  retailVisitors: Object.fromEntries(branches.map((b) => [b, record.shops.reduce((s, x) => s + x.retail[b], 0)])),
  retailPerShop: record.shops.map((s) => ({ seed: s.seed, ...s.retail })),
  trueVisitors: visitors.length,
  countedByProxy: Object.fromEntries(branches.map((b) => [b, rows.filter((r) => r[b].counted).length])),
  causesWithGate: rows.filter((r) => r.cause).reduce((m, r) => ({ ...m, [r.cause]: (m[r.cause] ?? 0) + 1 }), {}),
  lostWithGate: rows.filter((r) => r.lostWithGate).map((r) => `${r.shop}/${r.visitor}: ${r.cause}`),
  visitors: rows,
};
console.log(JSON.stringify(summary, null, 1));
if (flag === '--timeline') {
  for (const v of visitors) {
    process.stderr.write(`\nshop ${v.shop} visitor ${v.id} (enter ${v.enter} s)\n`);
    for (let i = 0; i < v.located.length; i += 4) {
      const l = v.located[i];
      process.stderr.write(`  ${l.t} located ${l.id ?? '-'} ev ${l.evidence ?? '-'} | ${branches.map((b) => `${b} ${v.branch[b][i].id ?? '-'}:${v.branch[b][i].status ?? '-'}`).join(' | ')}\n`);
    }
  }
}
