// confirm20-protocol.md, post hoc (written after the grid's outcome, to explain it; it cannot change it):
// which people does a `reportExplained` candidate lose, and why? On the people runs of a pilot-distract
// cache, the locator's own tracker (before tracker.track) with the shipped settings and with the candidate;
// each true person-estimate after 5 s that the shipped setting reports within 1 m (one to one) and the
// candidate does not is "lost". Per lost person-estimate: the age of the shipped track that found them
// (seconds since its birth: the people are followed by short tracks that die and are born again, each
// held back anew), whether the candidate has an unreported track within 1 m (held back, or tentative), the
// explained energy at the person's true position averaged over the candidate's window (strongest peak within
// its radius; 0 where none), and the activity.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/confirm20-lost.mjs '<candidate tracker JSON>' cache.json
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { quantile } from './pilot-breathing-windows.mjs';
import { PeopleTracker, PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { DETECTED_RADIUS_M } from '@wiflow/plugin-evaluation';
import { assignGated } from '@wiflow/plugin-tracker';

const [candidateJson, file] = process.argv.slice(2);
const cache = readPilotCache(file);
const candidate = PeopleTrackerSettingsSchema.parse({ ...cache.tracker, ...JSON.parse(candidateJson) });
const rule = candidate.reportExplained;
const r2 = (v) => (v == null ? null : Math.round(v * 100) / 100);

/** Index of the reported track each true person is matched to within 1 m (one to one), per true person. */
const matchedTracks = (truth, tracks) => {
  const costs = truth.map(([, x, y]) => tracks.map((t) => { const d = Math.hypot(x - t.x, y - t.y); return d <= DETECTED_RADIUS_M ? d : Infinity; }));
  const out = new Map();
  for (const [r, c] of assignGated(costs)) out.set(r, tracks[c]);
  return out;
};

const lost = [], found = [];
let personEstimates = 0;
for (const run of cache.runs.filter((r) => r.kind === 'people')) {
  const shipped = new PeopleTracker(PeopleTrackerSettingsSchema.parse(cache.tracker), cache.maxPersons);
  const held = new PeopleTracker(candidate, cache.maxPersons);
  const born = new Map();
  const start = run.estimates[0].t;
  run.estimates.forEach((e, i) => {
    const now = e.t / 1000;
    const a = shipped.update(now, e.peaks.map(measurement));
    for (const t of a) if (!born.has(t.id)) born.set(t.id, now);
    const b = held.update(now, e.peaks.map(measurement));
    if (e.t - start < 5000) return;
    const byShipped = matchedTracks(e.truth, a.filter((t) => t.confirmed));
    const byCandidate = matchedTracks(e.truth, b.filter((t) => t.confirmed));
    e.truth.forEach(([, x, y, activity], r) => {
      personEstimates++;
      // The explained energy at the true position, averaged over the candidate's window.
      const window = run.estimates.slice(0, i + 1).filter((f) => f.t / 1000 > now - rule.windowS);
      const atPerson = window.reduce((s, f) => s + f.peaks.reduce((best, p) => (Math.hypot(p[0] - x, p[1] - y) <= rule.radiusM ? Math.max(best, p.slice(5).reduce((u, v) => u + v, 0)) : best), 0), 0) / window.length;
      if (byCandidate.has(r)) { found.push({ activity, atPerson }); return; }
      if (!byShipped.has(r)) return;
      const track = byShipped.get(r);
      lost.push({ activity, atPerson, age: now - born.get(track.id), heldNear: b.some((t) => !t.confirmed && Math.hypot(t.x - x, t.y - y) <= DETECTED_RADIUS_M) });
    });
  });
}
const q = (xs, p) => r2(quantile(xs, p));
const byActivity = Object.fromEntries([...new Set(lost.map((l) => l.activity))].map((a) => [a, lost.filter((l) => l.activity === a).length]));
console.log(JSON.stringify({
  cache: file, candidate: rule, personEstimates,
  lost: { n: lost.length, byActivity, trackAgeS: [q(lost.map((l) => l.age), 0.25), q(lost.map((l) => l.age), 0.5), q(lost.map((l) => l.age), 0.75)], unreportedTrackNear: lost.filter((l) => l.heldNear).length, explainedAtPerson: [q(lost.map((l) => l.atPerson), 0.25), q(lost.map((l) => l.atPerson), 0.5), q(lost.map((l) => l.atPerson), 0.75)] },
  foundByCandidate: { n: found.length, explainedAtPerson: [q(found.map((l) => l.atPerson), 0.25), q(found.map((l) => l.atPerson), 0.5), q(found.map((l) => l.atPerson), 0.75)] },
}, null, 1));
