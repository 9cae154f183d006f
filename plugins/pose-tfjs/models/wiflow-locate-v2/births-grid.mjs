// The selection of births-protocol.md, VALIDATION rooms only: replays the cached untracked estimates
// (pilot-births-cache.mjs) of the three validation groups through the estimator's tracker with each
// setting of the grid, then tracker.track following its ids, scored as `wiflow eval-e2e` scores, and
// applies the protocol's rule: J = phantoms + 3 × lost people over all groups; ties: more true
// person-estimates detected, fewer settings on, lower margin; ship only if J is below shipped's
// over all groups and not above it on the fresh groups alone.
// Run from the repository root after a build (a few seconds per setting):
//   node plugins/pose-tfjs/models/wiflow-locate-v2/births-grid.mjs old-val.json fresh.json faint.json
// (`--json` prints the rows and the choice as JSON instead of the markdown table.)
import { readPilotCache } from './pilot-cache-file.mjs';
import { BucketScorer, confirmedTracks, reportedPeople, WARM_UP_SECONDS } from '@wiflow/plugin-evaluation';
import { MultiPersonTracker, scoreTracking, combineScores, assignGated } from '@wiflow/plugin-tracker';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const files = args.filter((a) => a !== '--json');
if (files.length !== 3) throw new Error('usage: births-grid.mjs <old-val.json> <fresh.json> <faint.json> [--json]');
const groups = files.map((file, g) => ({ name: ['old validation', 'fresh', 'fresh faint'][g], cache: readPilotCache(file) }));
const hashes = new Set(groups.map((g) => g.cache.hash));
if (hashes.size !== 1) throw new Error(`the caches are of different locators: ${[...hashes].join(', ')}`);

/** A person is lost when present in at least this many scored estimates … */
const LOST_MIN_ESTIMATES = 20;
/** … and detected in fewer than this share of them. */
const LOST_SHARE = 0.5;
const LOST_WEIGHT = 3;

const frameOf = (e, persons) => ({
  timestamp: e.t, environmentId: 'room',
  persons: persons.map((p, i) => ({ id: i, trackId: p.trackId, trackStatus: 'active', confidence: p.confidence, position: { x: p.x, y: p.y }, keypoints: [], keypoints3d: [] })),
  truth: { persons: e.truth.map(([id, x, y]) => ({ id, position: { x, y } })) },
});

/** The shipped chain with the estimator's tracker settings changed: its confirmed tracks → tracker.track following their ids. */
function chain(cache, run, settings) {
  const k = cache.maxPersons, threshold = cache.presenceThreshold;
  const people = new PeopleTracker({ ...cache.tracker, ...settings }, k);
  const tracker = new MultiPersonTracker({});
  return run.estimates.map((e) => {
    // features[3k + i]: log of the change energy left before peak i against the room's empty-room noise energy.
    const shown = people.update(e.t / 1000, e.peaks.map(([x, y, presence], i) => ({ x, y, presence, aboveNoise: e.features[3 * k + i] }))).filter((t) => t.confirmed)
      .map((t) => ({ x: t.x, y: t.y, trackId: t.id, confidence: threshold + (1 - threshold) * Math.max(0.02, t.support) }));
    const f = frameOf(e, shown);
    return { ...tracker.update(f), truth: f.truth };
  });
}

/** True people of one session and how many of them are lost (protocol: present ≥ 20 scored estimates, detected in < half). */
function lostPeople(frames) {
  const present = new Map(), detected = new Map();
  const start = frames[0]?.timestamp ?? 0;
  for (const frame of frames) {
    if (frame.timestamp - start < WARM_UP_SECONDS * 1000) continue;
    const truth = frame.truth.persons, reported = reportedPeople(frame);
    const costs = truth.map((t) => reported.map((p) => Math.hypot(t.position.x - p.position.x, t.position.y - p.position.y)));
    for (const t of truth) present.set(t.id, (present.get(t.id) ?? 0) + 1);
    for (const [r] of assignGated(costs)) detected.set(truth[r].id, (detected.get(truth[r].id) ?? 0) + 1);
  }
  let counted = 0, lost = 0;
  for (const [id, n] of present) {
    if (n < LOST_MIN_ESTIMATES) continue;
    counted++;
    if ((detected.get(id) ?? 0) / n < LOST_SHARE) lost++;
  }
  return { counted, lost };
}

