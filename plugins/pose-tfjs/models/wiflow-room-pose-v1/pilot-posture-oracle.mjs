// Pilot (issue 24, 11th session, step 2): with the TRUE floor position given (oracle placement,
// no locator), does the room-pose network learn posture from CSI at all?
// The --small protocol of `wiflow eval-calibrated` (seed calibrated-1: 4 × 20 s twin sessions,
// ten 12-s labelled "minutes", one 20-s test session per count with new people and scripts),
// but every row and every scored person takes the person probe's features at the person's
// true floor position, and the skeleton is placed there. Rows: every 2nd tick (10 Hz, the
// camera's label rate), every person present (no 1-m pairing: nobody is lost to the locator).
// The network and its training settings are the shipped ones (ROOM_POSE_TRAINING), pre-trained
// on the twin, fine-tuned on the first 1, 3 and 10 labelled minutes.
// Scored beside it, on the same test people (evaluateSamples, so MPJPE, root-relative MPJPE and
// PCK@0.2 are the eval-calibrated definitions), all placed at the true position:
//   twin mean pose       the twin rows' mean (the network's own starting point);
//   labelled mean pose   the mean of the budget's labelled rows (what a network that learns no posture converges to);
//   ridge                a linear map of the same standardised features (λ = 100, fixed beforehand), twin + labelled rows;
//   activity oracle      the twin rows' mean pose per true activity (what knowing the posture class would buy; uses the truth).
// Also per true activity of the test people: root-relative MPJPE, the same with the heading
// fitted (posture up to which way the person faces), and the joints' height error.
// --encodings a,b (pilot-encodings.mjs: probe, heightProfile, twinRelative, twinRelativeProfile)
// fits and scores the network and the ridge on each encoding of the same rows (twinpose-protocol.md);
// --seed picks the room pair; --skip-loso leaves out the leave-one-session-out part.
// Usage (after the package is built), in plugins/pose-tfjs:
//   node models/wiflow-room-pose-v1/pilot-posture-oracle.mjs [--realism v2|none] [--full] [--seed calibrated-1] [--encodings probe] [--skip-loso] > out.json
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { ENCODINGS, twinStanding } from './pilot-encodings.mjs';
import { drawRoomPair, sessionScenario, protocolSessions, SMALL_PROTOCOL, FULL_PROTOCOL, simulateReference, PersonProbe, DEFAULT_PROBE, fitRoomPose, predictSkeleton, evaluateSamples, placePose, loadLocatorModel, SHIPPED_LOCATOR_DIR, ROOM_POSE_TRAINING, ROOM_POSE_MODEL_ID, BUDGETS } from '../../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const REALISM = opt('--realism', 'v2');
const sizes = args.includes('--full') ? FULL_PROTOCOL : SMALL_PROTOCOL;
const started = process.cpuUsage();
const loadBefore = os.loadavg();
const SEED = opt('--seed', 'calibrated-1');
const ENCODING_NAMES = opt('--encodings', 'probe').split(',');
const LOSO = !args.includes('--skip-loso');
const pair = { ...drawRoomPair(sim, SEED), realism: REALISM };
const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);

/** Rows of one session: probe features at each true position, targets relative to it, every 2nd tick. */
function sessionRows(plan) {
  const scenario = sessionScenario(sim, pair, plan);
  const probe = new PersonProbe(pair.environment, simulateReference(sim, scenario), DEFAULT_PROBE);
  const rows = [];
  for (const tick of new sim.Simulator(scenario).run(plan.seconds)) {
    for (const frame of tick.frames) probe.push(frame);
    // The probe needs a few packets of every link before it reads anything.
    if (tick.index % 2 !== 0 || tick.index < 10) continue;
    for (const person of tick.truth.persons) {
      const target = new Float32Array(51);
      person.keypoints3d.forEach((k, j) => { target[3 * j] = k[0] - person.position.x; target[3 * j + 1] = k[1] - person.position.y; target[3 * j + 2] = k[2]; });
      rows.push({ features: Float32Array.from(probe.features(person.position.x, person.position.y)), target, person, time: tick.truth.time, persons: tick.truth.persons });
    }
  }
  return rows;
}

