// confirm20-protocol.md: each candidate's `reportExplained` on VALIDATION caches (pilot-distract-cache.mjs),
// end to end as a user sees it. Each run's untracked estimates are replayed through the locator's tracker
// with the candidate merged over the shipped settings, turned into the frames `pose.locate` emits (its
// reported tracks, with the locator's presence and mean pose, positions clamped to the room as
// `hypothesesFromEvidence` does), then through `tracker.track` (`MultiPersonTracker`, its defaults: it
// follows the locator's ids and joins a re-born id to a lost one) and scored as `eval-e2e` scores them:
// phantoms are the reported track ids of the emptied rooms (`phantomsIn`); people rooms by `BucketScorer`
// after its warm-up, and still people (standing, sitting, lying) detected within 1 m as distract-grid.mjs
// counts them; the delay from a person's first estimate to the first one where a reported person is within
// 1 m of them (one to one). Guards: the shipped setting's 95 % bootstrap interval over rooms (room-bootstrap.mjs).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/confirm20-grid.mjs confirm20-candidates.json cache.json... > out.json
// VETO=1: the caches are seen rooms, guards only (the rule's step 4).
import { readFileSync } from 'node:fs';
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { bootstrap } from './room-bootstrap.mjs';
import { quantile } from './pilot-breathing-windows.mjs';
import { PeopleTracker, PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, placePose } from '@wiflow/plugin-pose-tfjs';
import { BucketScorer, DETECTED_RADIUS_M, phantomsIn, reportedPeople } from '@wiflow/plugin-evaluation';
import { assignGated, MultiPersonTracker } from '@wiflow/plugin-tracker';

const [candidatesFile, ...files] = process.argv.slice(2);
const { candidates } = JSON.parse(readFileSync(candidatesFile, 'utf8'));
const caches = files.map((f) => ({ file: f, cache: readPilotCache(f) }));
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
for (const { file, cache } of caches) if (cache.hash !== model.hash) throw new Error(`${file} was made with locator ${cache.hash.slice(0, 12)}, not the shipped ${model.hash.slice(0, 12)}`);
const threshold = model.spec.presenceThreshold;
const STILL = new Set(['standing', 'sitting', 'lying']);
const round = (v, d = 4) => (v == null || Number.isNaN(v) ? null : +v.toFixed(d));

/** The frames `pose.locate` → `tracker.track` emit for one run's estimates with the tracker settings. */
function endToEndFrames(run, settings, maxPersons) {
  const tracker = new PeopleTracker(settings, maxPersons);
  const follow = new MultiPersonTracker({});
  const clamp = (v, hi) => Math.min(hi, Math.max(0, v));
  return run.estimates.map((e, frameId) => {
    const tracks = tracker.update(e.t / 1000, e.peaks.map(measurement)).filter((t) => t.confirmed);
    const persons = tracks.map((t, id) => {
      const presence = threshold + (1 - threshold) * Math.max(0.02, t.support);
      const pose = placePose(model.spec.meanPose, { x: clamp(t.x, run.room.width), y: clamp(t.y, run.room.depth) });
      return { id, trackId: t.id, trackStatus: 'active', confidence: presence, keypoints: [], boundingBox: { x: 0, y: 0, width: 0, height: 0 }, keypoints3d: pose.keypoints3d.map(([x, y, z]) => ({ x, y, z, confidence: presence })), position: pose.position, densePose: null, activity: null };
    });
    const truth = { persons: e.truth.map(([id, x, y, activity]) => ({ id, position: { x, y }, activity })), distractors: e.distractors.map(([id, kind, x, y, active]) => ({ id, kind, position: { x, y }, active })) };
    return { ...follow.update({ timestamp: e.t, frameId, environmentId: run.id, persons, metadata: {} }), truth, locatorIds: tracks.map((t) => t.id) };
  });
}

/** One person room's figures: BucketScorer's, still people detected, and each true person's delay to a reported estimate. */
function personRoom(frames) {
  const scorer = new BucketScorer();
  scorer.addSession(frames);
  const start = frames[0].timestamp;
  let still = 0, stillDetected = 0;
  const arrival = new Map(), firstShown = new Map();
  for (const f of frames) {
    const reported = reportedPeople(f);
    const costs = f.truth.persons.map((p) => reported.map((q) => { const d = Math.hypot(p.position.x - q.position.x, p.position.y - q.position.y); return d <= DETECTED_RADIUS_M ? d : Infinity; }));
    const matched = new Set(assignGated(costs).map(([r]) => r));
    f.truth.persons.forEach((p, r) => {
      if (!arrival.has(p.id)) arrival.set(p.id, f.timestamp);
      if (matched.has(r) && !firstShown.has(p.id)) firstShown.set(p.id, f.timestamp);
      if (f.timestamp - start < 5000) return;
      if (STILL.has(p.activity)) { still++; if (matched.has(r)) stillDetected++; }
    });
  }
  const fig = scorer.figures();
  const truePersons = fig.all.detectedShare === null ? 0 : frames.filter((f) => f.timestamp - start >= 5000).reduce((a, f) => a + f.truth.persons.length, 0);
  const delays = [...arrival.entries()].map(([id, t]) => (firstShown.has(id) ? (firstShown.get(id) - t) / 1000 : null));
  return { frames: fig.all.frames, countExact: fig.all.countExact, truePersons, detectedShare: fig.all.detectedShare ?? 0, onePersonFrames: fig['1'].frames, onePersonFloorM: fig['1'].floorErrorM.mean, onePersonMatched: fig['1'].matchedShare === null ? 0 : Math.round(fig['1'].matchedShare * fig['1'].frames), still, stillDetected, delays };
}

