import FFT from 'fft.js';
import { describe, expect, it } from 'vitest';
import { Simulator, type ScenarioInput } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

type Distractors = NonNullable<ScenarioInput['distractors']>;

/** The complex value of one antenna pair and subcarrier over every tick (impairments off, so frames are the clean channel). */
function series(sim: Simulator, ticks: number, pair = 0, subcarrier = 10): { re: number[]; im: number[] } {
  const re: number[] = [];
  const im: number[] = [];
  const nsc = sim.links[0].grid.indices.length;
  for (let n = 0; n < ticks; n++) {
    const f = sim.next().frames[0];
    re.push(f.csi.re[pair * nsc + subcarrier]);
    im.push(f.csi.im[pair * nsc + subcarrier]);
  }
  return { re, im };
}

/** Power spectrum of the mean-removed complex series (n a power of two) and the frequency of its strongest bin. */
function spectrum(s: { re: number[]; im: number[] }, rateHz: number): { power: number[]; peakHz: number; binHz: number } {
  const n = s.re.length;
  const mr = s.re.reduce((a, b) => a + b, 0) / n;
  const mi = s.im.reduce((a, b) => a + b, 0) / n;
  const fft = new FFT(n);
  const input = fft.createComplexArray() as number[];
  for (let i = 0; i < n; i++) {
    input[2 * i] = s.re[i] - mr;
    input[2 * i + 1] = s.im[i] - mi;
  }
  const out = fft.createComplexArray() as number[];
  fft.transform(out, input);
  // Fold ± frequencies: a real motion shows on both sides.
  const power = Array.from({ length: n / 2 }, (_, k) => Math.hypot(out[2 * k], out[2 * k + 1]) ** 2 + (k ? Math.hypot(out[2 * (n - k)], out[2 * (n - k) + 1]) ** 2 : 0));
  let best = 1;
  for (let k = 1; k < power.length; k++) if (power[k] > power[best]) best = k;
  return { power, peakHz: (best * rateHz) / n, binHz: rateHz / n };
}

const std = (s: { re: number[]; im: number[] }) => {
  const n = s.re.length;
  const mr = s.re.reduce((a, b) => a + b, 0) / n;
  const mi = s.im.reduce((a, b) => a + b, 0) / n;
  return Math.sqrt(s.re.reduce((a, v, i) => a + (v - mr) ** 2 + (s.im[i] - mi) ** 2, 0) / n);
};

const scene = (distractors: Distractors, extra: Partial<ScenarioInput> = {}) => testScenario({ distractors, ...extra });

