// Pilot (not shipped; round 3 of the reverberant body, issue 22): where does simulated walking's median amplitude
// fluctuation frequency come from? The realism table's walking capture (Intel 5300 1 × 3, 20 packets/s, the sensing
// room's 4 m link, a walk back and forth across it) is split into parts of the clean channel, each added alone to
// the static channel and read by the realism code's `dopplerStatistics` (the same row as `wiflow realism`):
//   static + shadowing      the empty room with the body's knife-edge loss only (no body paths);
//   static + <segments>     the specular tx → segment → rx paths of one group (torso, head, arms, legs);
//   static + diffuse        the body's paths through the diffuse field (C2's term: full − specular), all of them and
//                           per group (torso and head, arms, legs) moving alone, the other segments held where they
//                           were at the start (their diffuse paths then add to the static channel);
//   clean off / clean C2    every part; captured off / C2: with the radio's noise and impairments (the table's row).
// For each part: the median and 90 % frequencies and its fluctuation power (mean over streams of var / mean²), so
// the parts' weights in the sum are visible. The gait: cadence and stride of the simulated walk, each segment's
// speed and the bistatic Doppler (d/dt of |p − tx| + |p − rx|) / λ of its centre, physical and folded at 20 Hz.
// Real: the realism row's 12 walking files, per file, and their packet timing.
// Run from the repository root after a build:
//   node plugins/sim/pilot/walk_frequency.mjs [--seed n] [--speed v] [--propagation '<json>'] [--json]
// (default C2: {"reverberation":{"decayNs":22,"staticTail":false,"bodyDirections":"segment"}}).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, LinkChannel, validateScenario, applyProfile, emptyRoomScenario, dopplerStatistics, captureRateHz, bodyStateOf, bodyDimensions } from '@wiflow/plugin-sim';

// Not in the package's entry: the walk's stride (two steps, m) and what decides each segment's share of the diffuse paths.
import { strideLength as strideLengthOf } from '../dist/people/motions.js';
import { ellipsoidSurface } from '../dist/physics/reverberation.js';
import { median, readLabelled } from './real-captures.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const seed = Number(arg('--seed', 1));
const speed = Number(arg('--speed', 1.1));
const propagation = JSON.parse(arg('--propagation', '{"reverberation":{"decayNs":22,"staticTail":false,"bodyDiffuse":true,"bodyDirections":"segment"}}'));
const impairments = JSON.parse(arg('--impairments', '{}'));
const asJson = process.argv.includes('--json');
const realDir = join(process.cwd(), '..', 'shared', 'data', 'real', 'activities-intel5300');
const RATE = 20;
const SECONDS = 15;


/** The realism table's walking scenario (realism-report.ts `walkingScenario` with `intel`), at a chosen speed and seed. */
function walkingInput(prop) {
  const s = emptyRoomScenario({ durationS: SECONDS, seed });
  const input = { ...s, people: [{ id: 1, start: { x: 1.5, y: 1 }, loop: true, script: [{ action: 'walk', path: [[4.5, 4]], speed }, { action: 'walk', path: [[1.5, 1]], speed }] }] };
  const out = { ...applyProfile(input, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(input.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: RATE, txPowerDbm: 20 } };
  return { ...out, propagation: { ...(out.propagation ?? {}), ...prop }, impairments: { ...(out.impairments ?? {}), ...impairments } };
}

const asFrame = (t, re, im) => ({ timestamp: Math.round(t * 1e6), ntx: 1, nrx: 3, nsc: 30, csi: { re, im } });
/** Fluctuation power: mean over streams of var(|H|) / mean(|H|)². */
function fluctuation(frames) {
  const n = frames[0].csi.re.length;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const a = frames.map((f) => Math.hypot(f.csi.re[i], f.csi.im[i]));
    const m = a.reduce((x, y) => x + y, 0) / a.length;
    const v = a.reduce((x, y) => x + (y - m) ** 2, 0) / a.length;
    sum += m > 0 ? v / (m * m) : 0;
  }
  return sum / n;
}
/** Each packet divided by its RMS over every stream: what a per-packet AGC leaves (the Intel 5300 profile's `targetRms`). */
function agcNormalised(frames) {
  return frames.map((f) => {
    let p = 0;
    for (let i = 0; i < f.csi.re.length; i++) p += f.csi.re[i] ** 2 + f.csi.im[i] ** 2;
    const s = p > 0 ? 1 / Math.sqrt(p / f.csi.re.length) : 0;
    return { ...f, csi: { re: f.csi.re.map((v) => v * s), im: f.csi.im.map((v) => v * s) } };
  });
}
const describe = (frames, withAgc = true) => {
  const raw = { ...dopplerStatistics(frames), fluctuation: fluctuation(frames) };
  if (!withAgc) return raw;
  const n = agcNormalised(frames);
  return { ...raw, agc: { ...dopplerStatistics(n), fluctuation: fluctuation(n) } };
};

