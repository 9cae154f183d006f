// The selection of ghosts-protocol.md (issue 21), VALIDATION rooms only: replays the cached untracked
// estimates (pilot-ghosts-cache.mjs) of five validation groups through the estimator's tracker with
// each setting of the grid, then tracker.track following its ids, scored as `wiflow eval-e2e`
// scores (5 s warm-up), and applies the protocol's rule (see ghosts-protocol.md):
//   J = extra person-estimates + 3 × missing person-estimates, rooms with people, all groups;
//   allowed only with phantoms (emptied rooms) and lost people not above 2.2.0's and the mean
//   floor error of all people at most 0.05 m above 2.2.0's; ship only if J is below 2.2.0's overall
//   and not above it on each fresh group (general, side by side) alone.
// Run from the repository root after a build (seconds per setting):
//   node plugins/pose-tfjs/models/wiflow-locate-v2/ghosts-grid.mjs .ghosts/old-val.json .ghosts/births-val.json .ghosts/faint.json .ghosts/fresh.json .ghosts/close.json [--json]
import { readPilotCache } from './pilot-cache-file.mjs';
import { BucketScorer, confirmedTracks, reportedPeople, WARM_UP_SECONDS } from '@wiflow/plugin-evaluation';
import { MultiPersonTracker, scoreTracking, combineScores, assignGated } from '@wiflow/plugin-tracker';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const files = args.filter((a) => !a.startsWith('--'));
const NAMES = ['old validation', 'births fresh', 'births faint', 'fresh general', 'fresh side by side'];
if (files.length !== NAMES.length) throw new Error(`usage: ghosts-grid.mjs ${NAMES.map((n) => `<${n.replace(/ /g, '-')}.json>`).join(' ')} [--json]`);
const groups = files.map((file, g) => ({ name: NAMES[g], cache: readPilotCache(file) }));
const FRESH = [3, 4];
const hashes = new Set(groups.map((g) => g.cache.hash));
if (hashes.size !== 1) throw new Error(`the caches are of different locators: ${[...hashes].join(', ')}`);

const LOST_MIN_ESTIMATES = 20, LOST_SHARE = 0.5, MISSING_WEIGHT = 3, FLOOR_SLACK_M = 0.05;

const frameOf = (e, persons) => ({
  timestamp: e.t, environmentId: 'room',
  persons: persons.map((p, i) => ({ id: i, trackId: p.trackId, trackStatus: 'active', confidence: p.confidence, position: { x: p.x, y: p.y }, keypoints: [], keypoints3d: [] })),
  truth: { persons: e.truth.map(([id, x, y]) => ({ id, position: { x, y } })) },
});

/** The shipped chain with the estimator's tracker settings changed: its confirmed tracks → tracker.track following their ids. */
function chain(cache, run, settings) {
  const k = cache.maxPersons, threshold = cache.presenceThreshold;
  // Crossing runs are rooms of the same session id: their size is the room run's.
  const room = run.room ?? cache.runs.find((r) => r.id === run.id && r.room)?.room;
  const wall = (x, y) => (room?.width ? Math.min(x, room.width - x, y, room.depth - y) : undefined);
  const people = new PeopleTracker({ ...cache.tracker, ...settings }, k);
  const tracker = new MultiPersonTracker({});
  return run.estimates.map((e) => {
    const shown = people.update(e.t / 1000, e.peaks.map(([x, y, presence, aboveNoise, ...linkExplained]) => ({ x, y, presence, aboveNoise, linkExplained, wallDistance: wall(x, y) }))).filter((t) => t.confirmed)
      .map((t) => ({ x: t.x, y: t.y, trackId: t.id, confidence: threshold + (1 - threshold) * Math.max(0.02, t.support) }));
    const f = frameOf(e, shown);
    return { ...tracker.update(f), truth: f.truth };
  });
}

