// Pilot (issue 24, step 4): is posture in the simulated CSI at all, as the person probe reads it?
// An upper bound: the SAME "real" room (seed calibrated-1) with realism none, one person of
// 1.75 m who stands, sits and lies still at a spot; the probe's 306 features taken at the TRUE
// floor position (no locator error); a multinomial logistic regression (standardised, L2)
// classifies standing / sitting / lying on held-out frames. Two splits:
//   spots: train on 4 spots, test on 2 other spots (same room, same radios);
//   time:  train on the first 70 % of each posture bout, test on the last 30 % (same spots).
// Then, held-out spots only, the same classifier on a second encoding chosen beforehand to take
// position out: each link's height profile (log power at each height minus that link's mean
// over the heights, per floor offset, for the power and the packet-to-packet power), without the
// distances to the radios. Where a person stands sets how much of each link's change they
// explain; posture should move that change between heights. Both encodings are scored on the
// first split and on every split of two spots left out (rotating), in the same run.
// With --twin (twinpose-protocol.md) the rotating splits also score two encodings relative to
// what the twin predicts for a standing person at the same spot (pilot-encodings.mjs), and says
// how much of the standing frames' spread the twin's prediction explains (R², a diagnostic).
// --radio-offset bounds how far each declared radio is from the real one (drawRoomPair).
// Usage (after the package is built): node models/wiflow-room-pose-v1/pilot-posture.mjs [--spots 6] [--bout 15] [--seed calibrated-1] [--twin] [--radio-offset 0.1]
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { drawRoomPair, PersonProbe, DEFAULT_PROBE, simulateReference, sessionScenario } from '../../dist/index.js';
import { ENCODINGS, heightProfile, twinStanding } from './pilot-encodings.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : fallback; };
const SPOTS = arg('--spots', 6), BOUT = arg('--bout', 15);
const SEED = args.includes('--seed') ? args[args.indexOf('--seed') + 1] : 'calibrated-1', TWIN = args.includes('--twin'), RADIO_OFFSET = arg('--radio-offset', 0.1);
const CLASSES = ['standing', 'sitting', 'lying'];
const started = process.cpuUsage();
const load = os.loadavg()[0];

const pair = { ...drawRoomPair(sim, SEED, RADIO_OFFSET), realism: 'none' };
const { width, depth } = pair.environment.room;
const prng = new sim.Prng('posture-pilot');
const rows = []; // { spot, t, x: Float32Array, y, at: true floor position }
for (let spot = 0; spot < SPOTS; spot++) {
  const base = sessionScenario(sim, pair, { role: 'labelled', seed: `posture-${spot}`, seconds: 3 * BOUT + 8, people: [1, 1], personHeight: [1.75, 1.75] });
  const start = { x: +prng.uniform(1, width - 1).toFixed(2), y: +prng.uniform(1, depth - 1).toFixed(2), yawDeg: Math.round(prng.uniform(-180, 180)) };
  const script = [{ action: 'stand', duration: BOUT }, { action: 'sit', duration: BOUT }, { action: 'stand', duration: 2 }, { action: 'lie', duration: BOUT, surfaceHeight: 0, side: 'back' }];
  const scenario = sim.validateScenario({ ...base, people: [{ id: 1, height: 1.75, start, script }] });
  const reference = simulateReference(sim, scenario);
  const probe = new PersonProbe(pair.environment, reference, DEFAULT_PROBE);
  let activity = null, since = 0;
  for (const tick of new sim.Simulator(scenario).run(3 * BOUT + 8)) {
    for (const f of tick.frames) probe.push(f);
    const person = tick.truth.persons[0];
    if (!person || tick.index % 4 !== 0) continue;
    if (person.activity !== activity) { activity = person.activity; since = tick.truth.time; }
    const y = CLASSES.indexOf(person.activity);
    // Settling into a posture takes up to 3 s: only still frames of a full bout count (not the 2-s stand between).
    if (y < 0 || tick.truth.time - since < 3000) continue;
    rows.push({ spot, t: tick.truth.time - since - 3000, x: Float32Array.from(probe.features(person.position.x, person.position.y)), y, at: person.position });
  }
}

function fit(train) {
  const d = train[0].x.length, k = CLASSES.length;
  const mean = new Float64Array(d), std = new Float64Array(d);
  for (const r of train) for (let i = 0; i < d; i++) mean[i] += r.x[i] / train.length;
  for (const r of train) for (let i = 0; i < d; i++) std[i] += (r.x[i] - mean[i]) ** 2 / train.length;
  for (let i = 0; i < d; i++) std[i] = Math.sqrt(std[i]) || 1;
  const z = (x) => Float64Array.from(x, (v, i) => (v - mean[i]) / std[i]);
  const X = train.map((r) => z(r.x));
  const W = Array.from({ length: k }, () => new Float64Array(d + 1));
  const lambda = 1e-2, lr = 0.1;
  const probs = (x) => { const s = W.map((w) => { let a = w[d]; for (let i = 0; i < d; i++) a += w[i] * x[i]; return a; }); const m = Math.max(...s); const e = s.map((v) => Math.exp(v - m)); const t = e.reduce((a, b) => a + b, 0); return e.map((v) => v / t); };
  for (let iter = 0; iter < 300; iter++) {
    const G = Array.from({ length: k }, () => new Float64Array(d + 1));
    X.forEach((x, n) => { const p = probs(x); for (let c = 0; c < k; c++) { const g = p[c] - (train[n].y === c ? 1 : 0); for (let i = 0; i < d; i++) G[c][i] += g * x[i]; G[c][d] += g; } });
    for (let c = 0; c < k; c++) for (let i = 0; i <= d; i++) W[c][i] -= lr * (G[c][i] / X.length + (i < d ? lambda * W[c][i] : 0));
  }
  return (x) => { const p = probs(z(x)); return p.indexOf(Math.max(...p)); };
}