const started = process.cpuUsage();
const wall = Date.now();
const simOn = new Simulator(validateScenario(walkingInput(propagation)), { attachTruth: false });
const simOff = new Simulator(validateScenario(walkingInput({})), { attachTruth: false });
const g = simOn.linkChannel(0).geometry;
const channels = {
  full: simOn.linkChannel(0),
  specular: new LinkChannel({ ...g, reverberation: null }),
  shadowOnly: new LinkChannel({ ...g, reverberation: null, bodyScattering: false }),
  bodyNoShadow: new LinkChannel({ ...g, reverberation: null, shadowing: false }),
};
const GROUPS = { torso: ['torso'], head: ['head'], arms: ['left_upper_arm', 'right_upper_arm', 'left_forearm', 'right_forearm'], thighs: ['left_thigh', 'right_thigh'], shanks: ['left_shank', 'right_shank'] };
const size = 90;
/** Groups for the diffuse part: each moves alone while the other segments stay where they were at the capture's start. */
const DIFFUSE_GROUPS = { 'torso and head': ['torso', 'head'], arms: GROUPS.arms, legs: [...GROUPS.thighs, ...GROUPS.shanks] };
const parts = { 'static + shadowing': [], ...Object.fromEntries(Object.keys(GROUPS).map((k) => [`static + ${k} (specular)`, []])), 'static + diffuse (C2)': [], ...Object.fromEntries(Object.keys(DIFFUSE_GROUPS).map((k) => [`static + diffuse, ${k} moving alone`, []])), 'clean, off': [], 'clean, C2': [] };
const startBodies = simOn.bodiesAt(0);
const staticRe = new Float64Array(size);
const staticIm = new Float64Array(size);
channels.bodyNoShadow.compute([], staticRe, staticIm);
const lambda = 299792458 / 5.32e9;
const tx = g.txAntennas[0];
const rxc = channels.full.rxCentre;
const segmentDoppler = {};
let previous = null;
for (let k = 0; k < SECONDS * RATE; k++) {
  const t = k / RATE;
  const bodies = simOn.bodiesAt(t);
  const buf = () => [new Float64Array(size), new Float64Array(size)];
  const [fr, fi] = buf();
  channels.full.compute(bodies, fr, fi);
  const [sr, si] = buf();
  channels.specular.compute(bodies, sr, si);
  const [hr, hi] = buf();
  channels.shadowOnly.compute(bodies, hr, hi);
  parts['static + shadowing'].push(asFrame(t, hr, hi));
  parts['clean, off'].push(asFrame(t, sr, si));
  parts['clean, C2'].push(asFrame(t, fr, fi));
  const dr = Float64Array.from(staticRe, (v, i) => v + fr[i] - sr[i]);
  const di = Float64Array.from(staticIm, (v, i) => v + fi[i] - si[i]);
  parts['static + diffuse (C2)'].push(asFrame(t, dr, di));
  for (const [name, segs] of Object.entries(DIFFUSE_GROUPS)) {
    const held = bodies.map((b, i) => bodyStateOf(b.personId, b.segments.map((seg, k) => (segs.includes(seg.name) ? seg : startBodies[i].segments[k]))));
    const [ar, ai] = buf();
    const [cr, ci] = buf();
    channels.full.compute(held, ar, ai);
    channels.specular.compute(held, cr, ci);
    parts[`static + diffuse, ${name} moving alone`].push(asFrame(t, Float64Array.from(staticRe, (v, i) => v + ar[i] - cr[i]), Float64Array.from(staticIm, (v, i) => v + ai[i] - ci[i])));
  }
  for (const [name, segs] of Object.entries(GROUPS)) {
    const [br, bi] = buf();
    channels.bodyNoShadow.compute(bodies.map((b) => bodyStateOf(b.personId, b.segments.filter((s) => segs.includes(s.name)))), br, bi);
    parts[`static + ${name} (specular)`].push(asFrame(t, br, bi));
  }
  // Bistatic Doppler of each segment's centre.
  const centres = Object.fromEntries(bodies[0].segments.map((s) => [s.name, s.centre]));
  if (previous) {
    for (const [name, c] of Object.entries(centres)) {
      const p = previous[name];
      const len = (q) => Math.hypot(q.x - tx.x, q.y - tx.y, q.z - tx.z) + Math.hypot(q.x - rxc.x, q.y - rxc.y, q.z - rxc.z);
      const f = (len(c) - len(p)) * RATE / lambda;
      const v = Math.hypot(c.x - p.x, c.y - p.y, c.z - p.z) * RATE;
      (segmentDoppler[name] ??= { speed: [], doppler: [], folded: [] });
      segmentDoppler[name].speed.push(v);
      segmentDoppler[name].doppler.push(Math.abs(f));
      const folded = Math.abs(f) % RATE;
      segmentDoppler[name].folded.push(Math.min(folded, RATE - folded));
    }
  }
  previous = centres;
}
const result = { seed, speed, propagation, parts: {}, captured: {}, gait: {}, segments: {}, real: null };
for (const [name, frames] of Object.entries(parts)) result.parts[name] = describe(frames);
// The captured row (noise and impairments): the realism table's own measure.
for (const [name, sim] of [['off', simOff], ['C2', simOn]]) {
  const frames = [];
  for (const tick of sim.run(SECONDS)) frames.push(...tick.frames);
  result.captured[name] = describe(frames, false);
}
const person = validateScenario(walkingInput({})).people[0];
const dim = bodyDimensions({ height: person.height, girth: person.girth });
const stride = strideLengthOf(dim, speed);
result.gait = { heightM: dim.height, speedMs: speed, strideM: stride, cadenceStepsPerMin: (120 * speed) / stride, stepM: stride / 2, walkRatio: stride / 2 / ((120 * speed) / stride) };
{
  const segs = startBodies[0].segments;
  const total = segs.reduce((sum, g) => sum + ellipsoidSurface(g.a, g.b, g.c), 0);
  result.gait.surfaceM2 = total;
  result.gait.diffuseShare = Object.fromEntries(Object.entries(DIFFUSE_GROUPS).map(([k, names]) => [k, segs.filter((g) => names.includes(g.name)).reduce((sum, g) => sum + ellipsoidSurface(g.a, g.b, g.c), 0) / total]));
}
for (const [name, d] of Object.entries(segmentDoppler)) result.segments[name] = { speedMedian: median(d.speed), speedP90: d.speed.slice().sort((a, b) => a - b)[Math.floor(0.9 * d.speed.length)], dopplerMedianHz: median(d.doppler), foldedMedianHz: median(d.folded) };
result.simCpuS = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6;
result.simWallS = (Date.now() - wall) / 1000;

