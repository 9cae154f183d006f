// Pilot (not shipped; issue 22, branch fallwidth): why the realism table's simulated fall stays above half its peak
// for 3.5 s with C2 on (10.8 s off) against 1.75 s for the real falls. The realism table's fall capture (Intel 5300
// 1 × 3, 20 packets/s, the sensing room's 4 m link, `fallScenario({ type: 'forward', lieDurationS: 6 })`, 12 s) is
// read as `fallStatistics` reads it: motion = mean over streams of std / mean of the amplitude in 1-s windows every
// 0.25 s; a window counts when it is ≥ half the peak window. For each window: the motion of the captured frames
// (noise, AGC and all: the table's own row), of parts of the clean channel (each alone: full; specular body paths
// and shadowing, i.e. C2 off; shadowing only; static + the diffuse body paths = full − specular), and what the
// body does in it (the truth's activity, head and pelvis height and speed, the fastest keypoint; sampled at 200 Hz).
// The real fall files the table reads (the first 12 labelled `fall`) are read the same way: length, seconds above
// half, and where the above-half windows sit in the file.
// Run from the repository root after a build:
//   node plugins/sim/pilot/fall_width.mjs [--propagation '<json>'] [--seed n] [--pause S] [--json] [--no-real]
// --pause S (the variant of plugins/sensing/pilot/fallwidth-protocol.md): a S-s stand between the walk and the fall,
// and the 12-s capture starts at the walk's end (standing, falling, lying: what the real fall files hold).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, LinkChannel, validateScenario, applyProfile, emptyRoomScenario, fallScenario, fallStatistics, bandShapeMotion, forwardKinematics, PersonTimeline } from '@wiflow/plugin-sim';
import { median, medianRateHz, readLabelled, streamsOf } from './real-captures.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const C2 = '{"reverberation":{"decayNs":22,"staticTail":false,"bodyDiffuse":true,"bodyDirections":"segment"}}';
const propagation = JSON.parse(arg('--propagation', C2));
const seed = arg('--seed', undefined);
const pause = Number(arg('--pause', 0));
const asJson = process.argv.includes('--json');
const SECONDS = Number(arg('--seconds', 12));
const RATE = 20;
const realDir = join(process.cwd(), '..', 'shared', 'data', 'real', 'activities-intel5300');