function score(train, test) {
  const predict = fit(train);
  const confusion = CLASSES.map(() => CLASSES.map(() => 0));
  let right = 0;
  for (const r of test) { const p = predict(r.x); confusion[r.y][p]++; if (p === r.y) right++; }
  const counts = CLASSES.map((_, c) => train.filter((r) => r.y === c).length);
  const majority = counts.indexOf(Math.max(...counts));
  return { train: train.length, test: test.length, accuracy: +(right / test.length).toFixed(3), chanceMajority: +(test.filter((r) => r.y === majority).length / test.length).toFixed(3), confusion };
}

/** Every split of two spots left out: both encodings, accuracy against always guessing the commonest posture of the training spots. */
function rotatingSpots(encodings) {
  const folds = [];
  for (let a = 0; a + 1 < SPOTS; a += 2) {
    const out = new Set([a, a + 1]);
    const fold = { testSpots: [a, a + 1] };
    for (const [name, encode] of Object.entries(encodings)) {
      const encoded = rows.map((r) => ({ ...r, x: encode(r) }));
      const { accuracy, chanceMajority } = score(encoded.filter((r) => !out.has(r.spot)), encoded.filter((r) => out.has(r.spot)));
      fold[name] = accuracy;
      fold.chanceMajority = chanceMajority;
    }
    folds.push(fold);
  }
  const mean = (key) => +(folds.reduce((s, f) => s + f[key], 0) / folds.length).toFixed(3);
  return { folds, mean: Object.fromEntries([...Object.keys(encodings), 'chanceMajority'].map((k) => [k, mean(k)])) };
}

// The twin's standing prediction comes from the pair's twin room only (pilot-encodings.mjs).
const standing = TWIN ? twinStanding(sim, pair, { cacheFile: `/tmp/twinpose-standing-${pair.environmentId}${RADIO_OFFSET === 0.1 ? '' : `-offset-${RADIO_OFFSET}`}.json` }) : null;
const twinEncodings = TWIN ? Object.fromEntries(['twinRelative', 'twinRelativeProfile'].map((name) => [name, (r) => ENCODINGS[name](r.x, standing(r.at.x, r.at.y))])) : {};
/** Per quantity (change power, packet-to-packet), over the standing frames' power features: 1 − Σ(f − S)² / Σ(f − mean f)². */
function standingFit() {
  const standingRows = rows.filter((r) => CLASSES[r.y] === 'standing');
  const d = standingRows[0].x.length, mean = new Float64Array(d);
  for (const r of standingRows) for (let i = 0; i < d; i++) mean[i] += r.x[i] / standingRows.length;
  const residual = [0, 0], spread = [0, 0], perLink = DEFAULT_PROBE.heightsM.length * DEFAULT_PROBE.offsetsM.length * 2 + 2;
  for (const r of standingRows) {
    const s = standing(r.at.x, r.at.y);
    // Per link: offset, height, quantity interleaved, then 2 distances (left out).
    for (let i = 0; i < d; i++) { const k = i % perLink; if (k >= perLink - 2) continue; residual[k % 2] += (r.x[i] - s[i]) ** 2; spread[k % 2] += (r.x[i] - mean[i]) ** 2; }
  }
  return { frames: standingRows.length, r2ChangePower: +(1 - residual[0] / spread[0]).toFixed(3), r2PacketToPacket: +(1 - residual[1] / spread[1]).toFixed(3) };
}
const testSpots = new Set([SPOTS - 2, SPOTS - 1]);
const profiled = rows.map((r) => ({ ...r, x: heightProfile(r.x) }));
const boutLength = (BOUT - 3) * 1000;
const report = {
  pilot: 'posture in the probe features, upper bound (true position, realism none, one room)',
  room: pair.environmentId, spots: SPOTS, boutSeconds: BOUT, features: rows[0]?.x.length ?? 0, classes: CLASSES,
  heldOutSpots: score(rows.filter((r) => !testSpots.has(r.spot)), rows.filter((r) => testSpots.has(r.spot))),
  heldOutTime: score(rows.filter((r) => r.t < 0.7 * boutLength), rows.filter((r) => r.t >= 0.7 * boutLength)),
  heldOutSpotsHeightProfile: { features: profiled[0]?.x.length ?? 0, ...score(profiled.filter((r) => !testSpots.has(r.spot)), profiled.filter((r) => testSpots.has(r.spot))) },
  ...(TWIN ? { radioOffsetM: RADIO_OFFSET, twinStandingFit: standingFit() } : {}),
  rotatingHeldOutSpots: rotatingSpots({ probe: (r) => r.x, heightProfile: (r) => heightProfile(r.x), ...twinEncodings }),
  cpuSeconds: +((process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6).toFixed(1),
  loadAverage: `${load.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after`,
};
console.log(JSON.stringify(report, (key, value) => (key === 'confusion' ? value.map((r) => r.join(' ')) : value), 2));
