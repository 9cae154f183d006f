/**
 * Benchmark: simulated real-time factor of one 3×3-antenna Intel 5300 link (30 subcarriers), the
 * same with the reverberant body C2 on (off by default; docs/simulator.md §7), and of one 1×4
 * Nexmon link at 80 MHz (242 subcarriers), 100 Hz, three people walking, a fan,
 * drift and every radio impairment on, on one core — beside a baseline measured in the same
 * rounds: the bare channel sum over 60 paths × the link's antenna pairs × subcarriers with the
 * phase recurrence across subcarriers (no geometry, no people, no impairments).
 * Run: `npm run bench -w @wiflow/plugin-sim -- [seconds] [rounds]` (after `npm run build`).
 */
import os from 'node:os';
import { Simulator } from '../engine/simulator.js';
import { SPEED_OF_LIGHT } from '../physics/constants.js';
import { Prng } from '../random/prng.js';
import type { ScenarioInput } from '../scenario/schema.js';
import { applyProfile } from '../radio/profiles.js';

/**
 * Which benchmark scenario: the 3×3 Intel 5300 link, the same with the reverberant body C2 on,
 * or a 1×4 Nexmon link at 80 MHz (242 subcarriers).
 */
export type BenchKind = 'standard' | 'standard-c2' | 'nexmon80';

/** The reverberant body recommended in docs/simulator.md §7 ("C2"); off by default, on only in the 'standard-c2' row. */
export const BENCH_REVERBERATION_C2 = { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' as const };

/**
 * The benchmark scenario: a 6 × 5 m room, one link, three people walking loops that cross,
 * and everything of issue 20 on: a ceiling fan, curtains, drift of the static channel since
 * the reference, dipole patterns, cyclic shifts, ripple, AGC steps, glitches, bursty loss.
 * 'standard': 3 × 3 Intel 5300, 30 subcarriers, 100 Hz; 'standard-c2': the same with C2 on;
 * 'nexmon80': 1 × 4 Nexmon, 80 MHz.
 */
export function benchScenario(kind: BenchKind = 'standard'): ScenarioInput {
  if (kind === 'standard-c2') {
    const standard = benchScenario('standard');
    return { ...standard, name: 'bench-3x3-30sc-3-people-fan-c2', propagation: { ...(standard.propagation ?? {}), reverberation: BENCH_REVERBERATION_C2 } };
  }
  const walker = (id: number, a: [number, number], b: [number, number], speed: number) => ({
    id,
    height: 1.6 + 0.1 * id,
    start: { x: a[0], y: a[1] },
    loop: true,
    script: [{ action: 'walk' as const, path: [b], speed }, { action: 'walk' as const, path: [a], speed }],
  });
  const base: ScenarioInput = {
    name: kind === 'standard' ? 'bench-3x3-30sc-3-people-fan' : 'bench-1x4-242sc-3-people-fan',
    environmentId: 'bench',
    seed: 1,
    room: { width: 6, depth: 5, height: 2.7, materials: { walls: 'plasterboard', north: 'concrete', floor: 'concrete', ceiling: 'plasterboard' } },
    clutter: [
      { label: 'sofa', position: [1, 4.3, 0.4], rcs: 1.5 },
      { label: 'table', position: [3, 2.5, 0.7], rcs: 1 },
      { label: 'shelf', position: [5.6, 1, 1], rcs: 3 },
    ],
    channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 100, txPowerDbm: 20 },
    radios: [
      { id: 'tx', role: 'tx', device: 'intel5300', position: [0.3, 2.5, 1.5], yawDeg: 0, antennas: 3 },
      { id: 'rx', role: 'rx', device: 'intel5300', position: [5.7, 2.5, 1.0], yawDeg: 180, antennas: 3 },
    ],
    people: [walker(1, [1, 1], [5, 4], 1.2), walker(2, [1, 4], [5, 1], 1.0), walker(3, [3, 0.6], [3, 4.4], 0.8)],
    distractors: [{ kind: 'fan', position: [3, 2.5, 2.4], rpm: 120 }],
    drift: { moved: [{ clutter: 'table', to: [3.4, 2.2, 0.7] }], replugged: ['rx'], staticDrift: { gainDb: 0.3, phaseRad: 0.2, periodS: 3600, elapsedS: 7200 } },
  };
  return applyProfile(base, kind === 'standard' ? 'intel5300-ht20' : 'nexmon-80', kind === 'standard' ? { txAntennas: 3 } : {});
}

/** Frames per second (wall and CPU) of the full simulator over `seconds` of simulated time (best of `repeats`). */
export function measureSimulator(seconds: number, repeats = 3, kind: BenchKind = 'standard'): { framesPerSecond: number; framesPerCpuSecond: number; frames: number; pathsPerFrame: number; ticksPerSecond: number } {
  let best = 0;
  let bestCpu = 0;
  let frames = 0;
  let paths = 0;
  let ticksPerSecond = 0;
  for (let r = 0; r < repeats; r++) {
    const sim = new Simulator(benchScenario(kind));
    paths = sim.pathsAt(0, 1).length;
    let n = 0;
    let ticks = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const tick of sim.run(seconds)) {
      n += tick.frames.length;
      ticks++;
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    if (ticks / wall > ticksPerSecond) {
      best = n / wall;
      ticksPerSecond = ticks / wall;
      frames = n;
    }
    bestCpu = Math.max(bestCpu, n / Math.max(cpuSeconds, 1e-9));
  }
  return { framesPerSecond: best, framesPerCpuSecond: bestCpu, frames, pathsPerFrame: paths, ticksPerSecond };
}

