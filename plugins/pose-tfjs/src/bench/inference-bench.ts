// Inference benchmark: windows/s of the pose model on one core with the WASM backend, at
// batch 1 and 32, next to a reference 250k-parameter conv1d model measured in the same run.
// Each figure is given per wall-clock second and per CPU-second of this process
// (process.cpuUsage): the WASM backend runs on one thread, so per CPU-second is the one-core
// figure and stays meaningful when other processes share the machine.
// Usage: node dist/bench/inference-bench.js [--model <dir>] [--seconds <s>] [--json] [--locator-only] [--room-only]
import { existsSync } from 'node:fs';
import os from 'node:os';
import * as tf from '@tensorflow/tfjs';
import { setupBackend } from '../backend/backend.js';
import { buildPoseNetwork } from '../model/architecture.js';
import { frameFeatureSize, geometryFeatureSize, readModelSpec, POSE_CONTRACT, type ModelSpec } from '../model/contract.js';
import { PoseModel, SHIPPED_MODEL_DIR } from '../model/pose-model.js';
import { PoseEstimator } from '../model/pose-estimator.js';
import { defaultCamera, type EnvironmentGeometry } from '../model/environment.js';
import { LOCATOR_JSON, loadLocatorModel, SHIPPED_LOCATOR_DIR } from '../locate/locator-model.js';
import { PoseLocator } from '../locate/locator.js';
import { simulateReference } from '../locate/simulated.js';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import { mulberry32, type CsiFrame } from '@wiflow/core';
import type { EmptyRoomReference } from '../locate/reference.js';
import { DEFAULT_PROBE, probeFeatureSize } from '../room-pose/person-probe.js';
import { RoomPoseEstimator } from '../room-pose/room-pose-estimator.js';
import { ROOM_POSE_MODEL_ID, type RoomPoseModel } from '../room-pose/room-pose-model.js';

const args = process.argv.slice(2);
const arg = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const seconds = Number(arg('--seconds') ?? 3);
const modelDir = arg('--model') ?? SHIPPED_MODEL_DIR;

