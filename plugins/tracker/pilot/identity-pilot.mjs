// Pilot of issue 21's "one id per person": where the end-to-end IDF1 and the extra shop visitors
// come from, on VALIDATION scenes only (identity-cache.mjs). Replays the cached input of the
// estimator's people tracker through it, then tracker.track (following its ids, as shipped) and
// retail.analytics, scored as `wiflow eval-e2e` scores (IDF1 / MOTA at 0.5 m over every frame;
// visitors against the simulator's visits).
// Run from the repository root after a build:
//   node plugins/tracker/pilot/identity-pilot.mjs <cache.json> [variant ...]
// Variants (settings of the estimator's tracker, tracker.track and retail.analytics, as JSON) are
// read from VARIANTS (a JSON file of [{name, people, track, retail, reclaim, estimatorIds}]); the
// protocol's files spell out the settings before its outcome (handover off, 3 s minimum visit).
// Without VARIANTS: before and after that outcome.
import { readFileSync } from 'node:fs';
import { readPilotCache } from '../../pose-tfjs/models/wiflow-locate-v2/pilot-cache-file.mjs';
import { MultiPersonTracker, scoreTracking, combineScores, assignGated } from '@wiflow/plugin-tracker';
import { computeRetailMetrics } from '@wiflow/plugin-retail';
import { trueVisits } from '@wiflow/plugin-evaluation';
import { PeopleTracker } from '../../pose-tfjs/dist/locate/people-tracker.js';

const cache = readPilotCache(process.argv[2]);
const variants = process.env.VARIANTS ? JSON.parse(readFileSync(process.env.VARIANTS, 'utf8')) : [
  { name: 'before: handover off, 3 s minimum visit', track: { handover_seconds: 0 }, retail: { min_visit_seconds: 3 } },
  { name: 'shipped: handover 2 s 3 m, 10 s minimum visit' },
];
const MATCH = 0.5;

/** The chain as the flow runs it: estimator's tracker → pose frame (confirmed tracks) → tracker.track. */
function chain(run, variant) {
  const people = new PeopleTracker({ ...cache.tracker, ...(variant.people ?? {}) }, cache.maxPersons);
  const tracker = new MultiPersonTracker(variant.track ?? {});
  const th = cache.presenceThreshold;
  const reclaim = variant.reclaim ? reclaimer(variant.reclaim) : null;
  return run.estimates.map((e) => {
    const tracks = people.update(e.t, e.peaks.map(([x, y, presence, aboveNoise]) => ({ x, y, presence, ...(aboveNoise === null ? {} : { aboveNoise }) })));
    const shown = reclaim ? reclaim(e.t, tracks.filter((t) => t.confirmed)) : tracks.filter((t) => t.confirmed);
    const truth = { timestamp: e.t * 1000, persons: e.truth.map(([id, x, y]) => ({ id, position: { x, y } })) };
    const frame = {
      timestamp: e.t * 1000, environmentId: run.id,
      persons: shown.map((t, i) => ({ id: i, trackId: t.id, upstreamId: t.id, trackStatus: 'active', confidence: th + (1 - th) * Math.max(0.02, t.support), position: { x: t.x, y: t.y }, keypoints: [], keypoints3d: [] })),
      truth,
    };
    // `estimatorIds`: score the estimator's own ids (what POST /pose/process shows), no tracker.track.
    const out = variant.estimatorIds ? frame : tracker.update(frame);
    // Each person keeps the estimator's id (upstreamId, spread through by tracker.track) for the renumbering check.
    return { ...out, truth };
  });
}

/**
 * The candidate "reclaim" id rule of identity-protocol.md, outside the estimator (its code was not
 * kept): a confirmed id that stops being shown is remembered `seconds` where it was going (its
 * velocity over the last two estimates, decaying with a 1 s time constant); an id confirmed within
 * `m` of that prediction in that time is shown under the remembered id instead.
 */
function reclaimer({ seconds, m }) {
  const alias = new Map(), last = new Map(), remembered = [];
  let previous = new Set();
  return (time, confirmed) => {
    const now = new Set(confirmed.map((t) => t.id));
    for (const id of previous) if (!now.has(id)) { const l = last.get(id); remembered.push({ id: alias.get(id) ?? id, ...l, time }); }
    for (let i = remembered.length - 1; i >= 0; i--) if (time - remembered[i].time > seconds) remembered.splice(i, 1);
    const pairs = [];
    for (const t of confirmed) {
      if (previous.has(t.id) || alias.has(t.id)) continue;
      for (const r of remembered) {
        const travel = 1 - Math.exp(-(time - r.time));
        const d = Math.hypot(t.x - (r.x + r.vx * travel), t.y - (r.y + r.vy * travel));
        if (d <= m) pairs.push([d, t, r]);
      }
    }
    pairs.sort((a, b) => a[0] - b[0]);
    const taken = new Set();
    for (const [, t, r] of pairs) {
      if (taken.has(t) || !remembered.includes(r)) continue;
      taken.add(t); alias.set(t.id, r.id); remembered.splice(remembered.indexOf(r), 1);
    }
    for (const t of confirmed) {
      const l = last.get(t.id);
      const dt = l ? time - l.t : 0;
      last.set(t.id, { t: time, x: t.x, y: t.y, vx: l && dt > 0 ? (t.x - l.x) / dt : 0, vy: l && dt > 0 ? (t.y - l.y) / dt : 0 });
    }
    previous = now;
    return confirmed.map((t) => ({ ...t, id: alias.get(t.id) ?? t.id }));
  };
}

