import { describe, expect, it } from 'vitest';
import { Simulator, type ScenarioInput } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

const clutter: ScenarioInput['clutter'] = [{ label: 'sofa', position: [1.5, 3.2, 0.4], rcs: 1.5 }, { label: 'shelf', position: [4, 0.5, 1], rcs: 2 }];
const impairmentsOff = { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none' as const, packetLoss: 0, timingJitterUs: 0 };

function frame(sim: Simulator): { re: Float32Array; im: Float32Array } {
  const f = sim.next().frames[0];
  return { re: f.csi.re, im: f.csi.im };
}

const maxDiff = (a: { re: ArrayLike<number>; im: ArrayLike<number> }, b: { re: ArrayLike<number>; im: ArrayLike<number> }) => {
  let m = 0;
  for (let i = 0; i < a.re.length; i++) m = Math.max(m, Math.hypot(a.re[i] - b.re[i], a.im[i] - b.im[i]));
  return m;
};
const rms = (a: { re: ArrayLike<number>; im: ArrayLike<number> }) => Math.sqrt(Array.from(a.re).reduce((s, v, i) => s + v * v + a.im[i] ** 2, 0) / a.re.length);

describe('drift between the empty-room reference and the recording', () => {
  it('a moved sofa changes the static channel: the recording is the room with the sofa in its new place, the reference the room as installed', () => {
    const moved = testScenario({ clutter, drift: { moved: [{ clutter: 'sofa', to: [3.5, 3.4, 0.4] }] } });
    const reference = frame(new Simulator(moved, { phase: 'reference' }));
    const recording = frame(new Simulator(moved));
    expect(maxDiff(reference, recording)).toBeGreaterThan(0.02 * rms(reference));
    expect(maxDiff(reference, frame(new Simulator(testScenario({ clutter }))))).toBe(0);
    const there = testScenario({ clutter: [{ label: 'sofa', position: [3.5, 3.4, 0.4], rcs: 1.5 }, clutter[1]] });
    expect(maxDiff(recording, frame(new Simulator(there)))).toBe(0);
  });

  it('a re-plugged radio changes its chain phases only: same amplitudes, one constant phase per receive chain', () => {
    const imp = { ...impairmentsOff, chainPhase: true };
    const spec = testScenario({ clutter, impairments: imp, drift: { replugged: ['rx'] } });
    const reference = frame(new Simulator(spec, { phase: 'reference' }));
    const recording = frame(new Simulator(spec));
    const nsc = 56;
    const chainPhase: number[][] = [];
    for (let t = 0; t < 3; t++) {
      for (let r = 0; r < 3; r++) {
        for (let k = 0; k < nsc; k++) {
          const i = (t * 3 + r) * nsc + k;
          expect(Math.hypot(recording.re[i], recording.im[i])).toBeCloseTo(Math.hypot(reference.re[i], reference.im[i]), 6);
          // Phase of recording / reference.
          const pr = recording.re[i] * reference.re[i] + recording.im[i] * reference.im[i];
          const pi = recording.im[i] * reference.re[i] - recording.re[i] * reference.im[i];
          (chainPhase[r] ??= []).push(Math.atan2(pi, pr));
        }
      }
    }
    for (const phases of chainPhase) for (const p of phases) expect(Math.cos(p - phases[0])).toBeGreaterThan(1 - 1e-6);
    const spread = Math.abs(Math.sin(chainPhase[0][0] - chainPhase[1][0])) + Math.abs(Math.sin(chainPhase[1][0] - chainPhase[2][0]));
    expect(spread).toBeGreaterThan(0.05);
  });

  it('the reference has its own per-packet draws: same room and radios, different noise and timing offsets', () => {
    const imp = { ...impairmentsOff, snrDb: 20, timingOffsetNs: 40 };
    const spec = testScenario({ impairments: imp, drift: { referenceSeed: 99 } });
    const sameDraws = frame(new Simulator(testScenario({ impairments: imp }), { phase: 'reference' }));
    const own = frame(new Simulator(spec, { phase: 'reference' }));
    expect(maxDiff(own, sameDraws)).toBeGreaterThan(0.05 * rms(own));
    // Without drift the reference shares the recording's draws exactly (what the locator was fitted with).
    expect(maxDiff(sameDraws, frame(new Simulator(testScenario({ impairments: imp }))))).toBe(0);
  });

  it('timing offsets can have a non-zero mean: the phase slope over subcarriers averages to the mean delay', () => {
    const imp = { ...impairmentsOff, timingOffsetNs: 20, timingOffsetMeanNs: 150 };
    const sim = new Simulator(testScenario({ impairments: imp, radios: [
      { id: 'tx', role: 'tx', device: 'ideal', position: [0.5, 2, 1], yawDeg: 0, antennas: 1 },
      { id: 'rx', role: 'rx', device: 'ideal', position: [4.5, 2, 1], yawDeg: 180, antennas: 1 },
    ] }));
    const clean = sim.cleanChannel(0, 0);
    const indices = sim.links[0].grid.indices;
    let total = 0;
    const packets = 200;
    for (let n = 0; n < packets; n++) {
      const f = sim.next().frames[0];
      // Slope of the phase of H / H_clean against the subcarrier index (adjacent differences, averaged).
      let sr = 0;
      let si = 0;
      for (let k = 0; k + 1 < indices.length; k++) {
        if (indices[k + 1] - indices[k] !== 1) continue;
        const ratio = (i: number) => {
          const a = f.csi.re[i], b = f.csi.im[i], c = clean.re[i], d = clean.im[i];
          return [a * c + b * d, b * c - a * d];
        };
        const [r0, i0] = ratio(k);
        const [r1, i1] = ratio(k + 1);
        sr += r1 * r0 + i1 * i0;
        si += i1 * r0 - r1 * i0;
      }
      total += -Math.atan2(si, sr) / (2 * Math.PI * 312_500);
    }
    // People stand still here (none), so every packet's slope is its offset: mean 150 ns, σ 20 ns / √200.
    expect(total / packets).toBeGreaterThan(145e-9);
    expect(total / packets).toBeLessThan(155e-9);
  });

  it('temperature and humidity drift the reflections slowly; the line of sight does not drift', () => {
    const staticDrift = { gainDb: 0.5, phaseRad: 0.3, periodS: 1800, elapsedS: 3600 };
    const spec = testScenario({ clutter, drift: { staticDrift } });
    const reference = new Simulator(spec, { phase: 'reference' });
    const recording = new Simulator(spec);
    const r0 = frame(reference);
    const x0 = frame(recording);
    expect(maxDiff(r0, x0)).toBeGreaterThan(0.01 * rms(r0));
    // Within one second of recording the static channel barely moves (periods of half an hour).
    for (let n = 0; n < 99; n++) recording.next();
    expect(maxDiff(x0, frame(recording))).toBeLessThan(0.01 * maxDiff(r0, x0));
    // A room with only the line of sight has nothing to drift.
    const losOnly = testScenario({ propagation: { maxReflectionOrder: 0, bodyScattering: true, shadowing: true, bodyReflectivity: 0.6, bodyBounces: false }, drift: { staticDrift } });
    expect(maxDiff(frame(new Simulator(losOnly, { phase: 'reference' })), frame(new Simulator(losOnly)))).toBe(0);
  });
});
