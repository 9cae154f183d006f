// Issue 21 pilot, VALIDATION rooms only: does evidence OVER TIME tell an image lobe from a real
// second person where single estimates do not (ghosts-protocol.md)? A lobe is made by the same
// scatterer as a stronger peak, so over a window its per-link explained energy and its position
// should move with that peak's; a second person moves and fluctuates on their own.
// Replays cached untracked estimates (pilot-ghosts-cache.mjs) through the shipped tracker
// (locator.json 2.2.0) and, after the 5 s warm-up, labels every confirmed track that is not the
// strongest one: "lobe" when it is farther than 1 m from every true person, "real" when it is the
// nearest confirmed track of a true person and within 0.75 m of them (anything else is left out).
// For each such candidate-estimate with at least W seconds of history beside a stronger confirmed
// track (both holding peaks in at least 3/4 of the window's estimates), the over-time cues, taken
// against the stronger track that makes them most lobe-like:
//   energy r      Pearson correlation over time of the two peaks' summed explained energy (log);
//   link r        mean over links of the per-link explained energies' correlation over time;
//   fit R²        how much of the candidate's per-link energy fluctuation one gain times the
//                 stronger peak's explains (C(t,l) − mean ≈ k·(P(t,l) − mean));
//   moves with    correlation of the two tracks' displacement vectors from estimate to estimate;
//   (energy and per-link r also on estimate-to-estimate changes, so a shared slow trend does not count);
// against the single-frame cues on the same candidate-estimates: strength share (the candidate's
// explained energy against the strongest peak's; a lobe is weaker) and per-link cosine with the
// strongest peak; and strength share with per-link r of changes by mean rank (nothing fitted).
// Per cue: AUC (lobe vs real) and the share of lobe-estimates removable while losing at most 5 % of
// real second people's estimates.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-lobes.mjs .ghosts/old-val.json .ghosts/births-val.json
// WINDOWS=1,2,3 sets the windows (seconds); PARENT=strongest compares with the strongest track only;
// --self-check runs the cues on made-up series (a lobe that moves with its parent, an independent walker).
import { readPilotCache } from './pilot-cache-file.mjs';
import { WARM_UP_SECONDS } from '@wiflow/plugin-evaluation';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!files.length && !process.argv.includes('--self-check')) throw new Error('usage: pilot-lobes.mjs <cache.json>... | --self-check');
const windows = (process.env.WINDOWS ?? '1,2,3').split(',').map(Number);
// PARENT=strongest: compare with the strongest confirmed track only (default: every stronger one, the most lobe-like).
const PARENT_STRONGEST = process.env.PARENT === 'strongest';
const LOBE_M = 1, REAL_M = 0.75, COVER = 0.75;

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const mean = (xs) => sum(xs) / Math.max(1, xs.length);
/** Pearson correlation; null when either series is flat. */
function pearson(a, b) {
  const ma = mean(a), mb = mean(b);
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) { ab += (a[i] - ma) * (b[i] - mb); aa += (a[i] - ma) ** 2; bb += (b[i] - mb) ** 2; }
  return aa > 1e-12 && bb > 1e-12 ? ab / Math.sqrt(aa * bb) : null;
}
const cosine = (x, y) => { let xy = 0, xx = 0, yy = 0; x.forEach((v, i) => { xy += v * y[i]; xx += v * v; yy += y[i] * y[i]; }); return xy / Math.max(1e-12, Math.sqrt(xx * yy)); };

/** Over-time cues of candidate c against stronger track p over the paired samples (both with peaks). */
function overTime(c, p) {
  const ce = c.map((s) => Math.log(1e-3 + sum(s.links))), pe = p.map((s) => Math.log(1e-3 + sum(s.links)));
  const energy = pearson(ce, pe);
  // Fluctuations only: estimate-to-estimate changes, so a common slow trend (both nearer a link) does not count.
  const diff = (xs) => xs.slice(1).map((v, i) => v - xs[i]);
  const energyStep = pearson(diff(ce), diff(pe));
  const stepLinks = [];
  const L = c[0].links.length;
  const perLink = [];
  let num = 0, den = 0, tot = 0;
  for (let l = 0; l < L; l++) {
    const cl = c.map((s) => s.links[l]), pl = p.map((s) => s.links[l]);
    const r = pearson(cl, pl);
    if (r !== null) perLink.push(r);
    const rs = pearson(diff(cl), diff(pl));
    if (rs !== null) stepLinks.push(rs);
    const mc = mean(cl), mp = mean(pl);
    cl.forEach((v, i) => { num += (v - mc) * (pl[i] - mp); den += (pl[i] - mp) ** 2; tot += (v - mc) ** 2; });
  }
  // One gain k for every link: the least-squares k, then the share of the candidate's variance it explains.
  const k = den > 1e-12 ? num / den : 0;
  let res = 0;
  for (let l = 0; l < L; l++) {
    const cl = c.map((s) => s.links[l]), pl = p.map((s) => s.links[l]);
    const mc = mean(cl), mp = mean(pl);
    cl.forEach((v, i) => { res += (v - mc - k * (pl[i] - mp)) ** 2; });
  }
  const fit = tot > 1e-12 ? 1 - res / tot : null;
  // Displacements from one paired sample to the next.
  let dd = 0, dc = 0, dp = 0;
  for (let i = 1; i < c.length; i++) {
    const cx = c[i].x - c[i - 1].x, cy = c[i].y - c[i - 1].y, px = p[i].x - p[i - 1].x, py = p[i].y - p[i - 1].y;
    dd += cx * px + cy * py; dc += cx * cx + cy * cy; dp += px * px + py * py;
  }
  const moves = dc > 1e-9 && dp > 1e-9 ? dd / Math.sqrt(dc * dp) : null;
  return { energy, energyStep, link: perLink.length ? mean(perLink) : null, linkStep: stepLinks.length ? mean(stepLinks) : null, fit, moves };
}

