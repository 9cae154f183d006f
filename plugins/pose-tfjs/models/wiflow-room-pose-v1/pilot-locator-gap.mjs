// Pilot (issue 24, 11th session, step 1): why does the locator place one person 1.78 m off in
// eval-calibrated's "real" room when it places one person 0.70 m off on its own test rooms?
// The locator alone (no room network) on the --small protocol's test sessions (seed
// calibrated-1, one session of 1, 2 and 3 people), changing one thing at a time:
//   realism      v2 (the protocol) | none | v2 with one effect group only (distractors, drift, radios)
//   geometry     declared (the twin's radios, 0–10 cm off per axis: what the protocol gives) | true (the real radios)
//   reference    real (the real room's empty-room reference, with its own v2 draws: what the protocol gives) | twin (the twin's)
//   seconds      20 (--small) | 60 (full); scored from 0 s or only after the first 5 s
// Every figure is floor error (mean over scored pairs, m) and count exact per true count, by the
// same scoring eval-calibrated uses (evaluateSamples, scoredPairs). Frame checks: environment id,
// room size, radio positions of the declared geometry against the real scenario, and the mean
// located and true positions (a frame or unit mismatch would show as an offset or a scale).
// Usage (after the package is built), in plugins/pose-tfjs:
//   node models/wiflow-room-pose-v1/pilot-locator-gap.mjs [--seeds calibrated-1] [--variants all] > out.json
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { drawRoomPair, environmentFromScenario, evaluateSamples, loadLocatorModel, PoseLocator, scoredPairs, SHIPPED_LOCATOR_DIR, simulateReference } from '../../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const SEEDS = opt('--seeds', 'calibrated-1').split(',');
const started = process.cpuUsage();
const loadBefore = os.loadavg();
const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const threshold = locator.spec.presenceThreshold;

const VARIANTS = {
  protocol: { realism: 'v2', geometry: 'declared', reference: 'real', seconds: 20 },
  'true-geometry': { realism: 'v2', geometry: 'true', reference: 'real', seconds: 20 },
  'realism-none': { realism: 'none', geometry: 'declared', reference: 'real', seconds: 20 },
  'realism-none-true-geometry': { realism: 'none', geometry: 'true', reference: 'real', seconds: 20 },
  'v2-distractors-only': { realism: 'v2', effects: ['distractors'], geometry: 'declared', reference: 'real', seconds: 20 },
  'v2-drift-only': { realism: 'v2', effects: ['drift'], geometry: 'declared', reference: 'real', seconds: 20 },
  'v2-radios-only': { realism: 'v2', effects: ['radios'], geometry: 'declared', reference: 'real', seconds: 20 },
  'twin-reference': { realism: 'v2', geometry: 'declared', reference: 'twin', seconds: 20 },
  'protocol-60s': { realism: 'v2', geometry: 'declared', reference: 'real', seconds: 60 },
  'realism-none-60s': { realism: 'none', geometry: 'declared', reference: 'real', seconds: 60 },
  // Drift alone, one part at a time (the others removed): the reference's own draws and AGC/timing state, furniture moved, a receiver re-plugged, the slow static drift.
  'drift-reference-state-only': { realism: 'v2', effects: ['drift'], driftParts: ['referenceSeed', 'reference'], geometry: 'declared', reference: 'real', seconds: 20 },
  'drift-moved-replugged-only': { realism: 'v2', effects: ['drift'], driftParts: ['moved', 'replugged'], geometry: 'declared', reference: 'real', seconds: 20 },
  'drift-static-only': { realism: 'v2', effects: ['drift'], driftParts: ['staticDrift'], geometry: 'declared', reference: 'real', seconds: 20 },
  'drift-static-1h': { realism: 'v2', effects: ['drift'], driftParts: ['staticDrift'], staticElapsedS: 3600, geometry: 'declared', reference: 'real', seconds: 20 },
  'drift-static-10min': { realism: 'v2', effects: ['drift'], driftParts: ['staticDrift'], staticElapsedS: 600, geometry: 'declared', reference: 'real', seconds: 20 },
};
const DRIFT_PARTS = ['referenceSeed', 'reference', 'moved', 'replugged', 'staticDrift'];
/** Drift with only `keep` of its parts (moved and replugged emptied, the others left out), and the static drift's elapsed time replaced when asked. */
function keepDrift(scenario, keep, staticElapsedS) {
  if (!keep || !scenario.drift) return scenario;
  const drift = { moved: [], replugged: [] };
  for (const part of DRIFT_PARTS) if (keep.includes(part) && scenario.drift[part] !== undefined) drift[part] = scenario.drift[part];
  if (staticElapsedS !== undefined && drift.staticDrift) drift.staticDrift = { ...drift.staticDrift, elapsedS: staticElapsedS };
  return sim.validateScenario({ ...scenario, drift });
}
const chosen = opt('--variants', 'all') === 'all' ? Object.keys(VARIANTS) : opt('--variants').split(',');