/** One setting over every cache: phantoms per condition (end to end and the locator's own) and each people room's figures. */
function measure(overrides) {
  const phantoms = { 'fan-cat-door': { tracks: 0, locatorTracks: 0, seconds: 0 }, drift: { tracks: 0, locatorTracks: 0, seconds: 0 } };
  const rooms = [];
  for (const { cache } of caches) {
    // Parsed as locator.json is, so the candidate's unstated settings take their defaults.
    const settings = PeopleTrackerSettingsSchema.parse({ ...cache.tracker, ...overrides });
    for (const run of cache.runs) {
      const frames = endToEndFrames(run, settings, cache.maxPersons);
      if (run.kind !== 'people') {
        phantoms[run.kind].tracks += phantomsIn(frames, run.id, run.id).length;
        phantoms[run.kind].locatorTracks += new Set(frames.flatMap((f) => f.locatorIds)).size;
        phantoms[run.kind].seconds += cache.source.installerSeconds;
        continue;
      }
      rooms.push({ room: `${cache.source.split}:${run.id}`, ...personRoom(frames) });
    }
  }
  return { phantoms, rooms };
}

/** Pooled figures of rooms: count exact by frames, detection by true people, one-person floor error by matched frames, still detection by still people. */
function pooledFigures(rooms) {
  const sum = (f) => rooms.reduce((a, r) => a + f(r), 0);
  const frames = sum((r) => r.frames), people = sum((r) => r.truePersons), one = sum((r) => r.onePersonMatched), still = sum((r) => r.still);
  return {
    countExact: frames ? sum((r) => r.countExact * r.frames) / frames : null,
    detectedShare: people ? sum((r) => r.detectedShare * r.truePersons) / people : null,
    onePersonFloorM: one ? sum((r) => (r.onePersonFloorM ?? 0) * r.onePersonMatched) / one : null,
    stillDetectedShare: still ? sum((r) => r.stillDetected) / still : null,
  };
}
const perHour = (n, seconds) => (seconds ? (n / seconds) * 3600 : null);
const delayFigures = (rooms) => { const all = rooms.flatMap((r) => r.delays); const shown = all.filter((d) => d !== null); return { people: all.length, neverShown: all.length - shown.length, medianS: round(quantile(shown, 0.5), 2), p90S: round(quantile(shown, 0.9), 2) }; };
const started = process.cpuUsage();
const KEYS = ['countExact', 'detectedShare', 'onePersonFloorM', 'stillDetectedShare'];
const shipped = measure({});
const intervals = Object.fromEntries(KEYS.map((k) => [k, bootstrap(shipped.rooms.length, (idx) => pooledFigures(idx.map((i) => shipped.rooms[i]))[k] ?? 0)]));
const installer = (m, key) => perHour(m.phantoms['fan-cat-door'][key] + m.phantoms.drift[key], m.phantoms['fan-cat-door'].seconds + m.phantoms.drift.seconds);
const describe = (name, overrides, m) => {
  const fig = pooledFigures(m.rooms);
  // The intervals carry 3 decimals: the figure is compared at the same precision.
  const guards = Object.fromEntries(KEYS.map((k) => [k, fig[k] === null ? null : k === 'onePersonFloorM' ? round(fig[k], 3) <= intervals[k][1] : round(fig[k], 3) >= intervals[k][0]]));
  const halved = installer(m, 'tracks') <= installer(shipped, 'tracks') / 2;
  const guardsPass = Object.values(guards).every((g) => g !== false);
  return {
    name, overrides,
    phantomsPerHour: { installer: round(installer(m, 'tracks'), 1), 'fan-cat-door': round(perHour(m.phantoms['fan-cat-door'].tracks, m.phantoms['fan-cat-door'].seconds), 1), drift: round(perHour(m.phantoms.drift.tracks, m.phantoms.drift.seconds), 1), locatorInstaller: round(installer(m, 'locatorTracks'), 1) },
    phantoms: m.phantoms, people: Object.fromEntries(KEYS.map((k) => [k, round(fig[k])])), delay: delayFigures(m.rooms), halved, guards,
    wins: process.env.VETO === '1' ? guardsPass : halved && guardsPass,
  };
};
const results = candidates.map((c) => describe(c.name, c.tracker, measure(c.tracker)));
const base = describe('shipped 2.3.0', {}, shipped);
const winners = results.filter((r) => r.wins).sort((a, b) => a.phantomsPerHour.installer - b.phantomsPerHour.installer);
// Within 5 % of the fewest phantoms, the shorter median delay.
const close = winners.filter((r) => r.phantomsPerHour.installer <= 1.05 * (winners[0]?.phantomsPerHour.installer ?? 0)).sort((a, b) => (a.delay.medianS ?? Infinity) - (b.delay.medianS ?? Infinity));
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({
  protocol: 'confirm20-protocol.md', veto: process.env.VETO === '1',
  caches: caches.map(({ file, cache }) => ({ file, split: cache.source.split, hash: cache.hash.slice(0, 12), peopleRooms: cache.source.peopleRooms, installerRooms: cache.source.installerRooms, installerSeconds: cache.source.installerSeconds, cacheCpuSeconds: cache.source.cpuSeconds })),
  shipped: { ...base, bootstrap95: intervals, rooms: shipped.rooms.length },
  candidates: results, winner: process.env.VETO === '1' ? null : close[0]?.name ?? null, replayCpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
}, null, 1));
