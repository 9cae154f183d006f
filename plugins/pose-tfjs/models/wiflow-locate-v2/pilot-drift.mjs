// Pilot (issue 21, 12th session, step 1): which part of realism v2's drift (the difference
// between the empty-room reference and the recording) makes the locator report phantom people?
// VALIDATION rooms only: the first 4 sessions of the val split, 12 s each (the --small selection),
// drawn with `--realism v2 --realism-effects drift` (everything else as realism none), and the
// drift cut to one part at a time:
//   none            drift removed (the room as realism none draws it)
//   all             drift as drawn
//   ref-seed        only the reference's own per-packet draws (noise, timing offsets, loss)
//   ref-agc         only the reference's AGC state (agcOffsetDb)
//   ref-timing      only the reference's mean timing offset
//   replug          the first receiver re-plugged (forced here: the draw re-plugs 15 % of receivers)
//   moved           furniture moved as drawn (30 % of rooms draw a move)
//   static          the slow static drift as drawn (10 min to a day after the reference)
// Per variant: (a) the room EMPTY for 12 s: people reported per estimate (phantoms) and, per link,
// the recording's change against the reference in noise floors of the reference (per value):
//   total   mean |change|² over packets
//   static  |mean change|² (the part that stays the same for 12 s: a static mismatch)
//   afterChainGain  static part left after fitting one complex gain per receive chain to the
//                   mean recording (what a per-chain gain/phase re-alignment would remove)
//   afterLongMean   mean over packets of |change − its 12 s mean|² (what a background that
//                   follows the static channel would leave: noise only when the drift is static)
// (b) the room with its people: count exact, people reported for the truth, floor error (the
// locator's own scoring, evaluateSamples).
// Usage (package built), in plugins/pose-tfjs:
//   node models/wiflow-locate-v2/pilot-drift.mjs [--sessions N] [--seconds S] [--variants a,b] [--model DIR] > models/wiflow-locate-v2/pilot-drift.json
// (--model: another locator folder, e.g. a drift2-protocol.md candidate; the link statistics do not depend on it).
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { alignPacket, environmentFromScenario, evaluateSamples, loadLocatorModel, PoseLocator, SHIPPED_LOCATOR_DIR, simulateReference, withRealism } from '../../dist/index.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const SESSIONS = Number(opt('--sessions', '4'));
const SECONDS = Number(opt('--seconds', '12'));
const started = process.cpuUsage();
const loadBefore = os.loadavg();
const locator = loadLocatorModel(opt('--model', SHIPPED_LOCATOR_DIR));
const threshold = locator.spec.presenceThreshold;
const recipe = withRealism(DatasetRecipeSchema.parse(locator.spec.training.dataset ?? {}), 'v2', ['drift']);
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val').slice(0, SESSIONS);

const VARIANTS = {
  none: () => undefined,
  all: (d) => d,
  'ref-seed': (d) => ({ referenceSeed: d.referenceSeed, moved: [], replugged: [] }),
  'ref-agc': (d) => ({ reference: { agcOffsetDb: d.reference?.agcOffsetDb ?? 0 }, moved: [], replugged: [] }),
  'ref-timing': (d) => ({ reference: { timingOffsetMeanNs: d.reference?.timingOffsetMeanNs }, moved: [], replugged: [] }),
  replug: (d, s) => ({ moved: [], replugged: [s.radios.find((r) => r.role === 'rx').id] }),
  moved: (d) => ({ moved: d.moved, replugged: [] }),
  static: (d) => ({ moved: [], replugged: [], staticDrift: d.staticDrift }),
};
const chosen = opt('--variants', 'all') === 'all' ? Object.keys(VARIANTS) : opt('--variants').split(',');

function withDrift(scenario, name) {
  const drift = VARIANTS[name](scenario.drift, scenario);
  const { drift: _old, ...rest } = scenario;
  return sim.validateScenario(drift ? { ...rest, drift } : rest);
}