function checkFrames(pair, scenario) {
  const env = pair.environment, real = environmentFromScenario(scenario);
  const offsets = env.links.flatMap((l, i) => [
    Math.hypot(...l.txPosition.map((v, a) => v - real.links[i].txPosition[a])),
    Math.hypot(...l.rxPosition.map((v, a) => v - real.links[i].rxPosition[a])),
  ]);
  return {
    environmentId: { declared: env.id, scenario: scenario.environmentId },
    room: { declared: env.room, real: real.room },
    linkIds: { declared: env.links.map((l) => `${l.tx}>${l.rx}`), real: real.links.map((l) => `${l.tx}>${l.rx}`) },
    radioOffsetM: { max: Math.max(...offsets), mean: offsets.reduce((a, b) => a + b, 0) / offsets.length },
  };
}

function run(seed, name) {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const pair = drawRoomPair(sim, seed);
  const out = { seed, variant: name, ...v, people: {} };
  for (const count of [1, 2, 3]) {
    // The --small protocol's test session of this count (seed e<count>-0, people of 1.45–1.60 m), as sessionScenario draws it.
    const ranges = { receivers: [3, 3], rateHz: 20, people: [count, count], personHeight: [1.45, 1.6], realism: v.realism, ...(v.effects ? { realismEffects: v.effects } : {}) };
    const drawn = sim.randomScenario({ seed: `${pair.environmentId}:test:e${count}-0`, durationS: v.seconds, room: pair.real, ranges });
    const scenario = keepDrift(drawn, v.driftParts, v.staticElapsedS);
    const twinScenario = sim.randomScenario({ seed: `${pair.environmentId}:test:e${count}-0`, durationS: v.seconds, room: pair.twin, ranges: { ...ranges, realism: 'none' } });
    const environment = v.geometry === 'true' ? environmentFromScenario(scenario) : pair.environment;
    const reference = simulateReference(sim, v.reference === 'twin' ? twinScenario : scenario);
    const pose = new PoseLocator(locator, [environment], [reference], { densePose: 'none', processingMode: 'job' });
    const all = [], late = [];
    const located = { x: 0, y: 0, n: 0 }, truthMean = { x: 0, y: 0, n: 0 };
    let t0 = null;
    for (const tick of new sim.Simulator(scenario).run(v.seconds)) {
      for (const frame of tick.frames) {
        const instant = pose.locate(frame);
        if (!instant || !instant.truth) continue;
        t0 ??= instant.time;
        const sample = { environment, truth: instant.truth.persons, predicted: instant.hypotheses, presenceThreshold: threshold };
        all.push(sample);
        if (instant.time - t0 >= 5000) late.push(sample);
        for (const [truth, h] of scoredPairs(sample)) { located.x += h.position.x; located.y += h.position.y; located.n++; truthMean.x += truth.position.x; truthMean.y += truth.position.y; truthMean.n++; }
      }
    }
    const score = (samples) => { const b = evaluateSamples(samples, locator.spec.meanPose).model[String(count)]; return b ? { floorErrorM: +b.floorErrorM.toFixed(3), countExact: +b.countAccuracy.toFixed(3), samples: b.samples } : null; };
    const reported = (samples) => samples.reduce((a, s) => a + s.predicted.filter((p) => p.presence > threshold).length, 0) / Math.max(1, samples.length);
    out.people[count] = {
      all: score(all), after5s: score(late), meanReported: +reported(all).toFixed(2),
      meanLocated: located.n ? { x: +(located.x / located.n).toFixed(2), y: +(located.y / located.n).toFixed(2) } : null,
      meanTruth: truthMean.n ? { x: +(truthMean.x / truthMean.n).toFixed(2), y: +(truthMean.y / truthMean.n).toFixed(2) } : null,
    };
    if (count === 1 && name === 'protocol') out.frames = checkFrames(pair, scenario);
    if (name === 'protocol') out.people[count].distractors = (scenario.distractors ?? []).map((d) => d.kind);
    if (name === 'protocol') out.people[count].drift = scenario.drift ? { moved: scenario.drift.moved.length, replugged: scenario.drift.replugged, staticElapsedS: scenario.drift.staticDrift?.elapsedS, reference: scenario.drift.reference } : null;
  }
  process.stderr.write(`${seed} ${name}: ${[1, 2, 3].map((c) => `${c}p ${out.people[c].all?.floorErrorM} m / ${out.people[c].all?.countExact}`).join(', ')}\n`);
  return out;
}

const rows = [];
for (const seed of SEEDS) for (const name of chosen) rows.push(run(seed, name));
const u = process.cpuUsage(started);
console.log(JSON.stringify({ pilot: 'locator-gap', locator: { modelId: locator.spec.modelId, version: locator.spec.version, hash: locator.hash }, loadBefore, loadAfter: os.loadavg(), cpuSeconds: +((u.user + u.system) / 1e6).toFixed(1), rows }, null, 1));