function score(settings) {
  const scorer = new BucketScorer();
  const tracking = [];
  const perGroup = groups.map(({ cache }) => {
    let phantoms = 0, lost = 0, counted = 0, emptySeconds = 0;
    for (const run of cache.runs) {
      const frames = chain(cache, run, settings);
      if (run.kind === 'crossing') tracking.push(scoreTracking(frames));
      else if (run.kind === 'empty') { phantoms += confirmedTracks(frames); emptySeconds += (run.estimates.at(-1).t - run.estimates[0].t) / 1000; }
      else { scorer.addSession(frames); const l = lostPeople(frames); lost += l.lost; counted += l.counted; }
    }
    return { phantoms, lost, counted, emptySeconds };
  });
  const fresh = perGroup.slice(1);
  const cost = (list) => list.reduce((s, g) => s + g.phantoms + LOST_WEIGHT * g.lost, 0);
  return { figures: scorer.figures(), idf1: tracking.length ? combineScores(tracking).idf1 : null, perGroup, J: cost(perGroup), freshJ: cost(fresh) };
}

const margins = [undefined, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25];
const presences = [undefined, 0.7, 0.8];
const nears = [{}, { nearTrackM: 1, nearTrackHits: 4 }];
const grid = [];
for (const birthAboveNoise of margins) for (const birthPresence of presences) for (const near of nears) {
  const settings = { ...(birthAboveNoise === undefined ? {} : { birthAboveNoise }), ...(birthPresence === undefined ? {} : { birthPresence }), ...near };
  grid.push({ settings, on: Object.keys(settings).filter((k) => k !== 'nearTrackHits').length, ...score(settings) });
}
const shipped = grid[0];
const detected = (row) => row.figures.all.detectedShare ?? 0;
const ranked = [...grid].sort((a, b) => a.J - b.J || detected(b) - detected(a) || a.on - b.on || (a.settings.birthAboveNoise ?? 0) - (b.settings.birthAboveNoise ?? 0));
const chosen = ranked[0];
const ship = chosen !== shipped && chosen.J < shipped.J && chosen.freshJ <= shipped.freshJ;

const name = (s) => [s.birthAboveNoise === undefined ? 'margin none' : `margin ${s.birthAboveNoise}`, s.birthPresence === undefined ? 'presence 0.5' : `presence ${s.birthPresence}`, s.nearTrackM ? `near ${s.nearTrackM} m: ${s.nearTrackHits}` : 'near off'].join(', ');
if (json) {
  console.log(JSON.stringify({ hash: [...hashes][0], groups: groups.map((g) => g.cache.source ?? null), rows: grid.map((r) => ({ settings: r.settings, J: r.J, freshJ: r.freshJ, perGroup: r.perGroup, figures: r.figures, idf1: r.idf1 })), chosen: chosen.settings, ship }, null, 1));
} else {
  const r2 = (v) => (v === null || v === undefined ? '—' : v.toFixed(2));
  const g = shipped.perGroup;
  console.log(`Groups (phantoms in / lost people of): ${groups.map((x, i) => `${x.name}: ${x.cache.runs.filter((r) => r.kind === 'room').length} rooms, ${Math.round(g[i].emptySeconds)} s emptied, ${g[i].counted} true people`).join('; ')}. Crossing rooms (IDF1): ${groups.reduce((s, x) => s + x.cache.runs.filter((r) => r.kind === 'crossing').length, 0)}.`);
  console.log('');
  console.log('| setting | J (fresh only) | phantoms old / fresh / faint | lost old / fresh / faint | detected | count exact 1 / 2 / 3 / all | floor error 1 / 2 / 3 m | IDF1 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of ranked) {
    const mark = r === chosen ? '**' : '';
    console.log(`| ${mark}${name(r.settings)}${r === shipped ? ' (2.0.0)' : ''}${mark} | ${r.J} (${r.freshJ}) | ${r.perGroup.map((x) => x.phantoms).join(' / ')} | ${r.perGroup.map((x) => x.lost).join(' / ')} | ${Math.round(100 * detected(r))} % | ${['1', '2', '3', 'all'].map((b) => r2(r.figures[b].countExact)).join(' / ')} | ${['1', '2', '3'].map((b) => r2(r.figures[b].floorErrorM.mean)).join(' / ')} | ${r2(r.idf1)} |`);
  }
  console.log('');
  console.log(`Chosen by the rule: ${name(chosen.settings)} (J ${chosen.J}, fresh ${chosen.freshJ}; shipped J ${shipped.J}, fresh ${shipped.freshJ}): ${ship ? 'ship' : 'keep 2.0.0'}.`);
}