if (existsSync(realDir) && !process.argv.includes('--no-real')) {
  const files = [];
  for (const { entry: e, frames } of await readLabelled(realDir, ['walking'], 12)) {
    const gaps = [];
    for (let i = 1; i < frames.length; i++) gaps.push((frames[i].timestamp - frames[i - 1].timestamp) / 1000);
    const sorted = gaps.slice().sort((a, b) => a - b);
    files.push({ file: e.file, person: e.person, seconds: (frames.at(-1).timestamp - frames[0].timestamp) / 1e6, rateHz: captureRateHz(frames), gapMsP10: sorted[Math.floor(0.1 * sorted.length)], gapMsP90: sorted[Math.floor(0.9 * sorted.length)], ...describe(frames) });
  }
  result.real = { files, medianHz: median(files.map((f) => f.medianHz)), p90Hz: median(files.map((f) => f.p90Hz)), fluctuation: median(files.map((f) => f.fluctuation)), agc: { medianHz: median(files.map((f) => f.agc.medianHz)), p90Hz: median(files.map((f) => f.agc.p90Hz)), fluctuation: median(files.map((f) => f.agc.fluctuation)) } };
} else if (!existsSync(realDir)) {
  console.log(`real captures not found at ${realDir}: simulated parts only`);
}

if (asJson) console.log(JSON.stringify(result, null, 1));
else {
  const f = (v) => (Number.isFinite(v) ? (Math.abs(v) < 0.01 ? v.toExponential(2) : v.toFixed(3)) : '—');
  console.log(`seed ${seed}, speed ${speed} m/s, ${JSON.stringify(propagation)}; simulated part: ${result.simWallS.toFixed(1)} s wall, ${result.simCpuS.toFixed(1)} CPU-s`);
  console.log('| part | median Hz | 90 % Hz | fluctuation power | AGC-normalised: median Hz | 90 % Hz | fluctuation power |\n|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of Object.entries(result.parts)) console.log(`| ${name} | ${f(r.medianHz)} | ${f(r.p90Hz)} | ${f(r.fluctuation)} | ${f(r.agc.medianHz)} | ${f(r.agc.p90Hz)} | ${f(r.agc.fluctuation)} |`);
  for (const [name, r] of Object.entries(result.captured)) console.log(`| captured, ${name} | ${f(r.medianHz)} | ${f(r.p90Hz)} | ${f(r.fluctuation)} | | | |`);
  if (result.real) console.log(`| real walking (${result.real.files.length} files, medians) | ${f(result.real.medianHz)} | ${f(result.real.p90Hz)} | ${f(result.real.fluctuation)} | ${f(result.real.agc.medianHz)} | ${f(result.real.agc.p90Hz)} | ${f(result.real.agc.fluctuation)} |`);
  console.log(`\ngait: ${JSON.stringify(result.gait)}`);
  console.log('| segment | speed median m/s | speed p90 | bistatic Doppler median Hz | folded at 20 Hz, median |\n|---|---:|---:|---:|---:|');
  for (const [name, s] of Object.entries(result.segments)) console.log(`| ${name} | ${f(s.speedMedian)} | ${f(s.speedP90)} | ${f(s.dopplerMedianHz)} | ${f(s.foldedMedianHz)} |`);
  if (result.real) {
    console.log('\n| real file | person | s | rate Hz | gap ms p10–p90 | median Hz | 90 % Hz | fluctuation | AGC-normalised: median Hz | fluctuation |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|');
    for (const r of result.real.files) console.log(`| ${r.file} | ${r.person} | ${r.seconds.toFixed(1)} | ${r.rateHz.toFixed(1)} | ${r.gapMsP10.toFixed(0)}–${r.gapMsP90.toFixed(0)} | ${f(r.medianHz)} | ${f(r.p90Hz)} | ${f(r.fluctuation)} | ${f(r.agc.medianHz)} | ${f(r.agc.fluctuation)} |`);
  }
}