/** AUC of score (higher = more lobe-like) for lobes against real people; share of lobes above the real people's 95th percentile. */
function separation(lobes, reals) {
  const l = lobes.filter((v) => v !== null && Number.isFinite(v)), r = reals.filter((v) => v !== null && Number.isFinite(v));
  if (!l.length || !r.length) return { auc: null, removable: null, n: [l.length, r.length] };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const all = [...l.map((v) => [v, 1]), ...r.map((v) => [v, 0])].sort((a, b) => a[0] - b[0]);
  // Mann–Whitney with mid-ranks for ties.
  let rankSum = 0;
  for (let i = 0; i < all.length;) {
    let j = i; while (j < all.length && all[j][0] === all[i][0]) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k][1] === 1) rankSum += rank;
    i = j;
  }
  const auc = (rankSum - l.length * (l.length + 1) / 2) / (l.length * r.length);
  const sr = [...r].sort((a, b) => a - b);
  const cut = sr[Math.min(sr.length - 1, Math.ceil(0.95 * sr.length) - 1)];
  return { auc, removable: l.filter((v) => v > cut).length / l.length, n: [l.length, r.length], medians: [median(l), median(r)] };
}

if (process.argv.includes('--self-check')) {
  // The cues on made-up series, so a weak separation on real caches is not a slip in the arithmetic:
  // a lobe that is 0.3 × its parent (energies and steps) scores near 1; an independent walker near 0.
  let seed = 7; const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const parent = [], lobe = [], other = [];
  for (let i = 0; i < 16; i++) {
    const links = [0, 1, 2].map(() => 2 + 3 * random()), step = [random() - 0.5, random() - 0.5];
    const at = (s, k) => (s.length ? s[s.length - 1] : { x: k, y: k });
    parent.push({ x: at(parent, 1).x + step[0], y: at(parent, 1).y + step[1], links });
    lobe.push({ x: at(lobe, 3).x + step[0], y: at(lobe, 3).y + step[1], links: links.map((v) => 0.3 * v) });
    other.push({ x: at(other, 4).x + random() - 0.5, y: at(other, 4).y + random() - 0.5, links: [0, 1, 2].map(() => 0.6 + random()) });
  }
  const show = (o) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
  console.log(`lobe moving with its parent: ${show(overTime(lobe, parent))}`);
  console.log(`independent person: ${show(overTime(other, parent))}`);
  process.exit(0);
}

