// Pilot (not shipped; pilot/realfall2sim-protocol.md): the shipped velocity-profile fall detector, fitted on real
// Intel 5300 falls, run with no refit on the simulated evaluation's falls-row sessions (still, empty, fall, fall-like)
// of validation rooms, with the reverberant body off or on (C2, `--c2`), and scored by the evaluation's own code.
// Each frame goes to a `LinkSensor` as a copy whose `format` reads `intel5300`: the only gate that keeps simulated
// links (Intel 5300-shaped, 1 × 3, 30 subcarriers) off the profile path, so the product's path runs unchanged
// (chain-order repair, the detector, falls in the link's seconds, `combineRoomSecond`, `scoreSimRuns`).
// Besides the shipped threshold it records every judged event (`onProfileEvent`) and the link second its fall would
// land in, so a threshold sweep (information) rescores the same seconds; at the shipped threshold the rebuilt seconds
// must equal the product's (checked for every session).
// Run from the repository root after a build:
//   node plugins/sensing/pilot/realfall2sim.mjs OUT.json [--c2] [--first 192] [--rooms 12] [--kinds fall,...] [--no-demo]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadScenario, Simulator, validateScenario } from '@wiflow/plugin-sim';
import { combineRoomSecond, DEFAULT_SENSING_MODELS, FallTruth, LinkSensor, scoreSimRuns, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const arg = (name) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : null);
const outFile = process.argv[2];
const c2 = process.argv.includes('--c2');
const first = Number(arg('--first') ?? 192);
const count = Number(arg('--rooms') ?? 12);
const kinds = arg('--kinds')?.split(',') ?? ['still', 'empty', 'fall', 'fall-like'];
if (!outFile || outFile.startsWith('--')) throw new Error('usage: realfall2sim.mjs OUT.json [--c2] [--first N] [--rooms N] [--kinds K,...] [--no-demo]');
const THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.77, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99];
// `--plumbing T` runs the product's detector at threshold T instead of the shipped one: a check, on used rooms, that
// the rebuilt seconds match the product's when falls are raised (the shipped threshold raises few). Never for figures.
const plumbing = arg('--plumbing');
const models = plumbing === null ? DEFAULT_SENSING_MODELS : { ...DEFAULT_SENSING_MODELS, profileFall: { ...DEFAULT_SENSING_MODELS.profileFall, threshold: Number(plumbing) } };
const shipped = models.profileFall.threshold;
const config = SensingConfigSchema.parse({});
const configHash = sensingConfigHash(config, models);
const FALL_MATCH = { before: 2, after: 3 }; // sim-eval.ts's window, for labelling events (information only)
const matches = (t, w) => t >= w.start - FALL_MATCH.before && t <= w.end + FALL_MATCH.after;
const withC2 = (scenario) => (c2 ? validateScenario({ ...scenario, propagation: { ...scenario.propagation, ...C2 } }, scenario.name) : scenario);

/** Simulate one session and sense every link through the profile path; the link seconds carry the events judged into them. */
function sense(session) {
  const sim = new Simulator(withC2(session.scenario));
  const start = sim.startTimeMs;
  const links = new Map();
  const fallTruth = new FallTruth(start);
  const { falls, fallLike } = fallTruth;
  const assign = (entry, out) => {
    for (const f of out) f.events = [];
    if (out.length && entry.pending.length) out[0].events = entry.pending.splice(0);
    entry.frames.push(...out);
  };
  for (const tick of sim.run(session.seconds)) {
    fallTruth.add(tick.truth.events);
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let entry = links.get(key);
      if (!entry) {
        entry = { key, originMs: frame.time, frames: [], pending: [], events: [] };
        const e = entry;
        e.sensor = new LinkSensor(frame.link, {
          environmentId: session.scenario.environmentId, config, models, configHash,
          onProfileEvent: (event) => {
            const judged = { link: key, t: (e.originMs - start) / 1000 + event.second, time: e.originMs + event.second * 1000, probability: event.probability };
            e.pending.push(judged);
            e.events.push(judged);
          },
        });
        links.set(key, entry);
      }
      assign(entry, entry.sensor.push({ ...frame, format: 'intel5300' }));
    }
  }
  for (const entry of links.values()) {
    const out = entry.sensor.finish();
    // `finish` puts the detector's last falls in its last second: events judged in it land there.
    for (const f of out) f.events = [];
    if (out.length && entry.pending.length) out[out.length - 1].events = entry.pending.splice(0);
    entry.frames.push(...out);
  }
  return { start, links: [...links.values()], falls, fallLike };
}

/** The `SimSessionRun` fields `scoreSimRuns`' falls rows read, with the link seconds' falls at `threshold` (null: the product's own). */
function runAt(session, sensed, threshold) {
  const bySecond = new Map();
  for (const entry of sensed.links) for (const f of entry.frames) {
    const frame = threshold === null ? f : { ...f, falls: f.events.filter((e) => e.probability >= threshold).map((e) => ({ time: e.time, confidence: e.probability })) };
    bySecond.set(f.second, [...(bySecond.get(f.second) ?? []), frame]);
  }
  const room = [...bySecond.keys()].sort((a, b) => a - b).map((s) => combineRoomSecond(bySecond.get(s)));
  return { session, room, links: [], present: [], moving: [], falls: sensed.falls, fallLike: sensed.fallLike, breathingTruth: [], motionRows: [], candidates: [] };
}

const fallsRows = (runs) => Object.fromEntries(scoreSimRuns(runs).filter((r) => r.name.startsWith('falls')).map((r) => [r.name, { value: r.value, detail: r.detail }]));