/** Count errors of one session's scored estimates and its lost people (births-protocol.md's definition). */
function sessionErrors(frames) {
  const present = new Map(), detected = new Map();
  const start = frames[0]?.timestamp ?? 0;
  let extra = 0, missing = 0;
  for (const frame of frames) {
    if (frame.timestamp - start < WARM_UP_SECONDS * 1000) continue;
    const truth = frame.truth.persons, reported = reportedPeople(frame);
    extra += Math.max(0, reported.length - truth.length);
    missing += Math.max(0, truth.length - reported.length);
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
  return { extra, missing, counted, lost };
}

function score(settings) {
  const scorer = new BucketScorer();
  const tracking = [];
  const perGroup = groups.map(({ cache }) => {
    const g = { phantoms: 0, lost: 0, counted: 0, extra: 0, missing: 0, emptySeconds: 0 };
    for (const run of cache.runs) {
      const frames = chain(cache, run, settings);
      if (run.kind === 'crossing') tracking.push(scoreTracking(frames));
      else if (run.kind === 'empty') { g.phantoms += confirmedTracks(frames); g.emptySeconds += (run.estimates.at(-1).t - run.estimates[0].t) / 1000; }
      else { scorer.addSession(frames); const e = sessionErrors(frames); for (const key of ['extra', 'missing', 'counted', 'lost']) g[key] += e[key]; }
    }
    g.J = g.extra + MISSING_WEIGHT * g.missing;
    return g;
  });
  const sum = (key) => perGroup.reduce((s, g) => s + g[key], 0);
  return { figures: scorer.figures(), idf1: tracking.length ? combineScores(tracking).idf1 : null, perGroup, J: sum('J'), phantoms: sum('phantoms'), lost: sum('lost'), extra: sum('extra'), missing: sum('missing') };
}

// The grid (ghosts-protocol.md): each remedy alone, then the pairs of the remedies.
// Each value is a setting object; a remedy's values never combine with each other.
const ROUND = process.env.ROUND ?? '1';
const remedies = ROUND === '3' ? {
  // Round 3 (ghosts-protocol.md): a wall margin for births, and for what keeps a confirmed track.
  wallBirth: [0.2, 0.4, 0.6].map((v) => ({ birthWallM: v })),
  wallKeep: [0.2, 0.4].map((v) => ({ keepWallM: v })),
  explainedDeath: [4].map((v) => ({ explainedDeathMisses: v })),
  relative: [0.2].map((v) => ({ birthRelative: v })),
} : ROUND === '2' ? {
  // Round 2 (ghosts-protocol.md): support accumulated over a tentative track's hits.
  secondLink: [0.1, 0.2, 0.3, 0.5].map((v) => ({ confirmSecondLink: v })),
  relativeMean: [0.2, 0.3, 0.4].map((v) => ({ confirmRelative: v })),
  explainedDeath: [4].map((v) => ({ explainedDeathMisses: v })),
} : {
  explained: [0.5, 1, 2].map((v) => ({ birthExplained: v })),
  twoLinks: [0.1, 0.2, 0.3].map((v) => ({ birthLinks: 2, birthLinkEnergy: v })),
  relative: [0.2, 0.35, 0.5].map((v) => ({ birthRelative: v })),
  merge: [0.9, 1.1].map((v) => ({ mergeM: v })),
  explainedDeath: [2, 4].map((v) => ({ explainedDeathMisses: v })),
  confirm: [[3, 4], [3, 5]].map(([h, w]) => ({ confirmHits: h, confirmWindow: w })),
};
const grid = [{ settings: {} }];
const keys = Object.keys(remedies);
for (const k of keys) for (const v of remedies[k]) grid.push({ settings: v });
for (let a = 0; a < keys.length; a++) for (let b = a + 1; b < keys.length; b++) for (const va of remedies[keys[a]]) for (const vb of remedies[keys[b]]) grid.push({ settings: { ...va, ...vb } });
// Remedies turned on (a two-link birth is one remedy of two keys; so is a confirmation rule).
for (const row of grid) Object.assign(row, { on: keys.filter((k) => remedies[k].some((v) => Object.entries(v).every(([key, val]) => row.settings[key] === val))).length }, score(row.settings));
const shipped = grid[0];
const floorAll = (r) => r.figures.all.floorErrorM.mean ?? Infinity;
const allowed = (r) => r.phantoms <= shipped.phantoms && r.lost <= shipped.lost && floorAll(r) <= floorAll(shipped) + FLOOR_SLACK_M;
const ranked = [...grid].sort((a, b) => Number(allowed(b)) - Number(allowed(a)) || a.J - b.J || a.on - b.on || grid.indexOf(a) - grid.indexOf(b));
const chosen = ranked[0];
const ship = chosen !== shipped && allowed(chosen) && chosen.J < shipped.J && FRESH.every((g) => chosen.perGroup[g].J <= shipped.perGroup[g].J);

const name = (s) => (Object.keys(s).length ? Object.entries(s).map(([k, v]) => `${k} ${v}`).join(', ') : '2.2.0 as shipped');
if (json) {
  console.log(JSON.stringify({ hash: [...hashes][0], groups: groups.map((g) => g.cache.source ?? null), rows: grid.map((r) => ({ settings: r.settings, allowed: allowed(r), J: r.J, perGroup: r.perGroup, figures: r.figures, idf1: r.idf1 })), chosen: chosen.settings, ship }, null, 1));
} else {
  const r2 = (v) => (v === null || v === undefined ? '—' : v.toFixed(2));
  console.log(`Groups: ${groups.map((x, i) => `${x.name}: ${x.cache.runs.filter((r) => r.kind === 'room').length} rooms, ${Math.round(shipped.perGroup[i].emptySeconds)} s emptied, ${shipped.perGroup[i].counted} true people`).join('; ')}. Crossing rooms (IDF1): ${groups.reduce((s, x) => s + x.cache.runs.filter((r) => r.kind === 'crossing').length, 0)}.`);
  console.log('');
  console.log(`| setting | allowed | J | J per group (${NAMES.join(' / ')}) | extra / missing person-estimates | phantoms | lost | count exact 1 / 2 / 3 / all | floor error all m | IDF1 |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of ranked.slice(0, Number(process.env.ROWS ?? 25)).concat(ranked.slice(0, Number(process.env.ROWS ?? 25)).includes(shipped) ? [] : [shipped])) {
    const mark = r === chosen ? '**' : '';
    console.log(`| ${mark}${name(r.settings)}${mark} | ${allowed(r) ? 'yes' : 'no'} | ${r.J} | ${r.perGroup.map((g) => g.J).join(' / ')} | ${r.extra} / ${r.missing} | ${r.phantoms} | ${r.lost} | ${['1', '2', '3', 'all'].map((b) => r2(r.figures[b].countExact)).join(' / ')} | ${r2(floorAll(r))} | ${r2(r.idf1)} |`);
  }
  console.log('');
  console.log(`${grid.length} settings. Chosen by the rule: ${name(chosen.settings)} (J ${chosen.J}; 2.2.0 ${shipped.J}; fresh groups ${FRESH.map((g) => `${chosen.perGroup[g].J} vs ${shipped.perGroup[g].J}`).join(', ')}): ${ship ? 'ship' : 'keep 2.2.0'}.`);
}