const twinRows = [], labelled = [], test = [];
for (const plan of protocolSessions(sizes)) {
  const rows = sessionRows(plan);
  process.stderr.write(`${plan.role} ${plan.seed}: ${rows.length} rows\n`);
  if (plan.role === 'twin') twinRows.push(...rows);
  else if (plan.role === 'labelled') labelled.push(rows);
  else test.push(...rows);
}
const rowsOf = (list) => {
  const width = list[0].features.length;
  const features = new Float32Array(list.length * width), targets = new Float32Array(list.length * 51);
  list.forEach((r, i) => { features.set(r.features, i * width); targets.set(r.target, i * 51); });
  return { features, targets, count: list.length, width };
};
const meanOf = (list) => { const m = Array.from({ length: 17 }, () => [0, 0, 0]); for (const r of list) for (let j = 0; j < 17; j++) for (let d = 0; d < 3; d++) m[j][d] += r.target[3 * j + d] / list.length; return m; };

// Test samples: one per test row's instant, people scored at their true positions (count is trivially exact: not a figure here).
const instantsOf = (list) => {
  const instants = new Map();
  for (const r of list) { const key = `${r.time}:${r.persons.length}:${r.persons.map((p) => p.id).join(',')}`; if (!instants.has(key)) instants.set(key, []); instants.get(key).push(r); }
  return instants;
};
const score = (skeletonOf, list = test) => {
  const samples = [...instantsOf(list).values()].map((rows) => ({ environment: pair.environment, truth: rows.map((r) => r.person), predicted: rows.map((r) => ({ ...skeletonOf(r), presence: 1 })), presenceThreshold: 0.5 }));
  const report = evaluateSamples(samples, locator.spec.meanPose);
  const out = {};
  for (const k of ['1', '2', '3', 'all']) { const b = report.model[k]; if (b) out[k] = { mpjpeMm: Math.round(b.mpjpeMm), rootRelativeMpjpeMm: Math.round(b.rootRelativeMpjpeMm), pck02: +b.pck02.toFixed(3), persons: b.persons }; }
  return out;
};
/**
 * Per true activity (and 'all'): root-relative MPJPE; the same after turning the skeleton about
 * the vertical through its root to fit the truth best (posture up to heading); and the mean
 * height error of the joints (what sitting or lying changes, whatever the heading), mm.
 */
const byActivity = (skeletonOf, list = test) => {
  const out = {};
  const add = (key, rr, yawFree, height) => { const o = (out[key] ??= { rootRelativeMpjpeMm: 0, headingFreeMpjpeMm: 0, heightErrorMm: 0, persons: 0 }); o.rootRelativeMpjpeMm += rr; o.headingFreeMpjpeMm += yawFree; o.heightErrorMm += height; o.persons++; };
  for (const r of list) {
    const s = skeletonOf(r).keypoints3d, t = r.person.keypoints3d;
    const root = (k) => [0, 1, 2].map((d) => (k[11][d] + k[12][d]) / 2);
    const rs = root(s), rt = root(t);
    const ps = s.map((k) => k.map((v, d) => v - rs[d])), pt = t.map((k) => k.map((v, d) => v - rt[d]));
    let cross = 0, dot = 0;
    for (let j = 0; j < 17; j++) { cross += ps[j][0] * pt[j][1] - ps[j][1] * pt[j][0]; dot += ps[j][0] * pt[j][0] + ps[j][1] * pt[j][1]; }
    const th = Math.atan2(cross, dot), c = Math.cos(th), sn = Math.sin(th);
    let rr = 0, yawFree = 0, height = 0;
    for (let j = 0; j < 17; j++) {
      rr += Math.hypot(ps[j][0] - pt[j][0], ps[j][1] - pt[j][1], ps[j][2] - pt[j][2]) / 17;
      yawFree += Math.hypot(c * ps[j][0] - sn * ps[j][1] - pt[j][0], sn * ps[j][0] + c * ps[j][1] - pt[j][1], ps[j][2] - pt[j][2]) / 17;
      height += Math.abs(s[j][2] - t[j][2]) / 17;
    }
    add(r.person.activity, rr * 1000, yawFree * 1000, height * 1000);
    add('all', rr * 1000, yawFree * 1000, height * 1000);
  }
  for (const v of Object.values(out)) for (const k of ['rootRelativeMpjpeMm', 'headingFreeMpjpeMm', 'heightErrorMm']) v[k] = Math.round(v[k] / v.persons);
  return out;
};