const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);
/** Per frame: truth id → shown track id within MATCH, kept from the previous frame where possible (CLEAR-MOT). */
function matchesOf(frames) {
  let prev = new Map();
  return frames.map((f) => {
    const gts = f.truth.persons, hyps = f.persons.filter((p) => p.trackId !== null && p.trackStatus !== 'tentative');
    const pairs = new Map(), usedH = new Set();
    for (const [g, h] of prev) {
      const gi = gts.find((x) => x.id === g), hi = hyps.find((x) => x.trackId === h);
      if (gi && hi && dist(gi.position, hi.position) <= MATCH) { pairs.set(g, h); usedH.add(h); }
    }
    const restG = gts.filter((g) => !pairs.has(g.id)), restH = hyps.filter((h) => !usedH.has(h.trackId));
    const costs = restG.map((g) => restH.map((h) => (dist(g.position, h.position) <= MATCH ? dist(g.position, h.position) : Infinity)));
    for (const [r, c] of assignGated(costs)) pairs.set(restG[r].id, restH[c].trackId);
    prev = pairs;
    return pairs;
  });
}

/** IDF1 if every shown person carried the id of the true person it stands on (positions and count as they are). */
function oracleIdf1(frames) {
  let n = 0;
  const relabelled = frames.map((f, i) => {
    const m = matchesOf([f])[0];
    const byTrack = new Map([...m].map(([g, h]) => [h, g]));
    return { ...f, persons: f.persons.filter((p) => p.trackStatus !== 'tentative').map((p) => ({ ...p, trackId: byTrack.has(p.trackId) ? byTrack.get(p.trackId) : 100000 + n++ })) };
  });
  return scoreTracking(relabelled).idf1;
}

const quantile = (xs, q) => { if (!xs.length) return null; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]; };
const r2 = (v) => (v === null || v === undefined ? "—" : v.toFixed(2));
const r3 = (v) => v.toFixed(3);

/** Diagnosis of the crossing runs of one variant. */
function diagnose(runsFrames) {
  const cause = { newIdOldDead: 0, newIdOldShown: 0, otherPersonsId: 0, ghostsId: 0 };
  const gaps = [], moved = [], switchGaps = [], lifetimes = [];
  let gt = 0, covered05 = 0, covered10 = 0, hypFrames = 0, ghostFrames = 0, renumbered = 0, upstreamIds = 0, trackIds = 0, rejoined = 0;
  for (const frames of runsFrames) {
    const matches = matchesOf(frames);
    const firstSeen = new Map(), lastSeen = new Map(), everMatchedTo = new Map();
    frames.forEach((f, i) => f.persons.forEach((p) => { if (!firstSeen.has(p.trackId)) firstSeen.set(p.trackId, i); lastSeen.set(p.trackId, i); }));
    for (const [id, i] of firstSeen) lifetimes.push((frames[lastSeen.get(id)].timestamp - frames[i].timestamp) / 1000);
    // Renumbering: an estimator id shown under more than one tracker.track id; joins: one tracker id over several estimator ids.
    const up2down = new Map(), down2up = new Map();
    frames.forEach((f) => f.persons.forEach((p) => {
      const u = p.upstreamId; if (u === undefined) return;
      (up2down.get(u) ?? up2down.set(u, new Set()).get(u)).add(p.trackId);
      (down2up.get(p.trackId) ?? down2up.set(p.trackId, new Set()).get(p.trackId)).add(u);
    }));
    renumbered += [...up2down.values()].filter((s) => s.size > 1).length;
    rejoined += [...down2up.values()].reduce((s, x) => s + x.size - 1, 0);
    upstreamIds += up2down.size; trackIds += down2up.size;
    const last = new Map(); // truth id → { h, i }
    const gapStart = new Map();
    frames.forEach((f, i) => {
      const m = matches[i];
      for (const g of f.truth.persons) {
        gt++;
        const shown = f.persons;
        if (shown.some((p) => dist(p.position, g.position) <= 0.5)) covered05++;
        if (shown.some((p) => dist(p.position, g.position) <= 1.0)) covered10++;
        const h = m.get(g.id);
        if (h === undefined) { if (!gapStart.has(g.id) && last.has(g.id)) gapStart.set(g.id, i); continue; }
        if (gapStart.has(g.id)) {
          const s = gapStart.get(g.id); gapStart.delete(g.id);
          const start = frames[s - 1] ?? frames[s];
          gaps.push((f.timestamp - start.timestamp) / 1000);
          const before = start.truth.persons.find((x) => x.id === g.id);
          if (before) moved.push(dist(before.position, g.position));
        }
        const prev = last.get(g.id);
        if (prev && prev.h !== h) {
          switchGaps.push((f.timestamp - frames[prev.i].timestamp) / 1000);
          const bornAt = firstSeen.get(h);
          if (bornAt > prev.i - 4) { // born since (or within one second before) the person's last match
            if (f.persons.some((p) => p.trackId === prev.h)) cause.newIdOldShown++; else cause.newIdOldDead++;
          } else {
            const owners = everMatchedTo.get(h);
            if (owners && [...owners].some((o) => o !== g.id)) cause.otherPersonsId++; else cause.ghostsId++;
          }
        }
        last.set(g.id, { h, i });
        (everMatchedTo.get(h) ?? everMatchedTo.set(h, new Set()).get(h)).add(g.id);
      }
      for (const p of f.persons) { hypFrames++; if (!f.truth.persons.some((g) => dist(p.position, g.position) <= 0.5)) ghostFrames++; }
    });
  }
  return { cause, gaps, moved, switchGaps, lifetimes, coverage05: covered05 / gt, coverage10: covered10 / gt, unmatchedShown: ghostFrames / hypFrames, renumbered, rejoined, upstreamIds, trackIds };
}

