// Issue 21 distract pilot, VALIDATION rooms only (distract-protocol.md): why is each phantom of the
// installer's conditions born, and how does the same evidence look for true people (walking and
// still)? Replays a pilot-distract-cache.mjs cache through the shipped tracker (locator.json's
// settings, or TRACKER='{"…": …}' merged over them) and, per confirmed track, prints the evidence of
// its peaks from birth to confirmation and over its first 3 s shown: the count head's presence, the
// change left against the noise floor (aboveNoise, ln), what it explains on its links (sum, links
// with ≥ 1 noise energy), the room's packet spectrum (DC and the rest: motion content), how far it
// moves from its birth point, and what is near it (a distractor, or the true person it stands on).
// BY_ACTIVITY=1 splits still people by activity (standing, sitting, lying).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-distract.mjs /tmp/distract/val.json [--tracks]
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const [file, flag] = process.argv.slice(2);
const cache = readPilotCache(file);
const settings = { ...cache.tracker, ...(process.env.TRACKER ? JSON.parse(process.env.TRACKER) : {}) };
const quantile = (xs, q) => { if (!xs.length) return null; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const f2 = (v) => (v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(2));
export { measurement };
const STILL = new Set(['standing', 'sitting', 'lying']);

/** Every confirmed track of a run: its evidence up to confirmation and over its first 3 s shown, and what is near it. */
function tracksOf(run) {
  const tracker = new PeopleTracker(settings, cache.maxPersons);
  const life = new Map();
  const t0 = run.estimates[0].t;
  for (const e of run.estimates) {
    const tracks = tracker.update(e.t / 1000, e.peaks.map(measurement));
    for (const t of tracks) {
      const peak = t.peak >= 0 ? e.peaks[t.peak] : null;
      const l = life.get(t.id) ?? { id: t.id, born: (e.t - t0) / 1000, x0: t.x, y0: t.y, samples: [], confirmedAt: null, shownTo: null, confirmX: null, confirmY: null, maxMove: 0 };
      life.set(t.id, l);
      if (t.confirmed && l.confirmedAt === null) { l.confirmedAt = (e.t - t0) / 1000; l.confirmX = t.x; l.confirmY = t.y; l.truth = e.truth; l.distractors = e.distractors; }
      if (t.confirmed) l.shownTo = (e.t - t0) / 1000;
      const shownFor = l.confirmedAt === null ? 0 : (e.t - t0) / 1000 - l.confirmedAt;
      if (l.confirmedAt !== null) l.maxMove = Math.max(l.maxMove, Math.hypot(t.x - l.confirmX, t.y - l.confirmY));
      if (peak && shownFor <= 3) l.samples.push({ presence: peak[2], aboveNoise: peak[3], explained: peak.slice(5).reduce((a, b) => a + b, 0), links: peak.slice(5).filter((v) => v >= 1).length, dc: e.features[13], motion: Math.log(e.features.slice(14).reduce((a, v) => a + Math.exp(v), 0)) });
    }
  }
  return [...life.values()].filter((l) => l.confirmedAt !== null);
}

/** What a confirmed track stands near when confirmed: the true person within 1 m (with activity), else the nearest distractor. */
function near(l, kind) {
  const person = (l.truth ?? []).map(([id, x, y, activity]) => ({ id, activity, d: Math.hypot(x - l.confirmX, y - l.confirmY) })).sort((a, b) => a.d - b.d)[0];
  if (person && person.d <= 1) return { group: STILL.has(person.activity) && process.env.BY_ACTIVITY !== '1' ? 'person still' : `person ${person.activity}`, d: person.d };
  if (kind === 'people') return { group: 'extra (people room)', d: person?.d ?? null };
  if (kind === 'drift') return { group: 'drift', d: null };
  const d = (l.distractors ?? []).map(([id, dk, x, y, active]) => ({ kind: dk, active, d: Math.hypot(x - l.confirmX, y - l.confirmY) })).sort((a, b) => a.d - b.d)[0];
  return d && d.d <= 1 ? { group: `near ${d.kind}`, d: d.d, active: d.active } : { group: 'fan-cat-door, > 1 m from all', d: d?.d ?? null };
}

const groups = new Map();
const lines = [];
for (const run of cache.runs) {
  for (const l of tracksOf(run)) {
    const where = near(l, run.kind);
    const mean = (k) => l.samples.length ? l.samples.reduce((a, s) => a + s[k], 0) / l.samples.length : NaN;
    const row = { run: `${run.kind} ${run.id}`, id: l.id, group: where.group, distanceM: where.d, born: l.born, confirmed: l.confirmedAt, shown: l.shownTo - l.confirmedAt, move: l.maxMove, presence: mean('presence'), aboveNoise: mean('aboveNoise'), explained: mean('explained'), links: mean('links'), dc: mean('dc'), motion: mean('motion') };
    lines.push(row);
    const g = groups.get(where.group) ?? [];
    g.push(row); groups.set(where.group, g);
  }
}
if (flag === '--tracks') for (const r of lines) console.log(`${r.run} #${r.id} ${r.group} d=${f2(r.distanceM)} born ${f2(r.born)} s conf ${f2(r.confirmed)} s shown ${f2(r.shown)} s move ${f2(r.move)} m | presence ${f2(r.presence)} aboveNoise ${f2(r.aboveNoise)} explained ${f2(r.explained)} links ${f2(r.links)} spectrum DC ${f2(r.dc)} motion ${f2(r.motion)}`);
const hours = (kind) => cache.runs.filter((r) => r.kind === kind).reduce((a, r) => a + (r.estimates.at(-1).t - r.estimates[0].t) / 3.6e6, 0);
console.log(`settings ${JSON.stringify(settings)}`);
for (const kind of ['fan-cat-door', 'drift']) { const n = lines.filter((r) => r.run.startsWith(kind)).length; console.log(`${kind}: ${n} phantoms in ${f2(hours(kind) * 3600)} s = ${f2(n / hours(kind))} per hour`); }
console.log('\n| group | tracks | presence p10 / p50 | aboveNoise p10 / p50 / p90 | explained p10 / p50 | links p50 | spectrum DC p50 | motion p10 / p50 / p90 | moves (m) p50 / p90 | shown (s) p50 |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [g, rows] of [...groups.entries()].sort()) {
  const q = (k, p) => f2(quantile(rows.map((r) => r[k]).filter((v) => !Number.isNaN(v)), p));
  console.log(`| ${g} | ${rows.length} | ${q('presence', 0.1)} / ${q('presence', 0.5)} | ${q('aboveNoise', 0.1)} / ${q('aboveNoise', 0.5)} / ${q('aboveNoise', 0.9)} | ${q('explained', 0.1)} / ${q('explained', 0.5)} | ${q('links', 0.5)} | ${q('dc', 0.5)} | ${q('motion', 0.1)} / ${q('motion', 0.5)} / ${q('motion', 0.9)} | ${q('move', 0.5)} / ${q('move', 0.9)} | ${q('shown', 0.5)} |`);
}

// Share of each group's tracks whose birth evidence (mean over birth … 3 s shown) reaches a threshold.
const THRESHOLDS = { explained: [1, 2, 3, 5], aboveNoise: [0.5, 1, 1.5, 2], links: [0.5, 1], presence: [0.7, 0.9] };
console.log(`\n| group | ${Object.entries(THRESHOLDS).flatMap(([k, ts]) => ts.map((t) => `${k} ≥ ${t}`)).join(' | ')} |`);
console.log(`|---|${Object.values(THRESHOLDS).flat().map(() => '---').join('|')}|`);
for (const [g, rows] of [...groups.entries()].sort()) console.log(`| ${g} (${rows.length}) | ${Object.entries(THRESHOLDS).flatMap(([k, ts]) => ts.map((t) => `${Math.round((100 * rows.filter((r) => r[k] >= t).length) / rows.length)} %`)).join(' | ')} |`);
