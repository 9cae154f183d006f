// distract-protocol.md: each candidate's figures on the VALIDATION caches (pilot-distract-cache.mjs),
// replayed through the locator's tracker with the candidate's settings merged over the shipped ones,
// and the protocol's rule applied. Phantoms: confirmed tracks in the installer's emptied rooms
// (`fan-cat-door`, `drift`) per simulated hour. People: each people room scored after the 5 s
// warm-up by `BucketScorer` (count exact, detected within 1 m, one-person floor error, as eval-e2e),
// and still people (true activity standing, sitting or lying) detected within 1 m, one-to-one over all
// true people (`assignGated`). Guards: a candidate's pooled figure must not fall beyond the shipped
// setting's 95 % bootstrap interval over rooms (room-bootstrap.mjs, the dead-band grid's).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/distract-grid.mjs distract-candidates.json cache.json... > distract-grid-val.json
import { readFileSync } from 'node:fs';
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { bootstrap } from './room-bootstrap.mjs';
import { pooledFigures } from './e2e-replay.mjs';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';
import { BucketScorer, DETECTED_RADIUS_M } from '@wiflow/plugin-evaluation';
import { assignGated } from '@wiflow/plugin-tracker';

const [candidatesFile, ...files] = process.argv.slice(2);
const { candidates } = JSON.parse(readFileSync(candidatesFile, 'utf8'));
const caches = files.map((f) => ({ file: f, cache: readPilotCache(f) }));
const STILL = new Set(['standing', 'sitting', 'lying']);
const round = (v, d = 4) => (v == null || Number.isNaN(v) ? null : +v.toFixed(d));

/** Confirmed tracks per estimate of one run, with the settings. */
function replay(run, settings, maxPersons, spectrum) {
  const tracker = new PeopleTracker(settings, maxPersons);
  return run.estimates.map((e) => tracker.update(e.t / 1000, e.peaks.map(measurement).map((m) => (spectrum ? { ...m, changeSpectrum: e.features.slice(13) } : m))).filter((t) => t.confirmed));
}

/** One candidate over every cache: phantoms per condition and each people room's figures. */
function measure(overrides) {
  const phantoms = { 'fan-cat-door': { tracks: 0, seconds: 0 }, drift: { tracks: 0, seconds: 0 } };
  const rooms = [];
  for (const { cache } of caches) {
    const settings = { ...cache.tracker, ...overrides };
    for (const run of cache.runs) {
      const confirmed = replay(run, settings, cache.maxPersons, true);
      const start = run.estimates[0].t;
      if (run.kind !== 'people') {
        phantoms[run.kind].tracks += new Set(confirmed.flatMap((ts) => ts.map((t) => t.id))).size;
        phantoms[run.kind].seconds += cache.source.installerSeconds;
        continue;
      }
      const frames = run.estimates.map((e, i) => ({ timestamp: e.t, persons: confirmed[i].map((t) => ({ position: { x: t.x, y: t.y }, trackId: t.id })), truth: { persons: e.truth.map(([id, x, y, activity]) => ({ id, position: { x, y }, activity })) } }));
      const scorer = new BucketScorer();
      scorer.addSession(frames);
      let still = 0, stillDetected = 0;
      for (const f of frames) {
        if (f.timestamp - start < 5000) continue;
        const costs = f.truth.persons.map((p) => f.persons.map((q) => { const d = Math.hypot(p.position.x - q.position.x, p.position.y - q.position.y); return d <= DETECTED_RADIUS_M ? d : Infinity; }));
        const matched = new Set(assignGated(costs).map(([r]) => r));
        f.truth.persons.forEach((p, r) => { if (STILL.has(p.activity)) { still++; if (matched.has(r)) stillDetected++; } });
      }
      const fig = scorer.figures();
      const truePersons = fig.all.detectedShare === null ? 0 : frames.filter((f) => f.timestamp - start >= 5000).reduce((a, f) => a + f.truth.persons.length, 0);
      rooms.push({ room: `${cache.source.split}:${run.id}`, frames: fig.all.frames, countExact: fig.all.countExact, truePersons, detectedShare: fig.all.detectedShare ?? 0, onePersonFrames: fig['1'].frames, onePersonFloorM: fig['1'].floorErrorM.mean, onePersonMatched: fig['1'].matchedShare === null ? 0 : Math.round(fig['1'].matchedShare * fig['1'].frames), still, stillDetected });
    }
  }
  return { phantoms, rooms };
}

const perHour = (p) => (p.seconds ? (p.tracks / p.seconds) * 3600 : null);
const started = process.cpuUsage();
const shipped = measure({});
const KEYS = ['countExact', 'detectedShare', 'onePersonFloorM', 'stillDetectedShare'];
const base = pooledFigures(shipped.rooms);
const intervals = Object.fromEntries(KEYS.map((k) => [k, bootstrap(shipped.rooms.length, (idx) => pooledFigures(idx.map((i) => shipped.rooms[i]))[k] ?? 0)]));
const installerRate = (m) => perHour({ tracks: m.phantoms['fan-cat-door'].tracks + m.phantoms.drift.tracks, seconds: m.phantoms['fan-cat-door'].seconds + m.phantoms.drift.seconds });
const describe = (name, overrides, m) => {
  const fig = pooledFigures(m.rooms);
  const rate = installerRate(m), baseRate = installerRate(shipped);
  // The intervals carry 3 decimals: the figure is compared at the same precision.
  const guards = Object.fromEntries(KEYS.map((k) => [k, fig[k] === null ? null : k === 'onePersonFloorM' ? round(fig[k], 3) <= intervals[k][1] : round(fig[k], 3) >= intervals[k][0]]));
  const paired = Object.fromEntries(KEYS.map((k) => [k, bootstrap(m.rooms.length, (idx) => (pooledFigures(idx.map((i) => m.rooms[i]))[k] ?? 0) - (pooledFigures(idx.map((i) => shipped.rooms[i]))[k] ?? 0))]));
  const halved = rate <= baseRate / 2;
  return { name, overrides, phantomsPerHour: { installer: round(rate, 1), 'fan-cat-door': round(perHour(m.phantoms['fan-cat-door']), 1), drift: round(perHour(m.phantoms.drift), 1) }, phantoms: m.phantoms, people: Object.fromEntries(KEYS.map((k) => [k, round(fig[k])])), pairedChange95: paired, halved, guards, wins: halved && Object.values(guards).every((g) => g !== false) };
};
const results = candidates.map((c) => describe(c.name, c.tracker, measure(c.tracker)));
const winners = results.filter((r) => r.wins).sort((a, b) => a.phantomsPerHour.installer - b.phantomsPerHour.installer || b.people.detectedShare - a.people.detectedShare);
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({
  protocol: 'distract-protocol.md', caches: caches.map(({ file, cache }) => ({ file, split: cache.source.split, hash: cache.hash.slice(0, 12), peopleRooms: cache.source.peopleRooms, installerRooms: cache.source.installerRooms, installerSeconds: cache.source.installerSeconds, cacheCpuSeconds: cache.source.cpuSeconds })),
  shipped: { ...describe('shipped 2.3.0', {}, shipped), bootstrap95: intervals, rooms: shipped.rooms.length },
  candidates: results, winner: winners[0]?.name ?? null, replayCpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
}, null, 1));