/** Mann–Whitney AUC of positives over negatives (ties half). */
function auc(pos, neg) {
  if (!pos.length || !neg.length) return null;
  let sum = 0;
  for (const p of pos) for (const n of neg) sum += p > n ? 1 : p === n ? 0.5 : 0;
  return Math.round((sum / pos.length / neg.length) * 1000) / 1000;
}

const clock = { wall: Date.now(), cpu: process.cpuUsage(), load: loadavg()[0] };
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: first + count }).filter((s) => s.room >= first && kinds.includes(s.kind));
const byThreshold = new Map([[null, []], ...THRESHOLDS.map((t) => [t, []])]);
const movements = []; // per truth fall / fall-like movement: the highest probability of any link's event in its window
const others = []; // every event outside any truth window, by session kind
let mismatches = 0;
for (const session of sessions) {
  const sensed = sense(session);
  for (const [t, runs] of byThreshold) runs.push(runAt(session, sensed, t));
  // Self-check: at the shipped threshold the rebuilt link seconds carry exactly the product's falls.
  for (const entry of sensed.links) for (const f of entry.frames) {
    const rebuilt = f.events.filter((e) => e.probability >= shipped).map((e) => e.time).join(',');
    if (rebuilt !== f.falls.map((x) => x.time).join(',')) mismatches++;
  }
  const events = sensed.links.flatMap((e) => e.events);
  for (const [kind, windows] of [['fall', sensed.falls], ['fall-like', sensed.fallLike]]) for (const w of windows) {
    const inside = events.filter((e) => matches(e.t, w));
    movements.push({ kind, detail: w.kind, room: session.room, session: session.detail, events: inside.length, probability: inside.length ? Math.max(...inside.map((e) => e.probability)) : 0 });
  }
  for (const e of events) if (![...sensed.falls, ...sensed.fallLike].some((w) => matches(e.t, w))) others.push({ kind: session.kind, detail: session.detail, room: session.room, t: e.t, probability: e.probability });
  console.error(`${session.scenario.name}: ${sensed.links.length} links, ${events.length} events, max p ${events.length ? Math.max(...events.map((e) => e.probability)).toFixed(3) : '—'}`);
}
const cpu = process.cpuUsage(clock.cpu);
const out = {
  c2, rooms: [first, first + count - 1], kinds, sessions: sessions.length, seconds: sessions.reduce((a, s) => a + s.seconds, 0), threshold: shipped,
  wallS: (Date.now() - clock.wall) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, load: [clock.load, loadavg()[0]], selfCheckMismatches: mismatches,
  shipped: fallsRows(byThreshold.get(null)),
  sweep: THRESHOLDS.map((t) => ({ threshold: t, ...fallsRows(byThreshold.get(t)) })),
};
const fallP = movements.filter((m) => m.kind === 'fall').map((m) => m.probability);
out.auc = {
  ...Object.fromEntries(['sit-hard', 'lie-down', 'into-bed'].map((k) => [`fall vs ${k}`, auc(fallP, movements.filter((m) => m.kind === 'fall-like' && m.detail === k).map((m) => m.probability))])),
  'fall vs all fall-like': auc(fallP, movements.filter((m) => m.kind === 'fall-like').map((m) => m.probability)),
  ...Object.fromEntries(['fall', 'fall-like', 'still', 'empty'].map((k) => [`fall vs other events in ${k} sessions`, auc(fallP, others.filter((o) => o.kind === k).map((o) => o.probability))])),
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : null; };
out.groups = {
  ...Object.fromEntries(['fall', 'sit-hard', 'lie-down', 'into-bed'].map((k) => {
    const m = movements.filter((x) => (k === 'fall' ? x.kind === 'fall' : x.detail === k));
    return [k, { n: m.length, withEvent: m.filter((x) => x.events).length, medianP: median(m.map((x) => x.probability)), atShipped: m.filter((x) => x.probability >= shipped).length }];
  })),
  ...Object.fromEntries(['fall', 'fall-like', 'still', 'empty'].map((k) => {
    const o = others.filter((x) => x.kind === k);
    return [`other events in ${k} sessions`, { n: o.length, medianP: median(o.map((x) => x.probability)), atShipped: o.filter((x) => x.probability >= shipped).length }];
  })),
};
out.movements = movements;
out.others = others;
if (!process.argv.includes('--no-demo')) {
  const scenario = loadScenario(join(import.meta.dirname, '../../../examples/scenarios/home-monitored.yaml'));
  const demo = { split: 'validation', room: -1, kind: 'fall', detail: 'demo home', scenario, seconds: 170, breathingBpm: null };
  const sensed = sense(demo);
  out.demo = { falls: sensed.falls.length, shipped: fallsRows([runAt(demo, sensed, null)]), events: sensed.links.flatMap((e) => e.events).map((e) => [Math.round(e.t * 10) / 10, Math.round(e.probability * 1000) / 1000]), truth: sensed.falls.map((w) => [w.start, w.end]) };
}
writeFileSync(outFile, JSON.stringify(out, null, 1));
console.error(`C2 ${c2 ? 'on' : 'off'}, rooms ${first}–${first + count - 1}: ${out.sessions} sessions, ${out.seconds} s; ${out.wallS.toFixed(0)} s wall, ${out.cpuS.toFixed(0)} CPU-s (sessions only), load ${out.load.map((l) => l.toFixed(1)).join(' → ')}; self-check mismatches ${mismatches}`);
for (const [name, r] of Object.entries(out.shipped)) console.error(`  ${name}: ${r.value} (${r.detail})`);
console.error(`  AUC ${JSON.stringify(out.auc)}`);
for (const s of out.sweep) console.error(`  sweep ${s.threshold}: ${s['falls: sensitivity'].detail.split(';')[0]}, ${s['falls: false alarms per day'].value} per day`);
if (out.demo) console.error(`  demo home: ${JSON.stringify(out.demo.shipped)}`);
