import { describe, expect, it } from 'vitest';
import { mulberry32 } from '@wiflow/core';
import { planDataset } from '@wiflow/plugin-sim';
import { imageSession } from '../testing/image-session.js';
import { DiffuseWhitener } from './diffuse-whitening.js';
import type { ImagingSettings } from './imager.js';

const C = 299792458;
// 30 subcarriers over 20 MHz at 5.32 GHz, a 4 m line of sight, C2's 22 ns tail, ten times the noise.
const f = Array.from({ length: 30 }, (_, k) => 5.32e9 + (k - 15) * 625e3);
const LOS_M = 4, T = 22e-9, RHO = 10;

/** A path's response over the subcarriers at delay tau: e^{−j2πfτ}. */
const response = (tau: number) => ({ re: Float64Array.from(f, (x) => Math.cos(-2 * Math.PI * x * tau)), im: Float64Array.from(f, (x) => Math.sin(-2 * Math.PI * x * tau)) });
const energy = (v: { re: Float64Array; im: Float64Array }) => v.re.reduce((s, x, j) => s + x * x + v.im[j] ** 2, 0);

describe('DiffuseWhitener', () => {
  it('whitens so that (L⁻¹a)ᴴ(L⁻¹x) = aᴴR⁻¹x for R = ρ·R_T + I (checked with x = R·y)', () => {
    const random = mulberry32(7);
    const K = f.length, tau = LOS_M / C;
    const y = { re: Float64Array.from({ length: K }, () => random() - 0.5), im: Float64Array.from({ length: K }, () => random() - 0.5) };
    // x = R y, R[k,k'] = ρ e^{−j2πΔf τ₀}/(1 + j2πΔf T) + δ
    const x = { re: new Float64Array(K), im: new Float64Array(K) };
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        const df = f[i] - f[j], phi = -2 * Math.PI * df * tau, b = 2 * Math.PI * df * T;
        const rr = (RHO * (Math.cos(phi) + Math.sin(phi) * b)) / (1 + b * b) + (i === j ? 1 : 0);
        const ri = (RHO * (Math.sin(phi) - Math.cos(phi) * b)) / (1 + b * b);
        x.re[i] += rr * y.re[j] - ri * y.im[j];
        x.im[i] += rr * y.im[j] + ri * y.re[j];
      }
    }
    const a = response(tau + 1.5 / C);
    const expected = { re: 0, im: 0 };
    for (let k = 0; k < K; k++) { expected.re += a.re[k] * y.re[k] + a.im[k] * y.im[k]; expected.im += a.re[k] * y.im[k] - a.im[k] * y.re[k]; }
    const w = new DiffuseWhitener(f, LOS_M, T, RHO);
    w.whiten(a.re, a.im, 0, K);
    w.whiten(x.re, x.im, 0, K);
    let re = 0, im = 0;
    for (let k = 0; k < K; k++) { re += a.re[k] * x.re[k] + a.im[k] * x.im[k]; im += a.re[k] * x.im[k] - a.im[k] * x.re[k]; }
    expect(re).toBeCloseTo(expected.re, 8);
    expect(im).toBeCloseTo(expected.im, 8);
  });

  it('weights a response by the diffuse tail at its delay: one where the tail is strong keeps less than one well before it', () => {
    const w = new DiffuseWhitener(f, LOS_M, T, RHO);
    const kept = (tau: number) => { const a = response(tau); const before = energy(a); w.whiten(a.re, a.im, 0, f.length); return energy(a) / before; };
    const atLineOfSight = kept(LOS_M / C), early = kept(LOS_M / C - 150e-9);
    expect(atLineOfSight).toBeLessThan(0.5 * early);
    // The tail is absent 150 ns before the line of sight: about the noise's weight, 1.
    expect(early).toBeGreaterThan(0.5);
    expect(early).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('keeps the conjugated form of a stored steering row: whitening conj(a) gives conj(L⁻¹a)', () => {
    const w = new DiffuseWhitener(f, LOS_M, T, RHO);
    const a = response(LOS_M / C + 2 / C), conj = { re: Float64Array.from(a.re), im: a.im.map((v) => -v) };
    w.whiten(a.re, a.im, 0, f.length);
    w.whiten(conj.re, conj.im, 0, f.length, true);
    for (let k = 0; k < f.length; k++) { expect(conj.re[k]).toBeCloseTo(a.re[k], 12); expect(conj.im[k]).toBeCloseTo(-a.im[k], 12); }
  });
});

describe('RoomImager with diffuseWhitening', () => {
  const settings: ImagingSettings = { gridStepM: 0.25, heightsM: [0.9], packets: 8, separationM: 0.8, cleanRadiusM: 0, maxPersons: 2, scatterer: 'point' };
  // A one-person training room of a small plan, with the reverberant body (C2) on.
  const session = planDataset({ rooms: 6, secondsPerSession: 4, sessionsPerRoom: 1, seed: 'c2image-test', ranges: { receivers: [3, 3], rateHz: 20 } }).sessions.find((s) => s.scenario.people.length === 1)!;
  const scenario = { ...session.scenario, propagation: { ...session.scenario.propagation, reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' as const } } };
  const images = (options: Partial<ImagingSettings>[]) => imageSession(scenario, settings, options);

  it('places peaks by the whitened score but keeps the raw change energies; with no diffuse power (ρ 0) it is the plain image', () => {
    const [plain, none, whitened] = images([{}, { diffuseWhitening: { decayNs: 22, diffuseToNoise: 0 } }, { diffuseWhitening: { decayNs: 22, diffuseToNoise: 10 } }]);
    expect(plain.length).toBeGreaterThan(3);
    plain.forEach((image, e) => {
      expect(none[e].peaks.map((p) => [p.x, p.y])).toEqual(image.peaks.map((p) => [p.x, p.y]));
      // The energies before any removal are the raw change's, whatever places the peaks.
      expect(whitened[e].energies[0]).toBeCloseTo(image.energies[0], 6);
    });
    // The whitened score moves some peak (the constructed room has a body and its diffuse field).
    expect(plain.some((image, e) => image.peaks[0].x !== whitened[e].peaks[0].x || image.peaks[0].y !== whitened[e].peaks[0].y)).toBe(true);
  });
});