// Ridge: standardised features (twin statistics), targets centred, closed form (X'X + λI)⁻¹ X'Y by Cholesky.
function fitRidge(list, twinRows, lambda = 100) {
  const n = list.length, d = list[0].features.length;
  const mu = new Float64Array(d), sd = new Float64Array(d);
  for (const r of twinRows) for (let i = 0; i < d; i++) mu[i] += r.features[i] / twinRows.length;
  for (const r of twinRows) for (let i = 0; i < d; i++) sd[i] += (r.features[i] - mu[i]) ** 2 / twinRows.length;
  for (let i = 0; i < d; i++) sd[i] = Math.sqrt(sd[i]) || 1;
  const ym = meanOf(list).flat();
  const A = new Float64Array(d * d), B = new Float64Array(d * 51);
  const z = new Float64Array(d);
  for (const r of list) {
    for (let i = 0; i < d; i++) z[i] = (r.features[i] - mu[i]) / sd[i];
    for (let i = 0; i < d; i++) { const zi = z[i]; for (let k = i; k < d; k++) A[i * d + k] += zi * z[k]; for (let o = 0; o < 51; o++) B[i * 51 + o] += zi * (r.target[o] - ym[o]); }
  }
  for (let i = 0; i < d; i++) { A[i * d + i] += lambda; for (let k = 0; k < i; k++) A[i * d + k] = A[k * d + i]; }
  // Cholesky A = L Lᵀ, then solve for each output column.
  const L = new Float64Array(d * d);
  for (let i = 0; i < d; i++) for (let k = 0; k <= i; k++) { let s = A[i * d + k]; for (let m = 0; m < k; m++) s -= L[i * d + m] * L[k * d + m]; L[i * d + k] = i === k ? Math.sqrt(s) : s / L[k * d + k]; }
  const W = new Float64Array(d * 51), y = new Float64Array(d);
  for (let o = 0; o < 51; o++) {
    for (let i = 0; i < d; i++) { let s = B[i * 51 + o]; for (let m = 0; m < i; m++) s -= L[i * d + m] * y[m]; y[i] = s / L[i * d + i]; }
    for (let i = d - 1; i >= 0; i--) { let s = y[i]; for (let m = i + 1; m < d; m++) s -= L[m * d + i] * W[m * 51 + o]; W[i * 51 + o] = s / L[i * d + i]; }
  }
  return (r) => {
    for (let i = 0; i < d; i++) z[i] = (r.features[i] - mu[i]) / sd[i];
    const out = ym.slice();
    for (let i = 0; i < d; i++) { const zi = z[i]; if (zi) for (let o = 0; o < 51; o++) out[o] += zi * W[i * 51 + o]; }
    return placePose(Array.from({ length: 17 }, (_, j) => [out[3 * j], out[3 * j + 1], out[3 * j + 2]]), r.person.position);
  };
}