/** Per-link change statistics of an empty room against its reference (noise floors per value). */
function linkStats(scenario, reference) {
  const acc = new Map();
  for (const tick of new sim.Simulator({ ...scenario, people: [] }).run(SECONDS)) {
    for (const f of tick.frames) {
      const key = `${f.link.tx}->${f.link.rx}`;
      const ref = reference.links.find((l) => l.tx === f.link.tx && l.rx === f.link.rx);
      const h0 = { re: Float64Array.from(ref.re), im: Float64Array.from(ref.im) };
      const a = alignPacket(f.csi, h0, Int16Array.from(ref.subcarriers), { nrx: ref.nrx, gain: ref.gain });
      let s = acc.get(key);
      if (!s) { s = { ref, h0, n: h0.re.length, packets: [], sumRe: new Float64Array(h0.re.length), sumIm: new Float64Array(h0.re.length), sumAlRe: new Float64Array(h0.re.length), sumAlIm: new Float64Array(h0.re.length) }; acc.set(key, s); }
      const dr = new Float64Array(s.n), di = new Float64Array(s.n);
      for (let j = 0; j < s.n; j++) { dr[j] = a.re[j] - h0.re[j]; di[j] = a.im[j] - h0.im[j]; s.sumRe[j] += dr[j]; s.sumIm[j] += di[j]; s.sumAlRe[j] += a.re[j]; s.sumAlIm[j] += a.im[j]; }
      s.packets.push({ dr, di });
    }
  }
  const out = {};
  for (const [key, s] of acc) {
    const P = s.packets.length, np = s.ref.noisePower, n = s.n, nsc = s.ref.subcarriers.length, nrx = s.ref.nrx;
    let total = 0, fluct = 0, stat = 0;
    const mr = s.sumRe.map((v) => v / P), mi = s.sumIm.map((v) => v / P);
    for (const p of s.packets) for (let j = 0; j < n; j++) { total += p.dr[j] ** 2 + p.di[j] ** 2; fluct += (p.dr[j] - mr[j]) ** 2 + (p.di[j] - mi[j]) ** 2; }
    for (let j = 0; j < n; j++) stat += mr[j] ** 2 + mi[j] ** 2;
    // One complex gain per receive chain fitted to the mean recording: mean aligned ≈ c_r · h0.
    const cr = new Float64Array(nrx), ci = new Float64Array(nrx), cd = new Float64Array(nrx);
    for (let j = 0; j < n; j++) { const c = Math.floor(j / nsc) % nrx, ar = s.sumAlRe[j] / P, ai = s.sumAlIm[j] / P; cr[c] += ar * s.h0.re[j] + ai * s.h0.im[j]; ci[c] += ai * s.h0.re[j] - ar * s.h0.im[j]; cd[c] += s.h0.re[j] ** 2 + s.h0.im[j] ** 2; }
    let afterChain = 0;
    for (let j = 0; j < n; j++) {
      const c = Math.floor(j / nsc) % nrx, gr = cr[c] / cd[c], gi = ci[c] / cd[c];
      const ar = s.sumAlRe[j] / P, ai = s.sumAlIm[j] / P;
      afterChain += (ar - (gr * s.h0.re[j] - gi * s.h0.im[j])) ** 2 + (ai - (gr * s.h0.im[j] + gi * s.h0.re[j])) ** 2;
    }
    const chainGains = Array.from(cr, (v, c) => ({ db: +(10 * Math.log10((v * v + ci[c] ** 2) / cd[c] ** 2)).toFixed(2), deg: +((Math.atan2(ci[c], v) * 180) / Math.PI).toFixed(1) }));
    out[key] = { gain: s.ref.gain, total: +(total / P / n / np).toFixed(2), static: +(stat / n / np).toFixed(2), afterChainGain: +(afterChain / n / np).toFixed(2), afterLongMean: +(fluct / P / n / np).toFixed(2), chainGains };
  }
  return out;
}

function locate(scenario, reference, people) {
  const environment = environmentFromScenario(scenario);
  const pose = new PoseLocator(locator, [environment], [reference], { densePose: 'none', processingMode: 'job' });
  const samples = [];
  let reported = 0, estimates = 0;
  for (const tick of new sim.Simulator(people ? scenario : { ...scenario, people: [] }).run(SECONDS)) {
    for (const frame of tick.frames) {
      const instant = pose.locate(frame);
      if (!instant) continue;
      estimates++;
      reported += instant.hypotheses.filter((h) => h.presence > threshold).length;
      if (people && instant.truth) samples.push({ environment, truth: instant.truth.persons, predicted: instant.hypotheses, presenceThreshold: threshold });
    }
  }
  const meanReported = estimates ? +(reported / estimates).toFixed(2) : null;
  if (!people) return { meanReported };
  const r = evaluateSamples(samples, locator.spec.meanPose).model;
  const key = String(scenario.people.length);
  return { meanReported, truth: scenario.people.length, countExact: r[key] ? +r[key].countAccuracy.toFixed(3) : null, floorErrorM: r[key]?.floorErrorM != null ? +r[key].floorErrorM.toFixed(3) : null, samples: samples.length };
}

const rows = [];
for (const session of sessions) {
  const drawn = sim.validateScenario(session.scenario);
  for (const name of chosen) {
    const scenario = withDrift(drawn, name);
    const reference = simulateReference(sim, scenario);
    const row = { session: session.sessionId, variant: name, drift: scenario.drift ?? null, links: linkStats(scenario, reference), empty: locate(scenario, reference, false), occupied: locate(scenario, reference, true) };
    const l = Object.values(row.links);
    const med = (k) => { const v = l.map((x) => x[k]).sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; };
    process.stderr.write(`${session.sessionId} ${name}: empty ${row.empty.meanReported} people; ${row.occupied.truth} people → ${row.occupied.meanReported} reported, count ${row.occupied.countExact}, ${row.occupied.floorErrorM} m; link median total ${med('total')} static ${med('static')} afterChainGain ${med('afterChainGain')} afterLongMean ${med('afterLongMean')}\n`);
    rows.push(row);
  }
}
// Means over sessions per variant.
const summary = {};
for (const name of chosen) {
  const r = rows.filter((x) => x.variant === name);
  const mean = (f) => { const v = r.map(f).filter((x) => x != null); return v.length ? +(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3) : null; };
  const linkMedian = (k) => mean((x) => { const v = Object.values(x.links).map((y) => y[k]).sort((a, b) => a - b); return v[Math.floor(v.length / 2)]; });
  summary[name] = { emptyReported: mean((x) => x.empty.meanReported), countExact: mean((x) => x.occupied.countExact), floorErrorM: mean((x) => x.occupied.floorErrorM), reportedMinusTruth: mean((x) => x.occupied.meanReported - x.occupied.truth), linkTotal: linkMedian('total'), linkStatic: linkMedian('static'), linkAfterChainGain: linkMedian('afterChainGain'), linkAfterLongMean: linkMedian('afterLongMean') };
}
const u = process.cpuUsage(started);
console.log(JSON.stringify({ pilot: 'drift', split: 'val', sessions: sessions.length, seconds: SECONDS, locator: { modelId: locator.spec.modelId, version: locator.spec.version, hash: locator.hash }, loadBefore, loadAfter: os.loadavg(), cpuSeconds: +((u.user + u.system) / 1e6).toFixed(1), summary, rows }, null, 1));
