// End-to-end replay of cached VALIDATION peaks (pilot-distract-cache.mjs) as a user sees them, shared by
// confirm20-grid.mjs and confirm21-grid.mjs: each run's untracked estimates through the locator's tracker,
// turned into the frames `pose.locate` emits (its reported tracks, with the locator's presence and mean pose,
// positions clamped to the room as `hypothesesFromEvidence` does), then through `tracker.track`
// (`MultiPersonTracker`, its defaults) and, optionally, a downstream gate on tracker.track's frames; scored as
// `eval-e2e` scores them (phantomsIn, BucketScorer), still people (standing, sitting, lying) detected within
// 1 m, and each true person's delay to a reported estimate within 1 m (one to one).
import { PeopleTracker } from '../../dist/locate/people-tracker.js';
import { measurement } from './pilot-cache-file.mjs';
import { quantile } from './pilot-breathing-windows.mjs';
import { placePose } from '@wiflow/plugin-pose-tfjs';
import { BucketScorer, DETECTED_RADIUS_M, phantomsIn, reportedPeople } from '@wiflow/plugin-evaluation';
import { assignGated, MultiPersonTracker } from '@wiflow/plugin-tracker';

const STILL = new Set(['standing', 'sitting', 'lying']);
/** Rounded to `d` decimals; null for a missing or NaN figure. */
export const round = (v, d = 4) => (v == null || Number.isNaN(v) ? null : +v.toFixed(d));
/** Explained energy of a cached peak (noise energies, summed over links). */
export const peakExplained = (peak) => peak.slice(5).reduce((a, b) => a + b, 0);

/**
 * The frames `pose.locate` → `tracker.track` emit for one run's estimates with the locator's tracker
 * settings. Each person handed to tracker.track carries `explained`: the explained energy of the peak
 * the locator's track was fed in that estimate (0 when it had none), and `evidence`, what `pose.locate` gives
 * (the same figure; null when it had none). `gate` (optional) sees each of tracker.track's frames and returns
 * it as shown downstream. `trackerOptions`: tracker.track's (default: its held evidence off, the chain as
 * confirm20/21 measured it and the product's default; `{ upstream_min_evidence: 0.5 }`: the opt-in gate on).
 */
export function endToEndFrames(model, run, settings, maxPersons, gate = (frame) => frame, trackerOptions = { upstream_min_evidence: 0 }) {
  const threshold = model.spec.presenceThreshold;
  const tracker = new PeopleTracker(settings, maxPersons);
  const follow = new MultiPersonTracker(trackerOptions);
  const clamp = (v, hi) => Math.min(hi, Math.max(0, v));
  return run.estimates.map((e, frameId) => {
    const tracks = tracker.update(e.t / 1000, e.peaks.map(measurement)).filter((t) => t.confirmed);
    const persons = tracks.map((t, id) => {
      const presence = threshold + (1 - threshold) * Math.max(0.02, t.support);
      const pose = placePose(model.spec.meanPose, { x: clamp(t.x, run.room.width), y: clamp(t.y, run.room.depth) });
      const explained = t.peak >= 0 ? peakExplained(e.peaks[t.peak]) : 0;
      const evidence = t.peak >= 0 ? explained : null;
      return { id, trackId: t.id, trackStatus: 'active', confidence: presence, keypoints: [], boundingBox: { x: 0, y: 0, width: 0, height: 0 }, keypoints3d: pose.keypoints3d.map(([x, y, z]) => ({ x, y, z, confidence: presence })), position: pose.position, densePose: null, activity: null, explained, evidence };
    });
    const truth = { persons: e.truth.map(([id, x, y, activity]) => ({ id, position: { x, y }, activity })), distractors: e.distractors.map(([id, kind, x, y, active]) => ({ id, kind, position: { x, y }, active })) };
    return { ...gate(follow.update({ timestamp: e.t, frameId, environmentId: run.id, persons, metadata: {} })), truth, locatorIds: tracks.map((t) => t.id) };
  });
}

/** One person room's figures: BucketScorer's, still people detected, and each true person's delay to a reported estimate. */
export function personRoom(frames) {
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

/**
 * One setting over every cache: phantoms per condition (end to end, per room, and the locator's own tracks) and each
 * people room's figures. `settingsOf(cache)` gives the locator's tracker settings; `makeGate()` a fresh gate per run;
 * `trackerOptions` tracker.track's (endToEndFrames).
 */
export function measureRooms(model, caches, settingsOf, makeGate = () => undefined, trackerOptions = undefined) {
  const phantoms = { 'fan-cat-door': { tracks: 0, locatorTracks: 0, seconds: 0, perRoom: [] }, drift: { tracks: 0, locatorTracks: 0, seconds: 0, perRoom: [] } };
  const rooms = [];
  for (const { cache } of caches) {
    const settings = settingsOf(cache);
    for (const run of cache.runs) {
      const frames = endToEndFrames(model, run, settings, cache.maxPersons, makeGate(), trackerOptions);
      if (run.kind !== 'people') {
        const shown = phantomsIn(frames, run.id, run.id).length;
        phantoms[run.kind].tracks += shown;
        phantoms[run.kind].perRoom.push(shown);
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
export function pooledFigures(rooms) {
  const sum = (f) => rooms.reduce((a, r) => a + f(r), 0);
  const frames = sum((r) => r.frames), people = sum((r) => r.truePersons), one = sum((r) => r.onePersonMatched), still = sum((r) => r.still);
  return {
    countExact: frames ? sum((r) => r.countExact * r.frames) / frames : null,
    detectedShare: people ? sum((r) => r.detectedShare * r.truePersons) / people : null,
    onePersonFloorM: one ? sum((r) => (r.onePersonFloorM ?? 0) * r.onePersonMatched) / one : null,
    stillDetectedShare: still ? sum((r) => r.stillDetected) / still : null,
  };
}
/** Events per hour of `seconds`. */
export const perHour = (n, seconds) => (seconds ? (n / seconds) * 3600 : null);
/** Median and 90th percentile of the delays to first shown, and how many people were never shown. */
export const delayFigures = (rooms) => { const all = rooms.flatMap((r) => r.delays); const shown = all.filter((d) => d !== null); return { people: all.length, neverShown: all.length - shown.length, medianS: round(quantile(shown, 0.5), 2), p90S: round(quantile(shown, 0.9), 2) }; };