const base = { format: 'wiflow-room-pose/1', modelId: ROOM_POSE_MODEL_ID, environmentId: pair.environmentId, probe: DEFAULT_PROBE, training: {} };
const network = (model) => (r) => ({ position: r.person.position, keypoints3d: predictSkeleton(model, r.features, r.person.position) });
const twinMean = meanOf(twinRows);
const activityMean = {};
for (const a of new Set(twinRows.map((r) => r.person.activity))) activityMean[a] = meanOf(twinRows.filter((r) => r.person.activity === a));
const activityOracle = (r) => placePose(activityMean[r.person.activity] ?? twinMean, r.person.position);
/** The network and the ridge fitted and scored on one encoding of the rows (every budget; the leave-one-session-out part unless --skip-loso). */
async function runEncoding(name, twinRows, labelled, test) {
  const twinFit = await fitRoomPose(rowsOf(twinRows), base, { ...ROOM_POSE_TRAINING.twin, seed: ROOM_POSE_TRAINING.seed });
  const twin = { spec: twinFit.spec, weights: twinFit.weights, hash: '(in memory)', directory: '(in memory)' };
  const budgets = {};
  for (const budget of BUDGETS) {
    const rows = labelled.slice(0, budget).flat();
    let model = twin;
    if (budget > 0) { const fit = await fitRoomPose(rowsOf(rows), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin }); model = { ...twin, spec: fit.spec, weights: fit.weights }; }
    const labelledMean = budget > 0 ? meanOf(rows) : twinMean;
    const ridge = fitRidge([...twinRows, ...rows], twinRows);
    budgets[budget] = {
      labelledRows: rows.length,
      network: score(network(model), test),
      labelledMeanPose: score((r) => placePose(labelledMean, r.person.position), test),
      ridge: score(ridge, test),
      networkByActivity: byActivity(network(model), test),
      labelledMeanPoseByActivity: byActivity((r) => placePose(labelledMean, r.person.position), test),
      ridgeByActivity: byActivity(ridge, test),
    };
    process.stderr.write(`${name} budget ${budget}: network ${JSON.stringify(budgets[budget].networkByActivity.all)} labelled mean ${JSON.stringify(budgets[budget].labelledMeanPoseByActivity.all)} ridge ${JSON.stringify(budgets[budget].ridgeByActivity.all)}\n`);
  }
  // In distribution: each labelled session left out in turn (same room, same statures 1.60–1.80 m,
  // a new script), the network fine-tuned and the ridge fitted on the other nine; errors pooled.
  // If the network loses to the mean pose even here, the features carry no posture it can use.
  const pooled = { network: [], labelledMeanPose: [], ridge: [] };
  for (let k = 0; LOSO && k < labelled.length; k++) {
    const rows = labelled.filter((_, i) => i !== k).flat(), held = labelled[k];
    const fit = await fitRoomPose(rowsOf(rows), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin });
    const model = { ...twin, spec: fit.spec, weights: fit.weights }, mean = meanOf(rows), ridge = fitRidge([...twinRows, ...rows], twinRows);
    pooled.network.push(byActivity(network(model), held).all);
    pooled.labelledMeanPose.push(byActivity((r) => placePose(mean, r.person.position), held).all);
    pooled.ridge.push(byActivity(ridge, held).all);
  }
  const pool = (list) => { const n = list.reduce((a, v) => a + v.persons, 0); const w = (k) => Math.round(list.reduce((a, v) => a + v[k] * v.persons, 0) / n); return { rootRelativeMpjpeMm: w('rootRelativeMpjpeMm'), headingFreeMpjpeMm: w('headingFreeMpjpeMm'), heightErrorMm: w('heightErrorMm'), persons: n }; };
  const leaveOneSessionOut = LOSO ? Object.fromEntries(Object.entries(pooled).map(([k, v]) => [k, pool(v)])) : null;
  if (LOSO) process.stderr.write(`labelled sessions left out in turn: ${JSON.stringify(leaveOneSessionOut)}\n`);
  return { features: twinRows[0].features.length, budgets, leaveOneSessionOut };
}

// The twin's standing prediction comes from the pair's twin room only (pilot-encodings.mjs).
const standing = ENCODING_NAMES.some((n) => n.startsWith('twin')) ? twinStanding(sim, pair, { cacheFile: `/tmp/twinpose-standing-${pair.environmentId}.json` }) : null;
const encoded = {};
for (const name of ENCODING_NAMES) {
  const encode = (r) => ({ ...r, features: ENCODINGS[name](r.features, standing?.(r.person.position.x, r.person.position.y)) });
  encoded[name] = await runEncoding(name, twinRows.map(encode), labelled.map((rows) => rows.map(encode)), test.map(encode));
}
const { budgets, leaveOneSessionOut } = encoded[ENCODING_NAMES[0]];
const u = process.cpuUsage(started);
const activities = {}; for (const r of [...twinRows, ...labelled.flat(), ...test]) { const k = twinRows.includes(r) ? 'twin' : test.includes(r) ? 'test' : 'labelled'; activities[k] ??= {}; activities[k][r.person.activity] = (activities[k][r.person.activity] ?? 0) + 1; }
console.log(JSON.stringify({
  pilot: 'posture-oracle', realism: REALISM, protocol: sizes, twinRows: twinRows.length, testPersons: test.length, activities,
  baselines: { twinMeanPose: score((r) => placePose(twinMean, r.person.position)), locatorMeanPose: score((r) => placePose(locator.spec.meanPose, r.person.position)), activityOracle: score(activityOracle), twinMeanPoseByActivity: byActivity((r) => placePose(twinMean, r.person.position)), activityOracleByActivity: byActivity(activityOracle) },
  ...(ENCODING_NAMES.length === 1 && ENCODING_NAMES[0] === 'probe' ? { budgets, leaveOneSessionOut } : { seed: SEED, encodings: encoded }), loadBefore, loadAfter: os.loadavg(), cpuSeconds: +((u.user + u.system) / 1e6).toFixed(1),
}, null, 1));
