// Issue 21 breathing pilot, VALIDATION rooms only (FINDINGS.md, "Breathing at the peak"): does the
// change at a confirmed track's peak over seconds carry breathing (0.1–0.45 Hz) for a still person
// and not for the phantoms of a fan, a cat, a door or drift? Replays pilot-distract-cache.mjs caches
// through the shipped tracker (locator.json's settings), follows every track's peak per estimate
// (the change it explains on each link, in noise energies; an estimate where the track has no peak
// holds the last value), and over the last W s of each track's life (W = 20 primary, 12 secondary)
// applies the sensing's own breathing estimator (`breathingSpectrumPeak` of @wiflow/plugin-sensing,
// 6–27 bpm) to the explained sum (one channel) and to the links (one channel each). Groups: a true
// person within 1 m for most of the window, "still" when standing, sitting or lying in ≥ 80 % of it;
// phantoms of the installer rooms by the distractor within 1 m (else "far"), and drift. Prints the
// distributions of the estimator's quality (peak over median) and the AUC of still people against
// phantoms (all, and each kind). Tracks living less than W s get no measure: counted apart.
// MODE=track: over the last W s of the track's own peaks (above); the default, POSITION mode: the W s
// before confirmation at the confirmed position (positionWindowsOf). The pilot's question is answered
// by the primary measure, declared before the 60 s people cache was read: position mode, W = 20 s,
// the links' quality; still people against all phantoms, AUC ≥ 0.8 separates (the brief's bar).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-breathing.mjs <people cache> <installer cache> [--json out]
import { writeFileSync } from 'node:fs';
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';
import { STILL, quantile, positionWindowsOf, groupOf, auc, isStill, isPhantom } from './pilot-breathing-windows.mjs';
import { breathingSpectrumPeak } from '@wiflow/plugin-sensing';

const [peopleFile, installerFile, flag, jsonOut] = process.argv.slice(2);
const caches = [readPilotCache(peopleFile), readPilotCache(installerFile)];
const runs = [...caches[0].runs.filter((r) => r.kind === 'people').map((r) => ({ ...r, cache: caches[0] })), ...caches[1].runs.filter((r) => r.kind !== 'people').map((r) => ({ ...r, cache: caches[1] }))];
const BAND = [6, 27]; // bpm: 0.1–0.45 Hz
const WINDOWS = [20, 12];
const MAX_W = Math.max(...WINDOWS);
const MODE = process.env.MODE === 'track' ? 'track' : 'position';
const f2 = (v) => (v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(2));

/** TRACK mode: every track that was ever confirmed: its samples (time, per-link explained or null, position, what is near). */
function tracksOf(run) {
  const tracker = new PeopleTracker(run.cache.tracker, run.cache.maxPersons);
  const life = new Map();
  for (const e of run.estimates) {
    for (const t of tracker.update(e.t / 1000, e.peaks.map(measurement))) {
      const l = life.get(t.id) ?? { id: t.id, confirmed: false, samples: [] };
      life.set(t.id, l);
      l.confirmed ||= t.confirmed;
      const person = e.truth.map(([id, x, y, activity]) => ({ id, activity, d: Math.hypot(x - t.x, y - t.y) })).sort((a, b) => a.d - b.d)[0];
      const distractor = e.distractors.map(([id, kind, x, y]) => ({ kind, d: Math.hypot(x - t.x, y - t.y) })).sort((a, b) => a.d - b.d)[0];
      l.samples.push({ t: e.t / 1000, links: t.peak >= 0 ? e.peaks[t.peak].slice(5) : null, person: person && person.d <= 1 ? person : null, distractor: distractor && distractor.d <= 1 ? distractor.kind : null });
    }
  }
  return [...life.values()].filter((l) => l.confirmed);
}

/** The breathing estimator on the last `w` s of a track: on the explained sum, and on its links. */
function breathing(samples, w, start = samples[0].t) {
  const end = samples.at(-1).t;
  if (end - start < w) return null;
  const win = samples.filter((s) => s.t > end - w);
  const rate = (win.length - 1) / (win.at(-1).t - win[0].t);
  const nLinks = samples.find((s) => s.links)?.links.length ?? 0;
  const links = Array.from({ length: nLinks }, () => new Float64Array(win.length));
  const sum = new Float64Array(win.length);
  let last = new Array(nLinks).fill(0);
  win.forEach((s, i) => { if (s.links) last = s.links; last.forEach((v, k) => { links[k][i] = v; sum[i] += v; }); });
  const one = breathingSpectrumPeak([sum], win.length, rate, BAND[0], BAND[1]);
  const many = breathingSpectrumPeak(links, win.length, rate, BAND[0], BAND[1]);
  return { samples: win.length, rate, explained: sum.reduce((a, v) => a + v, 0) / win.length, held: win.filter((s) => !s.links).length / win.length, sumQuality: one?.quality ?? null, sumBpm: one?.bpm ?? null, sumEdge: one?.edge ?? null, linksQuality: many?.quality ?? null, linksGated: many && !many.edge && !many.comb ? many.quality : 0, group: null };
}

