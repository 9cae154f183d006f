// Simulate a split with a per-link empty-room reference (same room, hardware and noise process, no people).
import { readFileSync } from 'node:fs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const D = new URL('../../dist', import.meta.url).pathname;
const { DatasetPacker, saveDataset } = await import(`${D}/training/dataset.js`);
const { ModelSpecSchema, frameFeatureSize } = await import(`${D}/model/contract.js`);
const { writeLinkFeatures } = await import(`${D}/model/features.js`);
const { environmentFromScenario } = await import(`${D}/sim/environment-from-scenario.js`);
const { signalChainOptions } = await import(`${D}/sim/recipe.js`);
const { SignalChain } = await import('@wiflow/plugin-csi');
const sim = await import('@wiflow/plugin-sim');
const split = process.argv[2]; const refSeconds = Number(process.argv[3] ?? 4); const maxSessions = Number(process.argv[4] ?? Infinity);
const spec = ModelSpecSchema.parse(JSON.parse(readFileSync(new URL('../../models/wiflow-pose-v1/wiflow-model.json', import.meta.url), 'utf8')));
const recipe = { ...spec.training.dataset, ...(process.env.ROOMS ? { rooms: Number(process.env.ROOMS) } : {}), ...(process.env.SECONDS ? { secondsPerSession: Number(process.env.SECONDS) } : {}), ...(process.env.SEED ? { seed: process.env.SEED } : {}) };
const outDir = process.env.OUT ?? `${PILOT_DIR}/data`;
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === split).slice(0, maxSessions);
const packer = new DatasetPacker(spec, 2048);
const T = spec.input.frames, F = frameFeatureSize(spec), per = spec.input.antennaPairs * spec.input.subcarriers;
const references = []; // per sample: Float32Array(F) reference in normalised units (one bin)
const t0 = Date.now();
function windowsOf(scenario, seconds, env, onSample) {
  const simulator = new sim.Simulator(scenario);
  const chain = new SignalChain(signalChainOptions(recipe, env.id));
  const ready = new Map();
  for (const tick of simulator.run(seconds)) {
    for (const frame of tick.frames) for (const w of chain.push(frame)) ready.set(`${frame.link.tx}->${frame.link.rx}`, w);
    if (ready.size === env.links.length) { const ws = env.links.map((l) => ready.get(`${l.tx}->${l.rx}`)); ready.clear(); onSample(ws, tick.truth.persons); }
  }
}
let done = 0;
for (const session of sessions) {
  const env = environmentFromScenario(session.scenario);
  // Empty-room reference: mean of the features of every window of every link, over all bins.
  const ref = new Float64Array(F); let n = 0; const buf = new Float32Array(T * F);
  windowsOf({ ...session.scenario, people: [] }, refSeconds, env, (ws) => { ws.forEach((w, l) => writeLinkFeatures(w, l, spec, buf, 0)); for (let t = 0; t < T; t++) for (let f = 0; f < F; f++) ref[f] += buf[t * F + f]; n += T; });
  const refF = Float32Array.from(ref, (v) => v / Math.max(1, n));
  windowsOf(session.scenario, recipe.secondsPerSession, env, (ws, truth) => { packer.add({ environment: env, windows: ws, truth }); references.push(refF); });
  done++;
  if (done % 5 === 0) console.log(`${split} ${done}/${sessions.length} sessions ${references.length} samples ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
const data = packer.finish();
// Store the reference per sample in the geometry-free side file: arrays of [count × F].
const refs = new Float32Array(data.count * F); references.forEach((r, i) => refs.set(r, i * F));
saveDataset(`${outDir}/${split}`, data, { refSeconds });
const { writeFileSync } = await import('node:fs'); writeFileSync(`${outDir}/${split}/references.bin`, Buffer.from(refs.buffer));
console.log(`done ${split} ${data.count} samples in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