describe('distractors', () => {
  it('a ceiling fan modulates the channel at blade rate × blades: a comb of lines at multiples of 6 Hz for 3 blades at 120 rpm', () => {
    // Blade tips move at 7 m/s (Doppler up to ~250 Hz at 5 GHz): sample at 1024 Hz so nothing aliases.
    const sim = new Simulator(scene([{ kind: 'fan', position: [2.5, 2.6, 2.4], blades: 3, rpm: 120, bladeRcs: 0.05 }], {
      channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 1024, txPowerDbm: 20 },
    }));
    const { power, binHz } = spectrum(series(sim, 2048), 1024);
    expect(binHz).toBe(0.5);
    // 120 rpm = 2 turns a second; three identical blades repeat the channel 6 times a second.
    const total = power.reduce((a, b) => a + b, 0);
    const comb = power.reduce((a, p, k) => a + (k % 12 === 0 ? p : 0), 0);
    expect(comb / total).toBeGreaterThan(1 - 1e-9);
    expect(power[12]).toBeGreaterThan(total * 1e-3);
    // Nothing at the rotation rate or its other multiples (2 Hz, 4 Hz).
    expect(power[4] + power[8]).toBeLessThan(power[12] * 1e-9);
  });

  it('a fan that was off at installation leaves the reference still, and truth says it runs in the recording', () => {
    const spec = scene([{ kind: 'fan', id: 'ceiling-fan', position: [2.5, 2.6, 2.4], rpm: 90 }]);
    const reference = new Simulator(spec, { phase: 'reference' });
    expect(std(series(reference, 64))).toBe(0);
    const recording = new Simulator(spec);
    expect(std(series(recording, 64))).toBeGreaterThan(0);
    const truth = new Simulator(spec).next().truth;
    expect(truth.distractors).toEqual([{ id: 'ceiling-fan', kind: 'fan', active: true, position: { x: 2.5, y: 2.6 } }]);
  });

  it('a pet walks (the channel changes a lot) and rests breathing (a line at its breathing rate); it is away during the reference', () => {
    const spec = scene([{ kind: 'pet', species: 'cat', path: [[2, 1], [3, 3]], speed: 0.5, restS: 12, breathingRateBpm: 30 }]);
    const sim = new Simulator(spec);
    const resting = series(sim, 1024); // the first 10.24 s: resting at [2, 1]
    const { peakHz, binHz } = spectrum(resting, 100);
    expect(Math.abs(peakHz - 0.5)).toBeLessThanOrEqual(binHz);
    expect(sim.next().truth.distractors?.[0]).toMatchObject({ kind: 'pet', active: false, position: { x: 2, y: 1 } });
    for (let n = 0; n < 200; n++) sim.next(); // walking starts at 12 s
    const walking = series(sim, 256);
    expect(std(walking)).toBeGreaterThan(20 * std(resting));
    expect(sim.next().truth.distractors?.[0].active).toBe(true);
    const reference = new Simulator(spec, { phase: 'reference' });
    expect(reference.next().truth.distractors).toEqual([]);
    expect(std(series(reference, 32))).toBe(0);
  });

  it('a door swing changes the channel only while it swings, and then the room is the room with the door in its new state', () => {
    const door = (openDeg: number, swings: { at: number; toDeg: number; durationS: number }[] = []) =>
      scene([{ kind: 'door', hinge: [1, 4], closedYawDeg: 0, openDeg, swings, material: 'wood' }]);
    const sim = new Simulator(door(0, [{ at: 1, toDeg: 80, durationS: 1 }]));
    const before = series(sim, 100);
    const during = series(sim, 100);
    const after = series(sim, 100);
    expect(std(before)).toBe(0);
    expect(std(during)).toBeGreaterThan(0);
    expect(std(after)).toBe(0);
    const open = series(new Simulator(door(80)), 1);
    expect(after.re[50]).toBeCloseTo(open.re[0], 12);
    expect(after.im[50]).toBeCloseTo(open.im[0], 12);
    // Left in another state than at installation: the reference sees the old state.
    const left = scene([{ kind: 'door', hinge: [1, 4], closedYawDeg: 0, openDeg: 80, referenceOpenDeg: 0 }]);
    const reference = series(new Simulator(left, { phase: 'reference' }), 1);
    expect(reference.re[0]).toBeCloseTo(before.re[0], 12);
    expect(Math.abs(series(new Simulator(left), 1).re[0] - reference.re[0])).toBeGreaterThan(1e-6);
  });

  it('curtains in a draught move the channel slowly: almost all of the change is below 1 Hz', () => {
    // 5 mm of sway: the path changes by well under a wavelength, so the channel follows the motion itself.
    const sim = new Simulator(scene([{ kind: 'curtain', position: [4.9, 1, 1.5], rcs: 0.5, swayM: 0.005, periodS: 4 }]));
    const s = series(sim, 2048, 0, 10);
    const { power, binHz } = spectrum(s, 100);
    const total = power.reduce((a, b) => a + b, 0);
    const slow = power.slice(0, Math.round(1 / binHz)).reduce((a, b) => a + b, 0);
    expect(slow / total).toBeGreaterThan(0.95);
  });

  it('activity next door is seen through the wall: 10 dB more wall loss takes 20 dB off its change (it crosses twice)', () => {
    const next = (wallLossDb: number) => scene([{ kind: 'neighbour', wall: 'north', distanceM: 1.5, from: 0.5, to: 4.5, speed: 1, wallLossDb }]);
    const a = std(series(new Simulator(next(10)), 400));
    const b = std(series(new Simulator(next(20)), 400));
    expect(b / a).toBeCloseTo(0.1, 6);
    expect(new Simulator(next(10), { phase: 'reference' }).next().truth.distractors).toEqual([]);
  });
});
