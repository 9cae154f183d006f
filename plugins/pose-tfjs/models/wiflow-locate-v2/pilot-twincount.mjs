// Candidates of twincount-protocol.md, each fitted per room on the room's twin sessions only,
// scored on the room's own session as `wiflow locate eval` scores (evaluateSamples, pooled over
// the rooms). Replays the cached evidence of pilot-twincount-cache.mjs through the estimator's
// own count head → presences → tracker → placement (`hypothesesFromEvidence`).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-twincount.mjs <cache.json> <out.json> [S,B,M,BM,R] [train-cache.json]
// R needs the training rooms' features (pilot-twincount-train-cache.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { readPilotCache } from './pilot-cache-file.mjs';
import { hypothesesFromEvidence, PeopleTracker, loadLocatorModel, SHIPPED_LOCATOR_DIR, evaluateSamples, trainCountHead, setupBackend, fitCountBias, withCountBias, withBirthMargin, chooseBirthMargin } from '@wiflow/plugin-pose-tfjs';

const [cacheFile, out, candidatesArg, trainCacheFile] = process.argv.slice(2);
const candidates = (candidatesArg ?? 'S,B,M,BM').split(',');
const cache = readPilotCache(cacheFile);
const shipped = loadLocatorModel(SHIPPED_LOCATOR_DIR);
if (cache.hash !== shipped.hash) throw new Error(`${cacheFile} was imaged with locator ${cache.hash.slice(0, 12)}, not the shipped ${shipped.hash.slice(0, 12)}`);
const base = shipped.spec;
const maxPersons = base.imaging.maxPersons;
const cpuSeconds = (since) => { const u = process.cpuUsage(since); return (u.user + u.system) / 1e6; };

/** Samples of one session's estimates under a locator spec (a fresh tracker per session). */
function replay(spec, run, estimates) {
  const tracker = spec.tracker ? new PeopleTracker(spec.tracker, maxPersons) : null;
  return estimates.map((e) => ({
    environment: run.environment,
    truth: e.truth,
    predicted: hypothesesFromEvidence(spec, tracker, e.t / 1000, e.peaks, e.features, run.room).hypotheses,
    presenceThreshold: spec.presenceThreshold,
  }));
}
const twinSamples = (spec, run) => run.twin.flatMap((s) => replay(spec, run, s.estimates));
const countAccuracy = (samples) => evaluateSamples(samples, base.meanPose).model.all.countAccuracy;

// B and M are the product's own functions (src/locate/twin-count.ts: what `wiflow locate twin-fit` runs).
const twinEstimates = (run) => run.twin.map((session) => session.estimates.map((e) => ({ timeS: e.t / 1000, peaks: e.peaks, features: e.features, people: e.truth.length })));

const train = candidates.includes('R') ? JSON.parse(readFileSync(trainCacheFile, 'utf8')) : null;
if (train) await setupBackend();

const pooled = Object.fromEntries(candidates.map((c) => [c, []]));
const perRoom = [];
for (const run of cache.runs) {
  const row = { environmentId: run.environmentId, people: run.people, twinCpuSeconds: run.twinCpuSeconds, candidates: {} };
  for (const c of candidates) {
    const cpu = process.cpuUsage();
    let spec = base, detail = {};
    if (c === 'B' || c === 'BM') { const b = fitCountBias(base, twinEstimates(run).flat()); spec = withCountBias(base, b); detail.bias = b.map((v) => +v.toFixed(3)); }
    if (c === 'M' || c === 'BM') { const m = chooseBirthMargin(spec, twinEstimates(run), run.room); spec = withBirthMargin(spec, m.margin); detail.margin = m.margin; }
    if (c === 'R') {
      const twin = run.twin.flatMap((s) => s.estimates);
      const features = [...train.features, ...Array.from({ length: 5 }, () => twin.map((e) => e.features)).flat()];
      const counts = [...train.counts, ...Array.from({ length: 5 }, () => twin.map((e) => e.truth.length)).flat()];
      spec = { ...base, countHead: await trainCountHead(features, counts, { maxPersons, seed: 1, epochs: 2000, learningRate: 0.01 }) };
    }
    const fitCpuSeconds = cpuSeconds(cpu);
    const samples = replay(spec, run, run.own);
    pooled[c].push(...samples);
    row.candidates[c] = { ...detail, fitCpuSeconds: +fitCpuSeconds.toFixed(2), twinCountAccuracy: +countAccuracy(twinSamples(spec, run)).toFixed(3), countAccuracy: +countAccuracy(samples).toFixed(3) };
  }
  perRoom.push(row);
  process.stderr.write(`${run.environmentId} (${run.people} people): ${candidates.map((c) => `${c} ${row.candidates[c].countAccuracy}`).join(', ')}\n`);
}

const figures = {};
for (const c of candidates) {
  const model = evaluateSamples(pooled[c], base.meanPose).model;
  figures[c] = Object.fromEntries(Object.entries(model).map(([k, m]) => [k, { samples: m.samples, countAccuracy: +m.countAccuracy.toFixed(3), floorErrorM: m.floorErrorM === null ? null : +m.floorErrorM.toFixed(3) }]));
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const cost = { twinCpuSecondsPerRoom: +mean(perRoom.map((r) => r.twinCpuSeconds)).toFixed(1), fitCpuSecondsPerRoom: Object.fromEntries(candidates.map((c) => [c, +mean(perRoom.map((r) => r.candidates[c].fitCpuSeconds)).toFixed(2)])) };
writeFileSync(out, `${JSON.stringify({ cache: cacheFile, split: cache.split, model: cache.model, hash: cache.hash, twinSessions: cache.twinSessions, twinSeconds: cache.twinSeconds, rooms: cache.runs.length, figures, cost, perRoom }, null, 1)}\n`);
console.log(`| candidate | count exact all (0 / 1 / 2 / 3 people) | floor error mean all (1 / 2 / 3) m | fit CPU-s per room |`);
console.log('|---|---|---|---|');
const f = (v) => (v === null || v === undefined ? '—' : v.toFixed(3));
for (const c of candidates) {
  const m = figures[c];
  console.log(`| ${c} | ${f(m.all.countAccuracy)} (${['0', '1', '2', '3'].map((k) => f(m[k]?.countAccuracy)).join(' / ')}) | ${f(m.all.floorErrorM)} (${['1', '2', '3'].map((k) => f(m[k]?.floorErrorM)).join(' / ')}) | ${cost.fitCpuSecondsPerRoom[c]} |`);
}
console.log(`twin: ${cache.twinSessions} sessions × ${cache.twinSeconds} s per room, ${cost.twinCpuSecondsPerRoom} CPU-s per room (simulation + imaging)`);
