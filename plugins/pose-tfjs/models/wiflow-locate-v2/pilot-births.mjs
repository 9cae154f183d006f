// Pilot behind FINDINGS.md "Births, deaths and count": the estimator's births, deaths and split
// suppression, VALIDATION rooms only. Replays the estimates cached by pilot-births-cache.mjs through
// the estimator's tracker (dist/locate/people-tracker.js, with each variant's settings) and
// tracker.track following its ids, scored as `wiflow eval-e2e` scores: count and floor error after
// 5 s of track, the share of true people detected, IDF1 of three people crossing, people confirmed
// in the emptied rooms per hour.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-births.mjs <cache.json> [first-room] [rooms]
// (first-room/rooms: a slice of the validation rooms, e.g. to choose on one half and check on the other).
import { readPilotCache } from './pilot-cache-file.mjs';
import { BucketScorer, confirmedTracks } from '@wiflow/plugin-evaluation';
import { MultiPersonTracker, scoreTracking, combineScores } from '@wiflow/plugin-tracker';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const [file, firstArg, roomsArg] = process.argv.slice(2);
const cache = readPilotCache(file);
const ids = [...new Set(cache.runs.filter((r) => r.kind === 'room').map((r) => r.id))].slice(Number(firstArg ?? 0), Number(firstArg ?? 0) + Number(roomsArg ?? Infinity));
const runs = cache.runs.filter((r) => r.kind === 'crossing' || ids.includes(r.id));
const k = cache.maxPersons;

const frameOf = (e, persons) => ({
  timestamp: e.t, environmentId: 'room',
  persons: persons.map((p, i) => ({ id: i, trackId: p.trackId, trackStatus: 'active', confidence: p.confidence, position: { x: p.x, y: p.y }, keypoints: [], keypoints3d: [] })),
  truth: { persons: e.truth.map(([id, x, y]) => ({ id, position: { x, y } })) },
});

/** The shipped chain with the estimator's tracker settings changed: its confirmed tracks → tracker.track following their ids. */
function chain(run, settings) {
  const people = new PeopleTracker({ ...cache.tracker, ...settings }, k);
  const tracker = new MultiPersonTracker({});
  const threshold = cache.presenceThreshold;
  return run.estimates.map((e) => {
    // features[3k + i]: log of the change energy left before peak i against the room's empty-room noise energy.
    const shown = people.update(e.t / 1000, e.peaks.map(([x, y, presence], i) => ({ x, y, presence, aboveNoise: e.features[3 * k + i] }))).filter((t) => t.confirmed)
      .map((t) => ({ x: t.x, y: t.y, trackId: t.id, confidence: threshold + (1 - threshold) * Math.max(0.02, t.support) }));
    const f = frameOf(e, shown);
    return { ...tracker.update(f), truth: f.truth };
  });
}

const variants = JSON.parse(process.env.VARIANTS ?? 'null') ?? [
  ['shipped (born 2 of 4, dies after 4)', {}],
  ['births above the room\'s noise floor by 0.5', { birthAboveNoise: 0.5 }],
  ['births above the noise floor by 1.0', { birthAboveNoise: 1.0 }],
  ['births at presence 0.7', { birthPresence: 0.7 }],
  ['births at presence 0.9', { birthPresence: 0.9 }],
  ['near a person (1 m): 4 hits in a row', { nearTrackM: 1, nearTrackHits: 4 }],
  ['near a person (1.5 m): 6 hits in a row', { nearTrackM: 1.5, nearTrackHits: 6 }],
  ['noise 0.5 + near 1 m: 4 + deaths 8', { birthAboveNoise: 0.5, nearTrackM: 1, nearTrackHits: 4, deathMisses: 8 }],
  ['noise 0.5 + presence 0.7 + deaths 8', { birthAboveNoise: 0.5, birthPresence: 0.7, deathMisses: 8 }],
  ['noise 0.5 + births 3 of 5 + deaths 8', { birthAboveNoise: 0.5, confirmHits: 3, confirmWindow: 5, deathMisses: 8 }],
];
const r2 = (v) => (v === null ? '—' : v.toFixed(2));
const people = new Set(runs.filter((r) => r.kind === 'room').flatMap((r) => r.estimates.flatMap((e) => e.truth.map((t) => `${r.id}:${t[0]}`)))).size;
const emptySeconds = runs.filter((r) => r.kind === 'empty').reduce((s, r) => s + (r.estimates.at(-1).t - r.estimates[0].t) / 1000, 0);
console.log(`${ids.length} validation rooms (${people} people), ${Math.round(emptySeconds)} s of emptied rooms, ${runs.filter((r) => r.kind === 'crossing').length} crossing rooms`);
console.log('| births / deaths | count exact, 1 / 2 / 3 / all | floor error, 1 / 2 / 3 people | true people detected, 1 / 2 / 3 | IDF1 (crossing) | room ids | phantoms (per hour) |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, settings] of variants) {
  const scorer = new BucketScorer();
  const tracking = [];
  let roomIds = 0, phantoms = 0;
  for (const run of runs) {
    const frames = chain(run, settings);
    if (run.kind === 'crossing') tracking.push(scoreTracking(frames));
    else if (run.kind === 'empty') phantoms += confirmedTracks(frames);
    else { scorer.addSession(frames); roomIds += confirmedTracks(frames); }
  }
  const f = scorer.figures(), t = combineScores(tracking);
  console.log(`| ${name} | ${['1', '2', '3', 'all'].map((b) => r2(f[b].countExact)).join(' / ')} | ${['1', '2', '3'].map((b) => r2(f[b].floorErrorM.mean)).join(' / ')} m | ${['1', '2', '3'].map((b) => `${Math.round(100 * f[b].detectedShare)} %`).join(' / ')} | ${r2(t.idf1)} | ${roomIds} | ${phantoms} (${(phantoms * 3600 / emptySeconds).toFixed(1)}) |`);
}