/** The reference of the issue: a plain 250k-parameter conv1d network on one link window. */
function referenceConv1d(frames: number, channels: number): tf.LayersModel {
  const input = tf.input({ shape: [frames, channels] });
  let x = tf.layers.conv1d({ filters: 64, kernelSize: 3, padding: 'same', activation: 'relu' }).apply(input) as tf.SymbolicTensor;
  x = tf.layers.conv1d({ filters: 128, kernelSize: 3, padding: 'same', activation: 'relu' }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.conv1d({ filters: 128, kernelSize: 3, padding: 'same', activation: 'relu' }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.globalAveragePooling1d().apply(x) as tf.SymbolicTensor;
  x = tf.layers.dense({ units: 256, activation: 'relu' }).apply(x) as tf.SymbolicTensor;
  const out = tf.layers.dense({ units: 3 * 54 }).apply(x) as tf.SymbolicTensor;
  return tf.model({ inputs: input, outputs: out });
}

/** Items per wall-clock second and per CPU-second of this process. */
interface Rate {
  wall: number;
  cpu: number;
}

function rate(run: () => void, batch: number): Rate {
  for (let i = 0; i < 10; i++) run();
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let n = 0;
  while (performance.now() - start < seconds * 1000) { run(); n += batch; }
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wall: (n * 1000) / wallMs, cpu: (n * 1e6) / Math.max(1, cpu.user + cpu.system) };
}

/** A rate multiplied by the windows per item. */
const times = (r: Rate, k: number): Rate => ({ wall: r.wall * k, cpu: r.cpu * k });

async function main(): Promise<void> {
  if (args.includes('--room-only')) {
    // pose.room alone (issue 24) beside the located mean pose.
    const loadBefore = os.loadavg();
    const roomPose = await roomPoseRates();
    console.log(JSON.stringify({ machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${loadBefore.map((v) => v.toFixed(1)).join('/')} before, ${os.loadavg().map((v) => v.toFixed(1)).join('/')} after, Node ${process.version}`, seconds, roomPose }, null, 2));
    return;
  }
  if (args.includes('--locator-only')) {
    // pose.locate alone (issue 21's speed goal), without the pose network's figures.
    const loadBefore = os.loadavg();
    const locator = await locatorRates();
    console.log(JSON.stringify({ machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${loadBefore.map((v) => v.toFixed(1)).join('/')} before, ${os.loadavg().map((v) => v.toFixed(1)).join('/')} after, Node ${process.version}`, seconds, locator }, null, 2));
    return;
  }
  const backend = await setupBackend({ prefer: 'wasm' });
  let model: PoseModel;
  let source: string;
  if (existsSync(`${modelDir}/model.json`)) {
    model = await PoseModel.load(modelDir);
    source = `${model.spec.modelId} (${model.hash.slice(0, 12)})`;
  } else {
    const spec: ModelSpec = readModelSpecOr(modelDir);
    model = PoseModel.fromNetwork(spec, buildPoseNetwork(spec));
    source = 'untrained network of the shipped architecture (no weights found)';
  }
  const spec = model.spec;
  const width = frameFeatureSize(spec), geo = geometryFeatureSize(spec);
  const links = spec.input.links;
  const reference = referenceConv1d(16, spec.input.antennaPairs * spec.input.subcarriers * 2);
  const results: Record<string, Rate> = {};
  const loadBefore = os.loadavg();
  for (const batch of [1, 32]) {
    const x = tf.randomNormal([batch, spec.input.frames, width]);
    const g = tf.randomNormal([batch, geo]);
    const r = tf.randomNormal([batch, 16, spec.input.antennaPairs * spec.input.subcarriers * 2]);
    const samples = rate(() => { const y = model.network.predict([x, g]) as tf.Tensor; y.dataSync(); y.dispose(); }, batch);
    results[`model_samples_per_s_b${batch}`] = samples;
    results[`model_windows_per_s_b${batch}`] = times(samples, links);
    results[`reference_windows_per_s_b${batch}`] = rate(() => { const y = reference.predict(r) as tf.Tensor; y.dataSync(); y.dispose(); }, batch);
    tf.dispose([x, g, r]);
  }
  // End to end through the node's estimator: featurisation, model, decoding, 2D projection, no dense pose.
  const environment: EnvironmentGeometry = {
    id: 'bench', room: { width: 5, depth: 4, height: 2.7 },
    links: Array.from({ length: links }, (_, i) => ({ tx: 'tx0', rx: `rx${i}`, txPosition: [0.2, 2, 1.2] as [number, number, number], rxPosition: [4.8, 0.5 + i, 1.2] as [number, number, number] })),
    camera: defaultCamera({ width: 5, depth: 4, height: 2.7 }),
  };
  const estimator = new PoseEstimator(model, [environment], { densePose: 'none' });
  const T = 16, per = spec.input.antennaPairs * spec.input.subcarriers;
  const nrx = 3, ntx = spec.input.antennaPairs / nrx;
  const windows = environment.links.map((l) => ({
    sourceId: 'bench', link: { tx: l.tx, rx: l.rx }, environmentId: 'bench', startTimestamp: 0, endTimestamp: 1, time: 1, length: T, ntx, nrx, nsc: spec.input.subcarriers,
    subcarriers: Int16Array.from({ length: spec.input.subcarriers }, (_, i) => -28 + 2 * i), centerFrequencyHz: 5.32e9,
    amplitude: Float32Array.from({ length: T * per }, () => 1 + Math.random() * 0.1), phase: Float32Array.from({ length: T * per }, () => Math.random() - 0.5),
    features: spec.input.phase === 'conjugate' ? ['phase:unwrapped'] : ['phase:sanitised(unwrap,linear-fit-removed)'], provenance: 'simulated' as const,
  }));
  const batch32 = Array.from({ length: 32 }, () => ({ environment, windows }));
  results.estimator_windows_per_s_b32 = times(rate(() => { estimator.estimate(batch32); }, 32), links);
  results.estimator_windows_per_s_b1 = times(rate(() => { estimator.estimate(batch32.slice(0, 1)); }, 1), links);
  // The empty-room locator (pose.locate) on a simulated room: raw frames in, estimates out.
  const locator = await locatorRates();
  const roomPose = await roomPoseRates();
  const load = (l: number[]) => l.map((v) => v.toFixed(1)).join('/');
  const report = {
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${load(loadBefore)} before, ${load(os.loadavg())} after, Node ${process.version}`,
    backend: `${backend.backend}${backend.simd ? ' SIMD' : ''}, 1 thread`,
    model: source, parameters: model.network.countParams(), referenceParameters: reference.countParams(),
    linksPerSample: links, seconds,
    /** Per wall-clock second. */
    results: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(v.wall)])),
    /** Per CPU-second of this process (the one-core figure). */
    resultsPerCpuSecond: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(v.cpu)])),
    locator,
    roomPose,
  };
  if (args.includes('--json')) { console.log(JSON.stringify(report, null, 2)); return; }
  console.log(`${report.machine}; ${report.backend}; ${report.model}, ${report.parameters} parameters; reference conv1d ${report.referenceParameters} parameters`);
  console.log('per      batch  model samples  model windows  reference windows  node estimator windows');
  for (const [label, figures] of [['wall-s', report.results], ['CPU-s', report.resultsPerCpuSecond]] as const) {
    for (const b of [1, 32]) console.log(`${label.padEnd(6)}  ${String(b).padStart(5)}  ${String(figures[`model_samples_per_s_b${b}`]).padStart(13)}  ${String(figures[`model_windows_per_s_b${b}`]).padStart(13)}  ${String(figures[`reference_windows_per_s_b${b}`]).padStart(17)}  ${String(figures[`estimator_windows_per_s_b${b}`]).padStart(22)}`);
  }
  console.log(`one sample = one window from each of ${links} links`);
  if (locator) {
    console.log(`pose.locate, ${String(locator.room)}: frames per CPU-second (share of a core for real time)`);
    for (const key of ['at100Hz', 'at20Hz', 'baselineAt100Hz']) {
      const r = locator[key] as { model: string; framesPerCpuSecond: number; estimatesPerCpuSecond: number; coreShareOfRealTime: number } | undefined;
      if (r) console.log(`  ${key.padEnd(16)} ${r.model}: ${r.framesPerCpuSecond} frames/CPU-s, ${r.estimatesPerCpuSecond} estimates/CPU-s (${r.coreShareOfRealTime} of a core)`);
    }
  }
  if (roomPose) {
    console.log(`pose.room, ${String(roomPose.room)}: frames per CPU-second (share of a core for real time)`);
    for (const key of ['at20Hz', 'baselineAt20Hz', 'at100Hz', 'baselineAt100Hz']) {
      const r = roomPose[key] as { pipeline: string; framesPerCpuSecond: number; estimatesPerCpuSecond: number; coreShareOfRealTime: number };
      console.log(`  ${key.padEnd(16)} ${r.pipeline}: ${r.framesPerCpuSecond} frames/CPU-s, ${r.estimatesPerCpuSecond} estimates/CPU-s (${r.coreShareOfRealTime} of a core)`);
    }
  }
}

/**
 * pose.locate's PoseLocator over 12 s of a simulated 3-link room's frames (simulated before
 * timing), at 100 Hz (issue 21: real time on at most half a core is ≥ 600 frames per CPU-second)
 * and at the 20 Hz of the rooms it was fitted on; the baseline in the same run is
 * wiflow-locate-v1 (every packet aligned and imaged, no tracker) on the same 100 Hz frames.
 */
let benchRoomCache: Promise<{ environment: EnvironmentGeometry; reference: EmptyRoomReference; frames100: CsiFrame[]; frames20: CsiFrame[] }> | null = null;

/** The simulated 3-link room of the locator and room-pose benchmarks, 12 s of frames at 100 and 20 Hz (simulated once, before timing). */
function benchRoom() {
  benchRoomCache ??= (async () => {
    const sim = (await import('@wiflow/plugin-sim')) as unknown as { planDataset: (o: object) => { sessions: { scenario: { environmentId: string; channel: Record<string, unknown> } & Record<string, unknown> }[] }; Simulator: new (s: unknown) => { run(d: number): Iterable<{ frames: CsiFrame[] }> } };
    const base = sim.planDataset({ rooms: 12, secondsPerSession: 12, sessionsPerRoom: 1, seed: 'locator-bench', ranges: { receivers: [3, 3], rateHz: 20 } }).sessions[0].scenario;
    const framesAt = (rateHz: number) => [...new sim.Simulator({ ...base, channel: { ...base.channel, rateHz } }).run(12)].flatMap((t) => t.frames);
    return { environment: environmentFromScenario(base as never), reference: simulateReference(sim as never, base), frames100: framesAt(100), frames20: framesAt(20) };
  })();
  return benchRoomCache;
}

/**
 * `pose.room` (issue 24): the locator, the person probe and a room model of the shipped shape
 * (306 → 128 → 128 → 51, random weights: speed does not depend on training), frames in and
 * PoseFrames out, on the bench room at 20 Hz (the protocol's radios) and 100 Hz. Baseline in the
 * same run: the located mean pose (`pose.locate`'s PoseLocator, PoseFrames out) on the same frames.
 */
async function roomPoseRates(): Promise<Record<string, unknown> | null> {
  if (!existsSync(`${SHIPPED_LOCATOR_DIR}/${LOCATOR_JSON}`)) return null;
  const { environment, reference, frames100, frames20 } = await benchRoom();
  const locatorModel = loadLocatorModel();
  const width = probeFeatureSize(DEFAULT_PROBE, environment.links.length);
  const layers = [width, 128, 128, 51];
  const random = mulberry32(24);
  const weights = layers.slice(1).map((out, i) => ({ w: Float32Array.from({ length: layers[i] * out }, () => (random() * 2 - 1) * Math.sqrt(6 / layers[i])), b: Float32Array.from({ length: out }, () => random() * 0.1) }));
  const roomModel: RoomPoseModel = {
    spec: { format: 'wiflow-room-pose/1', modelId: ROOM_POSE_MODEL_ID, environmentId: environment.id, probe: DEFAULT_PROBE, layers, featureMean: Array(width).fill(0), featureStd: Array(width).fill(1), meanPose: locatorModel.spec.meanPose.map((m) => [m[0], m[1], m[2]] as [number, number, number]), training: {} },
    weights, hash: 'bench', directory: '(in memory)',
  };
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const measure = (name: string, frames: CsiFrame[], make: () => (frame: CsiFrame) => boolean) => {
    let estimates = 0, runs = 0;
    const c0 = cpu(), w0 = performance.now();
    while (performance.now() - w0 < seconds * 1000 || runs === 0) {
      const push = make();
      for (const f of frames) if (push(f)) estimates++;
      runs++;
    }
    const cpuMs = cpu() - c0;
    const framesPerCpuSecond = Math.round((runs * frames.length * 1000) / cpuMs);
    return { pipeline: name, framesPerCpuSecond, estimatesPerCpuSecond: Math.round((estimates * 1000) / cpuMs), coreShareOfRealTime: +((frames.length / 12) / framesPerCpuSecond).toFixed(3) };
  };
  const room = () => {
    const estimator = new RoomPoseEstimator(locatorModel, environment, reference, roomModel);
    return (f: CsiFrame) => { const instant = estimator.locate(f); if (!instant) return false; estimator.toPoseFrame(instant); return true; };
  };
  const located = () => {
    const locator = new PoseLocator(locatorModel, [environment], [reference], { densePose: 'none', processingMode: 'job' });
    return (f: CsiFrame) => locator.push(f) !== null;
  };
  const roomName = `pose.room: ${locatorModel.spec.modelId} + person probe + ${ROOM_POSE_MODEL_ID} (${layers.join('→')})`;
  const meanName = `located mean pose: ${locatorModel.spec.modelId} alone`;
  return {
    room: `${environment.room.width} × ${environment.room.depth} m, ${environment.links.length} links, 12 s`,
    at20Hz: measure(roomName, frames20, room),
    baselineAt20Hz: measure(meanName, frames20, located),
    at100Hz: measure(roomName, frames100, room),
    baselineAt100Hz: measure(meanName, frames100, located),
  };
}

async function locatorRates(): Promise<Record<string, unknown> | null> {
  if (!existsSync(`${SHIPPED_LOCATOR_DIR}/${LOCATOR_JSON}`)) return null;
  const { environment, reference, frames100, frames20 } = await benchRoom();
  const shipped = loadLocatorModel();
  const v1Dir = SHIPPED_LOCATOR_DIR.replace(/wiflow-locate-v2$/, 'wiflow-locate-v1');
  const baseline = existsSync(`${v1Dir}/${LOCATOR_JSON}`) ? loadLocatorModel(v1Dir) : null;
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const measure = (model: typeof shipped, frames: CsiFrame[]) => {
    let estimates = 0, runs = 0;
    const c0 = cpu(), w0 = performance.now();
    while (performance.now() - w0 < seconds * 1000 || runs === 0) {
      const locator = new PoseLocator(model, [environment], [reference], { densePose: 'none' });
      for (const f of frames) if (locator.push(f)) estimates++;
      runs++;
    }
    const cpuMs = cpu() - c0;
    const framesPerCpuSecond = Math.round((runs * frames.length * 1000) / cpuMs);
    return { model: `${model.spec.modelId} (${model.hash.slice(0, 12)})`, framesPerCpuSecond, estimatesPerCpuSecond: Math.round((estimates * 1000) / cpuMs), coreShareOfRealTime: +((frames.length / 12) / framesPerCpuSecond).toFixed(3) };
  };
  return {
    room: `${environment.room.width} × ${environment.room.depth} m, ${environment.links.length} links, 12 s`,
    at100Hz: measure(shipped, frames100),
    at20Hz: measure(shipped, frames20),
    ...(baseline ? { baselineAt100Hz: measure(baseline, frames100) } : {}),
  };
}

function readModelSpecOr(directory: string): ModelSpec {
  try {
    return readModelSpec(directory);
  } catch {
    return {
      contract: POSE_CONTRACT, modelId: 'wiflow-pose-v1', version: '0', description: '',
      input: { frames: 8, links: 3, antennaPairs: 9, subcarriers: 30, sampleRateHz: 20, geometryScale: 5, phase: 'sanitised', temporal: 'absolute' },
      normalisation: { amplitudeMean: 0, amplitudeStd: 1, phaseMean: 0, phaseStd: 1 }, output: { maxPersons: 3, presenceThreshold: 0.5 }, training: {},
    };
  }
}

main().catch((error) => { console.error(error); process.exit(1); });
