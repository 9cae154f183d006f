// The antenna-pair rank of a link's change (pilot-rank.mjs, issue 21): noise alone stands at the
// noise floor, a moving point scatterer is one source however its phase turns, two are two.
import { mulberry32 } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { antennaSpectrum, sourcesAboveNoise, type HeldChange } from '../index.js';

const PAIRS = 9, NSC = 30, PACKETS = 8;

/** Noise of power `noisePower` per complex value plus point sources: each an antenna-pair response, a delay and a Doppler step per packet. */
function link(sources: { amplitude: number; angle: number; delayNs: number; dopplerRad: number }[], noisePower: number, seed: number): HeldChange {
  const u = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(u() + 1e-300)) * Math.cos(2 * Math.PI * u());
  const packets = Array.from({ length: PACKETS }, (_, p) => {
    const re = new Float64Array(PAIRS * NSC), im = new Float64Array(PAIRS * NSC);
    for (let a = 0; a < PAIRS; a++) {
      for (let k = 0; k < NSC; k++) {
        const j = a * NSC + k;
        re[j] = gauss() * Math.sqrt(noisePower / 2);
        im[j] = gauss() * Math.sqrt(noisePower / 2);
        for (const s of sources) {
          // Half-wavelength array along the pairs, 312.5 kHz subcarriers, a phase step per packet (walking).
          const phase = Math.PI * a * Math.sin(s.angle) + 2 * Math.PI * k * 312.5e3 * s.delayNs * 1e-9 + s.dopplerRad * p;
          re[j] += s.amplitude * Math.cos(phase);
          im[j] += s.amplitude * Math.sin(phase);
        }
      }
    }
    return { re, im };
  });
  return { key: 'tx->rx', antennaPairs: PAIRS, subcarriers: NSC, noisePower, packets };
}

describe('antennaSpectrum', () => {
  it('puts noise alone at the noise floor: every eigenvalue near 1, no source', () => {
    const values = antennaSpectrum(link([], 0.5, 1));
    expect(values).toHaveLength(PAIRS);
    expect(values[0]).toBeLessThan(1.6);
    expect(values[PAIRS - 1]).toBeGreaterThan(0.5);
    expect(sourcesAboveNoise(values, NSC * PACKETS)).toBe(0);
  });

  it('counts a walking point scatterer as one source: its phase turns, its direction does not', () => {
    const values = antennaSpectrum(link([{ amplitude: 1, angle: 0.3, delayNs: 20, dopplerRad: 2.1 }], 0.05, 2));
    expect(values[0]).toBeGreaterThan(100);
    expect(values[1]).toBeLessThan(2);
    expect(sourcesAboveNoise(values, NSC * PACKETS)).toBe(1);
  });

  it('counts two walking scatterers from other directions as two', () => {
    const values = antennaSpectrum(link([{ amplitude: 1, angle: 0.3, delayNs: 20, dopplerRad: 1.3 }, { amplitude: 0.5, angle: -0.6, delayNs: 35, dopplerRad: -2.2 }], 0.05, 4));
    expect(values[1]).toBeGreaterThan(20);
    expect(sourcesAboveNoise(values, NSC * PACKETS)).toBe(2);
  });

  it('sees two still scatterers at nearly one delay as one: without motion only the band tells them apart', () => {
    // 15 ns apart over a 9.4 MHz span turn 0.14 of a cycle: their subcarrier factors are nearly one vector.
    const close = antennaSpectrum(link([{ amplitude: 1, angle: 0.3, delayNs: 20, dopplerRad: 0 }, { amplitude: 0.5, angle: -0.6, delayNs: 35, dopplerRad: 0 }], 0.05, 3));
    const apart = antennaSpectrum(link([{ amplitude: 1, angle: 0.3, delayNs: 20, dopplerRad: 0 }, { amplitude: 0.5, angle: -0.6, delayNs: 120, dopplerRad: 0 }], 0.05, 3));
    expect(close[1]).toBeLessThan(apart[1] / 3);
    expect(sourcesAboveNoise(apart, NSC * PACKETS)).toBe(2);
  });
});