/**
 * The baseline: H[pair][k] = Σ_{60 paths} a · exp(−j2π f_k L / c) for `pairs` antenna pairs and
 * `nsc` subcarriers (9 × 30 for the standard link, 4 × 242 for Nexmon at 80 MHz), each path's
 * phase stepped across subcarriers by one complex multiplication, path lengths changing every
 * frame. Frames per second, best of `repeats`.
 */
export function measureBaseline(frames: number, repeats = 3, pairs = 9, nsc = 30): number {
  const paths = 60;
  const f0 = 5.32e9 - 28 * 312_500;
  const df = 2 * 312_500;
  const prng = new Prng(1);
  const lengths = Float64Array.from({ length: paths * pairs }, () => prng.uniform(2, 20));
  const amps = Float64Array.from({ length: paths }, () => prng.uniform(0.001, 0.01));
  const re = new Float64Array(pairs * nsc);
  const im = new Float64Array(pairs * nsc);
  let best = 0;
  let sink = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    for (let f = 0; f < frames; f++) {
      re.fill(0);
      im.fill(0);
      for (let i = 0; i < lengths.length; i++) lengths[i] += 1e-3;
      for (let pair = 0; pair < pairs; pair++) {
        const off = pair * nsc;
        for (let p = 0; p < paths; p++) {
          const L = lengths[pair * paths + p];
          const ph0 = (-2 * Math.PI * f0 * L) / SPEED_OF_LIGHT;
          const phs = (-2 * Math.PI * df * L) / SPEED_OF_LIGHT;
          let vr = amps[p] * Math.cos(ph0);
          let vi = amps[p] * Math.sin(ph0);
          const sr = Math.cos(phs);
          const si = Math.sin(phs);
          for (let k = 0; k < nsc; k++) {
            re[off + k] += vr;
            im[off + k] += vi;
            const t = vr * sr - vi * si;
            vi = vr * si + vi * sr;
            vr = t;
          }
        }
      }
      sink += re[0];
    }
    const fps = (frames / (performance.now() - t0)) * 1000;
    if (fps > best) best = fps;
  }
  if (Number.isNaN(sink)) throw new Error('unreachable');
  return best;
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One benchmark scenario's figures, simulator and same-run baseline. */
export interface SimBenchResult {
  scenario: string;
  rateHz: number;
  /** Simulated seconds per wall second (best round). */
  realTimeFactor: number;
  /** Frames per CPU second of this process (best round). */
  framesPerCpuSecond: number;
  /** The bare path sum's real-time factor in the same rounds. */
  baselineRealTimeFactor: number;
  /** Median over rounds of simulator speed / baseline speed. */
  medianRatio: number;
  pathsPerFrame: number;
  rounds: [number, number][];
}

/**
 * Measure one scenario beside the bare sum in interleaved rounds (so both see the same machine
 * load): `seconds` simulated in `rounds` rounds, after a warm-up.
 */
export function runSimBench(kind: BenchKind = 'standard', seconds = 30, rounds = 3): SimBenchResult {
  const [pairs, nsc] = kind === 'nexmon80' ? [4, 242] : [9, 30];
  const rate = 100;
  measureSimulator(1, 1, kind);
  measureBaseline(200, 1, pairs, nsc);
  const sim: number[] = [];
  const base: number[] = [];
  let cpu = 0;
  let paths = 0;
  for (let r = 0; r < rounds; r++) {
    const m = measureSimulator(seconds / rounds, 1, kind);
    paths = m.pathsPerFrame;
    cpu = Math.max(cpu, m.framesPerCpuSecond);
    sim.push(m.ticksPerSecond);
    base.push(measureBaseline(Math.round((seconds / rounds) * rate), 1, pairs, nsc));
  }
  const best = Math.max(...sim);
  return {
    scenario: benchScenario(kind).name ?? kind,
    rateHz: rate,
    realTimeFactor: +(best / rate).toFixed(1),
    framesPerCpuSecond: Math.round(cpu),
    baselineRealTimeFactor: +(Math.max(...base) / rate).toFixed(1),
    medianRatio: +median(sim.map((v, i) => v / base[i])).toFixed(3),
    pathsPerFrame: paths,
    rounds: sim.map((v, i) => [Math.round(v), Math.round(base[i])]),
  };
}

function main(): void {
  const seconds = Number(process.argv[2] ?? 30);
  const rounds = Math.max(1, Number(process.argv[3] ?? 3));
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} (${os.cpus().length} cores visible), Node ${process.version}; one core (single-threaded); load average ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
  console.log('| scenario | × real time (100 Hz) | frames per CPU-second | × real time per CPU-second | bare path sum × real time (same rounds) | simulator / baseline (median) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const results = (['standard', 'standard-c2', 'nexmon80'] as const).map((kind) => runSimBench(kind, seconds, rounds));
  for (const r of results) console.log(`| ${r.scenario} (${r.pathsPerFrame} paths per pair) | ${r.realTimeFactor}× | ${r.framesPerCpuSecond} | ${(r.framesPerCpuSecond / r.rateHz).toFixed(1)}× | ${r.baselineRealTimeFactor}× | ${r.medianRatio} |`);
  console.log(`load average after: ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
  console.log(JSON.stringify(results));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