const byWindow = new Map(windows.map((w) => [w, { lobe: [], real: [] }]));
let lobeEstimates = 0, realEstimates = 0, hop = [];
/** Lobe-estimates whose track is at least W s old (an over-time rule cannot act earlier, whatever its cue). */
const lobeOldEnough = new Map(windows.map((w) => [w, 0]));
const lobeTracks = new Map(windows.map((w) => [w, new Set()])), realTracks = new Map(windows.map((w) => [w, new Set()]));
for (const file of files) {
  const cache = readPilotCache(file);
  for (const run of cache.runs) {
    if (run.kind === 'empty') continue;
    const tracker = new PeopleTracker(cache.tracker, cache.maxPersons);
    const history = new Map();
    const start = run.estimates[0].t;
    run.estimates.forEach((e, k) => {
      if (k > 0) hop.push((e.t - run.estimates[k - 1].t) / 1000);
      const tracks = tracker.update(e.t / 1000, e.peaks.map(([x, y, presence, aboveNoise]) => ({ x, y, presence, aboveNoise })));
      for (const t of tracks) {
        if (!history.has(t.id)) history.set(t.id, []);
        history.get(t.id).push({ t: e.t, x: t.x, y: t.y, links: t.peak >= 0 ? e.peaks[t.peak].slice(4) : null, confirmed: t.confirmed });
      }
      if (e.t - start < WARM_UP_SECONDS * 1000 || !e.truth.length) return;
      const confirmed = tracks.filter((t) => t.confirmed);
      const rank = (t) => (t.peak < 0 ? Infinity : t.peak);
      const strongest = [...confirmed].sort((a, b) => rank(a) - rank(b))[0];
      const nearestTrack = e.truth.map(([, x, y]) => confirmed.reduce((best, t) => (!best || Math.hypot(t.x - x, t.y - y) < Math.hypot(best.x - x, best.y - y) ? t : best), null));
      for (const c of confirmed) {
        if (c === strongest) continue;
        const d = e.truth.map(([, x, y]) => Math.hypot(c.x - x, c.y - y));
        const label = Math.min(...d) > LOBE_M ? 'lobe' : d.some((v, i) => v <= REAL_M && nearestTrack[i] === c) ? 'real' : null;
        if (!label) continue;
        if (label === 'lobe') lobeEstimates++; else realEstimates++;
        const p = c.peak >= 0 ? e.peaks[c.peak] : null;
        const single = { share: p ? -sum(p.slice(4)) / Math.max(1e-9, sum(e.peaks[0].slice(4))) : null, cosine: p ? cosine(p.slice(4), e.peaks[0].slice(4)) : null };
        for (const w of windows) {
          const from = e.t - w * 1000;
          if (label === 'lobe' && history.get(c.id)[0].t - from <= 300) lobeOldEnough.set(w, lobeOldEnough.get(w) + 1);
          const mine = history.get(c.id).filter((s) => s.t > from);
          const need = Math.ceil(COVER * mine.length);
          if (mine.length < Math.round(w / 0.25) || mine[0].t - from > 300) continue; // at least W s of history
          let best = null;
          for (const o of confirmed) {
            if (o === c || rank(o) >= rank(c) || (PARENT_STRONGEST && o !== strongest)) continue;
            const theirs = new Map(history.get(o.id).filter((s) => s.t > from).map((s) => [s.t, s]));
            const pairs = mine.filter((s) => s.links && theirs.get(s.t)?.links);
            if (pairs.length < need || pairs.length < 4) continue;
            const cues = overTime(pairs, pairs.map((s) => theirs.get(s.t)));
            best = best ?? {};
            for (const [key, v] of Object.entries(cues)) if (v !== null && (best[key] === undefined || v > best[key])) best[key] = v;
          }
          if (!best) continue;
          byWindow.get(w)[label].push({ ...single, ...best });
          (label === 'lobe' ? lobeTracks : realTracks).get(w).add(`${file}|${run.id}|${run.kind}|${c.id}`);
        }
      }
    });
  }
}
const h = [...hop].sort((a, b) => a - b)[Math.floor(hop.length / 2)];
console.log(`Candidate-estimates after warm-up: ${lobeEstimates} lobe, ${realEstimates} real second person (estimate hop ${h.toFixed(2)} s).`);
console.log(`Lobe-estimates whose track is at least W s old: ${windows.map((w) => `${w} s ${(100 * lobeOldEnough.get(w) / Math.max(1, lobeEstimates)).toFixed(0)} %`).join(', ')} (an over-time rule cannot act on the rest).`);
console.log('');
console.log('| window s | lobe / real estimates with the window (tracks) | cue | median lobe / real | AUC | lobes removable at ≤ 5 % real lost |');
console.log('|---|---|---|---|---|---|');
const names = { share: 'strength share (single frame, lower = lobe)', cosine: 'per-link cosine (single frame)', energy: 'energy r over time', energyStep: 'energy r of estimate-to-estimate changes', link: 'per-link r over time', linkStep: 'per-link r of changes', fit: 'fit R² from the stronger peak', moves: 'moves with (displacement r)', combined: 'strength share and per-link r of changes, mean rank' };
const out = {};
for (const [w, { lobe, real }] of byWindow) {
  out[w] = {};
  // Strength share and per-link r of changes together, without fitting: the mean of each cue's rank among the window's candidates.
  const both = [...lobe, ...real];
  const rankOf = (key) => { const v = both.map((x) => x[key] ?? -Infinity); const sorted = [...v].sort((a, b) => a - b); return v.map((z) => sorted.indexOf(z) / v.length); };
  const ra = rankOf('share'), rb = rankOf('linkStep');
  both.forEach((x, i) => { x.combined = (ra[i] + rb[i]) / 2; });
  for (const [key, name] of Object.entries(names)) {
    const s = separation(lobe.map((x) => x[key] ?? null), real.map((x) => x[key] ?? null));
    out[w][key] = s;
    console.log(`| ${w} | ${lobe.length} (${lobeTracks.get(w).size}) / ${real.length} (${realTracks.get(w).size}) | ${name} | ${s.medians ? s.medians.map((v) => (key === 'share' ? -v : v).toFixed(2)).join(' / ') : '—'} | ${s.auc === null ? '—' : s.auc.toFixed(2)} | ${s.removable === null ? '—' : `${(100 * s.removable).toFixed(0)} %`} |`);
  }
}
if (process.argv.includes('--json')) console.log(JSON.stringify({ lobeEstimates, realEstimates, out }));