/** The realism table's fall input (realism-report.ts: `intel(fallScenario(...))`), with the overrides merged as it merges them. */
function fallInput() {
  const base = fallScenario({ type: 'forward', lieDurationS: 6 });
  if (pause) base.people = base.people.map((p) => ({ ...p, script: [...p.script.slice(0, 2), { action: 'stand', duration: pause }, ...p.script.slice(2)] }));
  const s = { ...applyProfile(base, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(base.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: RATE, txPowerDbm: 20 } };
  const seeded = seed === undefined ? s : { ...s, seed: Number(seed) };
  return { ...seeded, propagation: { ...(s.propagation ?? {}), ...propagation } };
}

/** `fallStatistics`' motion series: 1-s windows every quarter second, mean over streams of std / mean. */
function motionSeries(streams, rate) {
  const n = streams[0]?.length ?? 0;
  const out = [];
  for (let start = 0; start + rate <= n; start += Math.max(1, Math.round(rate / 4))) {
    let sum = 0;
    for (const s of streams) {
      const w = s.subarray(start, start + rate);
      let m = 0;
      for (const x of w) m += x;
      m /= w.length;
      let v = 0;
      for (const x of w) v += (x - m) ** 2;
      sum += m > 0 ? Math.sqrt(v / w.length) / m : 0;
    }
    out.push(sum / streams.length);
  }
  return out;
}
/** Summary of a series as `fallStatistics` gives it, plus which windows are above half (their start, s). */
function summary(series) {
  const peak = Math.max(...series);
  const above = series.map((m, i) => (m >= peak / 2 ? i / 4 : null)).filter((v) => v !== null);
  return { peak, peakOverMedian: peak / median(series), secondsAboveHalf: above.length / 4, aboveStarts: above };
}

const started = process.cpuUsage();
const wall = Date.now();
const input = validateScenario(fallInput());
// Where the capture starts: 0 (the table's capture), or the walk's end with the pause (the fall's start − the pause).
const spec = input.people[0];
const timeline = new PersonTimeline(spec, input.seed);
const fallStart = timeline.eventsBetween(-1, 100).find((e) => e.type === 'fall_start').t;
const T0 = pause ? fallStart - pause : 0;
const sim = new Simulator(input, { attachTruth: false });
const g = sim.linkChannel(0).geometry;
const parts = {
  full: sim.linkChannel(0),
  'specular + shadowing (C2 off)': new LinkChannel({ ...g, reverberation: null }),
  'shadowing only': new LinkChannel({ ...g, reverberation: null, bodyScattering: false }),
};
const size = 90;
const clean = Object.fromEntries([...Object.keys(parts), 'static + diffuse (full − specular)'].map((k) => [k, []]));
const emptyRe = new Float64Array(size);
const emptyIm = new Float64Array(size);
parts['shadowing only'].compute([], emptyRe, emptyIm);
const asFrame = (t, re, im) => ({ timestamp: Math.round(t * 1e6), ntx: 1, nrx: 3, nsc: 30, csi: { re, im } });
for (let k = 0; k < SECONDS * RATE; k++) {
  const t = T0 + k / RATE;
  const bodies = sim.bodiesAt(t);
  const got = {};
  for (const [name, ch] of Object.entries(parts)) {
    const re = new Float64Array(size);
    const im = new Float64Array(size);
    ch.compute(bodies, re, im);
    got[name] = [re, im];
    clean[name].push(asFrame(t, re, im));
  }
  const [fr, fi] = got.full;
  const [sr, si] = got['specular + shadowing (C2 off)'];
  clean['static + diffuse (full − specular)'].push(asFrame(t, Float64Array.from(emptyRe, (v, i) => v + fr[i] - sr[i]), Float64Array.from(emptyIm, (v, i) => v + fi[i] - si[i])));
}
const captured = [];
for (const tick of new Simulator(input, { attachTruth: false }).run(T0 + SECONDS)) if (tick.t >= T0) captured.push(...tick.frames);
const capturedSeries = motionSeries(streamsOf(captured), RATE);
const check = fallStatistics(captured);
const result = { propagation, seed: seed ?? null, pause, captureStartS: T0, fallStatistics: check, bandShapePeak: bandShapeMotion(captured).peak, captured: summary(capturedSeries), parts: {}, windows: [], body: [], events: [], real: null };
for (const [name, frames] of Object.entries(clean)) result.parts[name] = { ...summary(motionSeries(streamsOf(frames), RATE)), series: motionSeries(streamsOf(frames), RATE) };

// The body, per quarter second, from the scenario's own timeline (the truth); times from the capture's start.
result.events = timeline.eventsBetween(-1, T0 + SECONDS + 1).map((e) => ({ t: e.t - T0, type: e.type }));
const SUB = 200;
let prev = null;
const quarter = [];
for (let i = 0; i <= SECONDS * SUB; i++) {
  const t = i / SUB;
  const s = timeline.sample(T0 + t);
  const k = forwardKinematics(timeline.dim, s.pose);
  const q = Math.min(Math.floor(t * 4), SECONDS * 4 - 1);
  quarter[q] ??= { t: q / 4, activity: s.activity, headZ: 0, pelvisZ: 0, headSpeed: 0, pelvisSpeed: 0, fastest: 0, n: 0 };
  const row = quarter[q];
  row.headZ += k.headCentre.z;
  row.pelvisZ += k.pelvis.z;
  row.n++;
  if (prev) {
    const sp = (a, b) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z) * SUB;
    row.headSpeed = Math.max(row.headSpeed, sp(k.headCentre, prev.headCentre));
    row.pelvisSpeed = Math.max(row.pelvisSpeed, sp(k.pelvis, prev.pelvis));
    row.fastest = Math.max(row.fastest, ...k.keypoints.map((p, j) => sp(p, prev.keypoints[j])));
  }
  prev = k;
}
result.body = quarter.map((r) => ({ t: r.t, activity: r.activity, headZ: r.headZ / r.n, pelvisZ: r.pelvisZ / r.n, headSpeedMax: r.headSpeed, pelvisSpeedMax: r.pelvisSpeed, fastestKeypointMax: r.fastest }));
result.windows = capturedSeries.map((m, i) => ({ start: i / 4, captured: m, ...Object.fromEntries(Object.entries(result.parts).map(([k, p]) => [k, p.series[i]])) }));
// The realism table's walking capture (realism-report.ts `walkingScenario`), same propagation: its median window.
{
  const base = emptyRoomScenario({ durationS: 15 });
  const walk = { ...base, people: [{ id: 1, start: { x: 1.5, y: 1 }, loop: true, script: [{ action: 'walk', path: [[4.5, 4]], speed: 1.1 }, { action: 'walk', path: [[1.5, 1]], speed: 1.1 }] }] };
  const s = { ...applyProfile(walk, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(walk.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: RATE, txPowerDbm: 20 } };
  const frames = [];
  for (const tick of new Simulator(validateScenario({ ...(seed === undefined ? s : { ...s, seed: Number(seed) }), propagation: { ...(s.propagation ?? {}), ...propagation } }), { attachTruth: false }).run(15)) frames.push(...tick.frames);
  result.simWalkingMedianMotion = median(motionSeries(streamsOf(frames), RATE));
}
result.simCpuS = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6;
result.simWallS = (Date.now() - wall) / 1000;

if (existsSync(realDir) && !process.argv.includes('--no-real')) {
  const files = [];
  for (const { entry: e, frames } of await readLabelled(realDir, ['fall'], 12)) {
    const rate = medianRateHz(frames);
    const series = motionSeries(streamsOf(frames), rate);
    const s = summary(series);
    // Contiguous runs of above-half windows: one burst or several.
    const runs = [];
    for (const a of s.aboveStarts) (runs.length && a - runs.at(-1)[1] <= 0.25 ? (runs.at(-1)[1] = a) : runs.push([a, a]));
    files.push({ file: e.file, seconds: (frames.at(-1).timestamp - frames[0].timestamp) / 1e6, rate, peak: s.peak, peakOverMedian: s.peakOverMedian, secondsAboveHalf: s.secondsAboveHalf, runs, check: fallStatistics(frames).secondsAboveHalf, series });
  }
  // Real walking, the same motion series: how strong a walk is against a fall's peak (median window per file).
  const walkMedians = (await readLabelled(realDir, ['walking'], 12)).map(({ frames }) => median(motionSeries(streamsOf(frames), 20)));
  result.realWalkingMedianMotion = median(walkMedians);
  result.real = { files, peak: median(files.map((f) => f.peak)), secondsAboveHalf: median(files.map((f) => f.secondsAboveHalf)), peakOverMedian: median(files.map((f) => f.peakOverMedian)), seconds: median(files.map((f) => f.seconds)) };
} else if (!existsSync(realDir)) {
  console.log(`real captures not found at ${realDir}: simulated capture only`);
}

if (asJson) console.log(JSON.stringify(result, null, 1));
else {
  const f = (v, d = 3) => (Number.isFinite(v) ? v.toFixed(d) : '—');
  console.log(`${JSON.stringify(propagation)} seed ${seed ?? 'scenario'}; ${result.simWallS.toFixed(1)} s wall, ${result.simCpuS.toFixed(1)} CPU-s`);
  console.log(`capture from ${T0.toFixed(2)} s; fallStatistics (the table's rows): ${JSON.stringify(check)}; band-shape peak ${f(result.bandShapePeak)}; events ${JSON.stringify(result.events)}`);
  const names = ['captured', ...Object.keys(result.parts)];
  console.log(`| window start s | activity | head z m | pelvis z m | head max m/s | pelvis max m/s | fastest kp m/s | ${names.join(' | ')} |`);
  console.log(`|---|---|---:|---:|---:|---:|---:|${names.map(() => '---:').join('|')}|`);
  const peaks = { captured: result.captured.peak, ...Object.fromEntries(Object.entries(result.parts).map(([k, p]) => [k, p.peak])) };
  for (const w of result.windows) {
    // The body over the window's second: the quarter at its middle for activity and heights, the maxima over it for speeds.
    const qs = result.body.filter((b) => b.t >= w.start && b.t < w.start + 1);
    const mid = qs[2] ?? qs.at(-1);
    const mark = (k) => `${f(w[k])}${w[k] >= peaks[k] / 2 ? ' *' : ''}`;
    console.log(`| ${w.start.toFixed(2)} | ${mid.activity} | ${f(mid.headZ, 2)} | ${f(mid.pelvisZ, 2)} | ${f(Math.max(...qs.map((q) => q.headSpeedMax)), 2)} | ${f(Math.max(...qs.map((q) => q.pelvisSpeedMax)), 2)} | ${f(Math.max(...qs.map((q) => q.fastestKeypointMax)), 2)} | ${names.map(mark).join(' | ')} |`);
  }
  console.log('(* = at least half the peak window of its column)');
  for (const [k, p] of Object.entries({ captured: result.captured, ...result.parts })) console.log(`${k}: peak ${f(p.peak)}, peak/median ${f(p.peakOverMedian, 2)}, seconds above half ${p.secondsAboveHalf}`);
  if (result.real) {
    console.log(`\nwalking, median window: simulated ${f(result.simWalkingMedianMotion)} (${f(result.simWalkingMedianMotion / result.captured.peak, 2)} of the simulated fall's peak), real ${f(result.realWalkingMedianMotion)} (${f(result.realWalkingMedianMotion / result.real.peak, 2)} of the real falls' median peak)`);
    console.log(`\nreal falls: median seconds above half ${result.real.secondsAboveHalf}, peak/median ${f(result.real.peakOverMedian, 2)}, file length median ${f(result.real.seconds, 1)} s`);
    console.log('| file | s | rate | peak | peak/median | s above half | above-half runs (window starts, s) |\n|---|---:|---:|---:|---:|---:|---|');
    for (const r of result.real.files) console.log(`| ${r.file} | ${f(r.seconds, 1)} | ${r.rate} | ${f(r.peak)} | ${f(r.peakOverMedian, 2)} | ${r.secondsAboveHalf} | ${r.runs.map(([a, b]) => `${a}–${b}`).join(', ')} |`);
  }
}
