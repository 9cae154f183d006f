// Issue 21 diagnosis, VALIDATION rooms only: where do the extra people of one-person sessions come
// from? Replays cached untracked estimates (pilot-ghosts-cache.mjs) through the shipped tracker
// (locator.json 2.2.0's settings) and, for every one-person session, pairs the true person with
// the nearest confirmed track each estimate (after the 5 s warm-up, as `wiflow eval-e2e`). Every
// other confirmed track is an extra. Per extra track: distance from the true person, the energy its
// peak explains against the real person's peak, the links that see it, how long it is shown, and
// how it was born: "lobe" (born farther than the gate, 1.2 m, from any confirmed track), "split"
// (born within the gate of the confirmed track on the person), or "linger" (a track that was the
// person's and lost it to another track).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-ghosts.mjs .ghosts/old-val.json .ghosts/births-val.json
import { readPilotCache } from './pilot-cache-file.mjs';
import { WARM_UP_SECONDS } from '@wiflow/plugin-evaluation';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const files = process.argv.slice(2);
if (!files.length) throw new Error('usage: pilot-ghosts.mjs <cache.json>...');
const quantile = (xs, q) => { if (!xs.length) return null; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const f2 = (v) => (v === null ? '—' : v.toFixed(2));
/** Sum over links of what a peak explains, in noise energies. */
const explained = (peak) => peak.slice(4).reduce((a, b) => a + b, 0);
/** Links on which a peak explains at least one noise energy. */
const links = (peak) => peak.slice(4).filter((v) => v >= 1).length;
/** The second largest of a peak's links: what it explains on its second-best link (support on two links). */
const second = (peak) => [...peak.slice(4)].sort((a, b) => b - a)[1] ?? 0;
/** What a peak explains against the estimate's strongest peak. */
const relative = (peak, peaks) => explained(peak) / Math.max(1e-9, explained(peaks[0]));
/** Cosine of two peaks' per-link explained energies: a lobe is the same change seen again, so it should spread over the links as its source does. */
const cosine = (a, b) => { const x = a.slice(4), y = b.slice(4); let xy = 0, xx = 0, yy = 0; x.forEach((v, i) => { xy += v * y[i]; xx += v * v; yy += y[i] * y[i]; }); return xy / Math.max(1e-12, Math.sqrt(xx * yy)); };
/** Real people who are not the strongest peak, in multi-person sessions: the peak nearest them (within 1 m) that is not peaks[0]. */
const others = { relative: [], second: [], cosine: [], presence: [] };
/** Per true count: confirmed track-estimates, how many are within 1 m of a true person or 0.35 m of a wall, true people with a track within 1 m. */
const byCount = new Map();
const wallShare = { extras: [], people: [] };

let estimates = 0, withExtra = 0, sessions = 0, hopS = [];
const extras = [];
/** For contrast: the real person's own peak. */
const real = { explained: [], links: [], presence: [], second: [], relative: [], strongest: 0 };
for (const file of files) {
  const cache = readPilotCache(file);
  for (const run of cache.runs) {
    if (run.kind === 'room') {
      const all = new PeopleTracker(cache.tracker, cache.maxPersons);
      const wall = (x, y) => Math.min(x, run.room.width - x, y, run.room.depth - y);
      for (const e of run.estimates) {
        const confirmed = all.update(e.t / 1000, e.peaks.map(([x, y, presence, aboveNoise]) => ({ x, y, presence, aboveNoise }))).filter((t) => t.confirmed);
        if (e.t - run.estimates[0].t < WARM_UP_SECONDS * 1000) continue;
        const n = e.truth.length, b = byCount.get(n) ?? { tracks: 0, near: 0, wall: 0, truth: 0, found: 0 };
        byCount.set(n, b);
        for (const t of confirmed) { b.tracks++; if (e.truth.some(([, x, y]) => Math.hypot(x - t.x, y - t.y) <= 1)) b.near++; if (wall(t.x, t.y) < 0.35) b.wall++; }
        for (const [, x, y] of e.truth) { b.truth++; wallShare.people.push(wall(x, y)); if (confirmed.some((t) => Math.hypot(x - t.x, y - t.y) <= 1)) b.found++; }
      }
    }
    if (run.kind === 'room' && run.estimates.some((e) => e.truth.length > 1)) {
      run.estimates.forEach((e) => {
        if (e.t - run.estimates[0].t < WARM_UP_SECONDS * 1000 || e.peaks.length < 2) return;
        for (const [, tx, ty] of e.truth) {
          let best = -1;
          e.peaks.forEach((p, i) => { if (Math.hypot(p[0] - tx, p[1] - ty) <= 1 && (best < 0 || Math.hypot(p[0] - tx, p[1] - ty) < Math.hypot(e.peaks[best][0] - tx, e.peaks[best][1] - ty))) best = i; });
          if (best <= 0) continue;
          const p = e.peaks[best];
          others.relative.push(relative(p, e.peaks)); others.second.push(second(p)); others.cosine.push(cosine(p, e.peaks[0])); others.presence.push(p[2]);
        }
      });
    }
    if (run.kind !== 'room' || !run.estimates.every((e) => e.truth.length === 1)) continue;
    sessions++;
    const tracker = new PeopleTracker(cache.tracker, cache.maxPersons);
    const start = run.estimates[0].t;
    const byId = new Map();
    let personTrack = null;
    run.estimates.forEach((e, k) => {
      if (k > 0) hopS.push((e.t - run.estimates[k - 1].t) / 1000);
      const tracks = tracker.update(e.t / 1000, e.peaks.map(([x, y, presence, aboveNoise]) => ({ x, y, presence, aboveNoise })));
      const [, tx, ty] = e.truth[0];
      const confirmed = tracks.filter((t) => t.confirmed);
      for (const t of tracks) if (!byId.has(t.id)) {
        const near = confirmed.filter((c) => c.id !== t.id).map((c) => ({ c, d: Math.hypot(c.x - t.x, c.y - t.y) })).sort((a, b) => a.d - b.d)[0];
        byId.set(t.id, { id: t.id, bornNear: near && near.d <= cache.tracker.gateM ? near.c.id : null, wasPerson: false, frames: [], run: run.id });
      }
      if (e.t - start < WARM_UP_SECONDS * 1000) return;
      estimates++;
      let person = null;
      for (const t of confirmed) if (!person || Math.hypot(t.x - tx, t.y - ty) < Math.hypot(person.x - tx, person.y - ty)) person = t;
      if (person) {
        byId.get(person.id).wasPerson = true; personTrack = person.id;
        if (person.peak >= 0) { const p = e.peaks[person.peak]; real.explained.push(explained(p)); real.links.push(links(p)); real.presence.push(p[2]); real.second.push(second(p)); real.relative.push(relative(p, e.peaks)); if (person.peak === 0) real.strongest++; }
      }
      const others = confirmed.filter((t) => t !== person);
      if (others.length) withExtra++;
      for (const t of others) {
        const p = t.peak >= 0 ? e.peaks[t.peak] : null, rp = person && person.peak >= 0 ? e.peaks[person.peak] : null;
        wallShare.extras.push(Math.min(t.x, run.room.width - t.x, t.y, run.room.depth - t.y));
        byId.get(t.id).frames.push({ d: Math.hypot(t.x - tx, t.y - ty), dTrack: person ? Math.hypot(t.x - person.x, t.y - person.y) : null, explained: p ? explained(p) : null, ratio: p && rp ? explained(p) / Math.max(1e-9, explained(rp)) : null, links: p ? links(p) : null, second: p ? second(p) : null, cosine: p ? cosine(p, e.peaks[0]) : null, relative: p ? relative(p, e.peaks) : null, presence: p ? p[2] : null, peak: t.peak, personTrack });
      }
    });
    for (const x of byId.values()) if (x.frames.length) extras.push(x);
  }
}
const hop = quantile(hopS, 0.5);
const kind = (x) => (x.wasPerson && x.frames.length && x.frames[0].personTrack !== x.id ? 'linger' : x.bornNear !== null ? 'split' : 'lobe');
const rows = ['lobe', 'split', 'linger'].map((k) => {
  const list = extras.filter((x) => kind(x) === k);
  const frames = list.flatMap((x) => x.frames);
  const v = (key) => frames.map((f) => f[key]).filter((z) => z !== null);
  return { k, tracks: list.length, estimates: frames.length, d: quantile(v('d'), 0.5), dTrack: quantile(v('dTrack'), 0.5), ratio: quantile(v('ratio'), 0.5), ratio90: quantile(v('ratio'), 0.9), explained: quantile(v('explained'), 0.5), links: quantile(v('links'), 0.5), second: quantile(v('second'), 0.5), cosine: quantile(v('cosine'), 0.5), cosine10: quantile(v('cosine'), 0.1), relative: quantile(v('relative'), 0.5), relative90: quantile(v('relative'), 0.9), noPeak: frames.filter((f) => f.peak < 0).length / Math.max(1, frames.length), presence: quantile(v('presence'), 0.5), life: quantile(list.map((x) => x.frames.length * hop), 0.5) };
});
console.log(`One-person sessions: ${sessions}; scored estimates ${estimates}; estimates with an extra person ${withExtra} (${(100 * withExtra / estimates).toFixed(0)} %). Extra tracks ${extras.length}, estimate hop ${f2(hop)} s.`);
console.log(`Real person's own peak (median): explains ${f2(quantile(real.explained, 0.5))} noise energies (p10 ${f2(quantile(real.explained, 0.1))}), ${quantile(real.links, 0.5)} links ≥ 1 noise energy, second-best link ${f2(quantile(real.second, 0.5))} (p10 ${f2(quantile(real.second, 0.1))}), against the strongest peak ${f2(quantile(real.relative, 0.5))} (p10 ${f2(quantile(real.relative, 0.1))}; the person's is the strongest peak in ${(100 * real.strongest / Math.max(1, real.relative.length)).toFixed(0)} % of estimates), presence ${f2(quantile(real.presence, 0.5))}.`);
console.log('');
console.log('| born as | tracks | extra estimates | median distance to true person / to the person\'s track m | explained energy vs the person\'s peak (median / p90) | explained, noise energies | links ≥ 1 noise energy | second-best link | per-link cosine with the strongest peak (median / p10) | against the strongest peak (median / p90) | shown without own peak | presence | median life s |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.k} | ${r.tracks} | ${r.estimates} | ${f2(r.d)} / ${f2(r.dTrack)} | ${f2(r.ratio)} / ${f2(r.ratio90)} | ${f2(r.explained)} | ${r.links ?? '—'} | ${f2(r.second)} | ${f2(r.cosine)} / ${f2(r.cosine10)} | ${f2(r.relative)} / ${f2(r.relative90)} | ${(100 * r.noPeak).toFixed(0)} % | ${f2(r.presence)} | ${f2(r.life)} |`);
const q = (xs) => `${f2(quantile(xs, 0.5))} (p10 ${f2(quantile(xs, 0.1))}, p90 ${f2(quantile(xs, 0.9))})`;
console.log('');
console.log(`For contrast, real people who are not the strongest peak (multi-person sessions, their nearest peak within 1 m, ${others.relative.length} person-estimates): against the strongest peak ${q(others.relative)}; second-best link ${q(others.second)}; per-link cosine with the strongest peak ${q(others.cosine)}; presence ${q(others.presence)}.`);
const near = (xs) => `${(100 * xs.filter((d) => d < 0.35).length / Math.max(1, xs.length)).toFixed(0)} %`;
console.log(`Within 0.35 m of a wall: ${near(wallShare.extras)} of the extras' estimates, ${near(wallShare.people)} of true people's (all sessions).`);
console.log('');
console.log('Every session with people, shipped tracker: what the confirmed tracks are, by the true count.');
console.log('');
console.log('| true people | confirmed tracks per true person | tracks within 1 m of a true person | tracks within 0.35 m of a wall | true people with a track within 1 m |');
console.log('|---|---|---|---|---|');
for (const [n, b] of [...byCount].sort((a, c) => a[0] - c[0])) if (n > 0) console.log(`| ${n} | ${(b.tracks / b.truth).toFixed(2)} | ${(100 * b.near / b.tracks).toFixed(0)} % | ${(100 * b.wall / b.tracks).toFixed(0)} % | ${(100 * b.found / b.truth).toFixed(0)} % |`);
if (process.argv.includes('--json')) console.log(JSON.stringify({ sessions, estimates, withExtra, rows }));
