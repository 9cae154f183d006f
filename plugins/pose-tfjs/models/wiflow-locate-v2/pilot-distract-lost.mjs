// distract-protocol.md, after the rule was applied (no candidate won): which true people does a
// stricter birth lose? VALIDATION caches only. For each true person-estimate (after the 5 s warm-up)
// the shipped tracker detects within 1 m and TRACKER='{…}' does not: the person's activity, and
// whether the strict tracker had held a confirmed track on that person earlier in the session
// (lost and not born again: a re-birth) or never (never born). Also what the person's nearest peak
// explained then.
// Run from the repository root after a build:
//   TRACKER='{"birthExplained":1}' node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-distract-lost.mjs /tmp/distract/val.json …
import { readPilotCache, measurement } from './pilot-cache-file.mjs';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';
import { WARM_UP_SECONDS } from '@wiflow/plugin-evaluation';

const strict = JSON.parse(process.env.TRACKER ?? '{}');
const tally = new Map();
const explainedLost = [], explainedKept = [];
let total = 0;
for (const file of process.argv.slice(2)) {
  const cache = readPilotCache(file);
  for (const run of cache.runs.filter((r) => r.kind === 'people')) {
    const shipped = new PeopleTracker(cache.tracker, cache.maxPersons), other = new PeopleTracker({ ...cache.tracker, ...strict }, cache.maxPersons);
    const held = new Set();
    const t0 = run.estimates[0].t;
    for (const e of run.estimates) {
      const peaks = e.peaks.map(measurement);
      const a = shipped.update(e.t / 1000, peaks).filter((t) => t.confirmed), b = other.update(e.t / 1000, peaks).filter((t) => t.confirmed);
      for (const [id, x, y, activity] of e.truth) {
        const near = (ts) => ts.some((t) => Math.hypot(t.x - x, t.y - y) <= 1);
        if (near(b)) held.add(id);
        if (e.t - t0 < WARM_UP_SECONDS * 1000) continue;
        total++;
        const best = peaks.map((p) => ({ d: Math.hypot(p.x - x, p.y - y), explained: p.linkExplained.reduce((s, v) => s + v, 0) })).sort((p, q) => p.d - q.d)[0];
        if (near(a) && !near(b)) {
          const key = `${activity} ${held.has(id) ? 'lost, not born again' : 'never born'}`;
          tally.set(key, (tally.get(key) ?? 0) + 1);
          if (best && best.d <= 1) explainedLost.push(best.explained);
        } else if (near(b) && best && best.d <= 1) explainedKept.push(best.explained);
      }
    }
  }
}
const median = (xs) => { const s = [...xs].sort((p, q) => p - q); return s.length ? s[Math.floor(s.length / 2)].toFixed(2) : '—'; };
console.log(`settings over shipped: ${JSON.stringify(strict)}; true person-estimates scored: ${total}`);
console.log('| detected by the shipped tracker, not by this one | person-estimates |\n|---|---|');
for (const [k, n] of [...tally.entries()].sort((p, q) => q[1] - p[1])) console.log(`| ${k} | ${n} |`);
console.log(`nearest peak within 1 m explains (median, noise energies): lost ${median(explainedLost)} (${explainedLost.length}), detected ${median(explainedKept)} (${explainedKept.length})`);