for (const variant of variants) {
  const crossing = cache.runs.filter((r) => r.kind === 'crossing').map((r) => chain(r, variant));
  const score = combineScores(crossing.map((f) => scoreTracking(f)));
  const oracle = crossing.map(oracleIdf1);
  const d = diagnose(crossing);
  const shops = cache.runs.filter((r) => r.kind === 'shop').map((r) => {
    const frames = chain(r, variant);
    const metrics = computeRetailMetrics(frames, { zones: r.zones.map((z) => ({ id: z.id, name: z.name ?? z.id, polygon: z.polygon })), ...(variant.retail ?? {}) });
    const ids = new Set(frames.flatMap((f) => f.persons.map((p) => p.trackId)));
    return { id: r.id, truth: trueVisits(frames, 300), counted: metrics.metrics.traffic.total_visitors, ids: ids.size };
  });
  console.log(`## ${variant.name}`);
  console.log(`crossing (${crossing.length} validation rooms × ${Math.round((crossing[0].at(-1).timestamp - crossing[0][0].timestamp) / 1000)} s): IDF1 ${r3(score.idf1)}, MOTA ${r3(score.mota)}, ${score.trackIds} track ids, ${score.idSwitches} id switches; IDF1 with every shown person given its true id (positions as they are): ${oracle.map(r2).join(' / ')}`);
  console.log(`  true person-frames with a shown person within 0.5 m: ${r2(d.coverage05)}, within 1 m: ${r2(d.coverage10)}; shown person-frames with no true person within 0.5 m: ${r2(d.unmatchedShown)}`);
  console.log(`  id switches by cause: new id, old one gone (fragmentation) ${d.cause.newIdOldDead}; new id while the old one is still shown elsewhere ${d.cause.newIdOldShown}; another true person's id (swap) ${d.cause.otherPersonsId}; an id that matched no other person before (a ghost's or its own drifted) ${d.cause.ghostsId}`);
  console.log(`  time since the last match at a switch, s: median ${r2(quantile(d.switchGaps, 0.5))}, p90 ${r2(quantile(d.switchGaps, 0.9))}; unmatched runs: ${d.gaps.length}, median ${r2(quantile(d.gaps, 0.5))} s, p90 ${r2(quantile(d.gaps, 0.9))} s; the person moved during a run: median ${r2(quantile(d.moved, 0.5))} m, p90 ${r2(quantile(d.moved, 0.9))} m`);
  console.log(`  shown ids live: median ${r2(quantile(d.lifetimes, 0.5))} s, p90 ${r2(quantile(d.lifetimes, 0.9))} s; estimator ids ${d.upstreamIds} → tracker.track ids ${d.trackIds} (estimator ids renumbered: ${d.renumbered}; estimator ids joined to an earlier track: ${d.rejoined})`);
  console.log(`shops: ${shops.map((s) => `${s.id} ${s.counted} visitors counted for ${s.truth} true (${s.ids} track ids)`).join('; ')}`);
}
