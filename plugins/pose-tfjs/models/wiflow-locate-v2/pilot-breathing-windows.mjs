// The windows the breathing pilots read (pilot-breathing.mjs, pilot-perpacket.mjs): the shipped tracker
// replayed over a run's untracked estimates, each confirmed track's window before its confirmation at
// the confirmed position, labelled by the simulator's truth, and the groups and AUC they are scored by.
import { measurement } from './pilot-cache-file.mjs';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

/** Activities that count as a still person. */
export const STILL = new Set(['standing', 'sitting', 'lying']);
/** The q-quantile of a list (null when empty). */
export const quantile = (xs, q) => { if (!xs.length) return null; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const majority = (xs) => { const n = new Map(); for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1); return [...n.entries()].sort((a, b) => b[1] - a[1])[0]; };

/**
 * POSITION mode (pilot-breathing.mjs's primary measure): at the moment a
 * track is confirmed, the last W s of the change at its position, i.e. per estimate the links of the
 * strongest peak within 0.5 m of where it is confirmed (all zero when none): what a confirmation rule
 * could read. Every confirmed track confirmed at least W s into its run gets a measure. The samples are
 * labelled by the truth over the window (the person nearest at confirmation, within 1 m, and their activity).
 * Each window also carries the confirmed position (`x`, `y`) and the time of confirmation (`t`, s).
 */
export function positionWindowsOf(run, maxW) {
  const tracker = new PeopleTracker(run.cache.tracker, run.cache.maxPersons);
  const seen = new Set();
  const out = [];
  run.estimates.forEach((e, i) => {
    for (const t of tracker.update(e.t / 1000, e.peaks.map(measurement))) {
      if (!t.confirmed || seen.has(t.id)) continue;
      seen.add(t.id);
      const person = e.truth.map(([id, x, y]) => ({ id, d: Math.hypot(x - t.x, y - t.y) })).sort((a, b) => a.d - b.d)[0];
      const samples = [];
      for (let j = i; j >= 0 && run.estimates[j].t / 1000 > e.t / 1000 - maxW; j--) {
        const f = run.estimates[j];
        const near = f.peaks.find(([x, y]) => Math.hypot(x - t.x, y - t.y) <= 0.5);
        const who = person && person.d <= 1 ? f.truth.find(([id]) => id === person.id) : null;
        const distractor = f.distractors.map(([id, kind, x, y]) => ({ kind, d: Math.hypot(x - t.x, y - t.y) })).sort((a, b) => a.d - b.d)[0];
        samples.unshift({ t: f.t / 1000, links: near ? near.slice(5) : f.peaks[0].slice(5).map(() => 0), person: who && Math.hypot(who[1] - t.x, who[2] - t.y) <= 1 ? { id: who[0], activity: who[3] } : null, distractor: distractor && distractor.d <= 1 ? distractor.kind : null });
      }
      out.push({ id: t.id, samples, start: run.estimates[0].t / 1000, x: t.x, y: t.y, t: e.t / 1000 });
    }
  });
  return out;
}

/** The group of a window: still person (by activity), moving person, extra, or the phantom's kind. */
export function groupOf(kind, samples) {
  if (kind === 'drift') return 'drift';
  if (kind === 'fan-cat-door') { const [d, n] = majority(samples.map((s) => s.distractor)); return d && n >= samples.length / 2 ? `near ${d}` : 'far from fan, cat, door'; }
  const [id, n] = majority(samples.map((s) => s.person?.id ?? null));
  if (id === null || n < samples.length / 2) return 'extra (people room)';
  const acts = samples.filter((s) => s.person?.id === id).map((s) => s.person.activity);
  const still = acts.filter((a) => STILL.has(a)).length;
  return still >= 0.8 * samples.length ? `person still (${majority(acts)[0]})` : 'person moving';
}

/** P(score of a positive > score of a negative), ties half. */
export const auc = (pos, neg) => { if (!pos.length || !neg.length) return null; let s = 0; for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0; return s / (pos.length * neg.length); };

/** A group of still people (standing, sitting or lying). */
export const isStill = (g) => g.startsWith('person still');
/** A phantom's group: drift, near a distractor, or far from all of them. */
export const isPhantom = (g) => g === 'drift' || g.startsWith('near ') || g.startsWith('far from');