const rows = [];
const short = new Map();
const started = process.cpuUsage();
for (const run of runs) for (const l of MODE === 'track' ? tracksOf(run) : positionWindowsOf(run, MAX_W)) for (const w of WINDOWS) {
  const b = breathing(l.samples, w, MODE === 'track' ? l.samples[0].t : l.start);
  const group = groupOf(run.kind, b ? l.samples.filter((s) => s.t > l.samples.at(-1).t - w) : l.samples);
  if (!b) { const k = `${w}|${group}`; short.set(k, (short.get(k) ?? 0) + 1); continue; }
  rows.push({ run: `${run.kind} ${run.id}`, track: l.id, w, ...b, group });
}
const out = { mode: MODE, sources: caches.map((c) => c.source), band: BAND, windows: {} };
for (const w of WINDOWS) {
  const r = rows.filter((x) => x.w === w);
  const groups = [...new Set([...r.map((x) => x.group), ...[...short.keys()].filter((k) => k.startsWith(`${w}|`)).map((k) => k.split('|')[1])])].sort();
  console.log(`\n${MODE} mode, W = ${w} s (${MODE === 'track' ? `last ${w} s of each confirmed track` : `${w} s up to each track's confirmation, at its position`}; quality = the in-band spectrum's peak over median)`);
  console.log('| group | tracks with ≥ W s | shorter | sum: quality p10 / p50 / p90 | links: quality p10 / p50 / p90 | bpm p50 | at the band edge | held (no peak) p50 | explained, window mean p50 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const table = {};
  for (const g of groups) {
    const x = r.filter((y) => y.group === g);
    const q = (k, p) => f2(quantile(x.map((y) => y[k]).filter((v) => v !== null), p));
    const n = short.get(`${w}|${g}`) ?? 0;
    table[g] = { tracks: x.length, shorter: n, sumQuality: [0.1, 0.5, 0.9].map((p) => quantile(x.map((y) => y.sumQuality).filter((v) => v !== null), p)), linksQuality: [0.1, 0.5, 0.9].map((p) => quantile(x.map((y) => y.linksQuality).filter((v) => v !== null), p)) };
    console.log(`| ${g} | ${x.length} | ${n} | ${q('sumQuality', 0.1)} / ${q('sumQuality', 0.5)} / ${q('sumQuality', 0.9)} | ${q('linksQuality', 0.1)} / ${q('linksQuality', 0.5)} / ${q('linksQuality', 0.9)} | ${q('sumBpm', 0.5)} | ${x.length ? Math.round((100 * x.filter((y) => y.sumEdge).length) / x.length) : '—'} % | ${q('held', 0.5)} | ${q('explained', 0.5)} |`);
  }
  const still = r.filter((x) => isStill(x.group));
  const kinds = { 'all phantoms': (g) => isPhantom(g), drift: (g) => g === 'drift', 'near fan': (g) => g === 'near fan', 'near the cat': (g) => g === 'near pet', 'near door': (g) => g === 'near door', 'far from fan, cat, door': (g) => g.startsWith('far from') };
  const aucs = {};
  const strong = still.filter((x) => x.explained >= 5), weak = still.filter((x) => x.explained < 5);
  console.log(`\nstill people, links' quality p50: window mean explained ≥ 5 noise energies ${f2(quantile(strong.map((x) => x.linksQuality ?? 0), 0.5))} (${strong.length}), < 5 ${f2(quantile(weak.map((x) => x.linksQuality ?? 0), 0.5))} (${weak.length})`);
  console.log(`\n| still people (${still.length}) against | tracks | AUC, sum's quality | AUC, links' quality (primary) | AUC, links' quality, 0 at the band's edge or a comb |`);
  console.log('|---|---|---|---|---|');
  for (const [name, test] of Object.entries(kinds)) {
    const neg = r.filter((x) => test(x.group));
    const a = ['sumQuality', 'linksQuality', 'linksGated'].map((k) => auc(still.map((x) => x[k] ?? 0), neg.map((x) => x[k] ?? 0)));
    aucs[name] = { tracks: neg.length, sum: a[0], links: a[1], linksGated: a[2] };
    console.log(`| ${name} | ${neg.length} | ${f2(a[0])} | ${f2(a[1])} | ${f2(a[2])} |`);
  }
  out.windows[w] = { table, aucs };
}
const cpu = process.cpuUsage(started);
out.cpuSeconds = Math.round((cpu.user + cpu.system) / 1e5) / 10;
console.log(`\n${out.cpuSeconds} CPU-s`);
if (flag === '--json' && jsonOut) writeFileSync(jsonOut, `${JSON.stringify(out, null, 1)}\n`);
