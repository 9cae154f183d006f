import { describe, expect, it } from 'vitest';
import { Simulator, type ScenarioInput } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';
import { SPEED_OF_LIGHT } from './constants.js';
import { reverberantGain } from './reverberation.js';

type Reverberation = NonNullable<NonNullable<ScenarioInput['propagation']>['reverberation']>;

/** One person walking across the 5 × 4 m test room, beside the 4 m link. */
function walking(reverberation?: Reverberation): ScenarioInput {
  return testScenario({
    propagation: { maxReflectionOrder: 2, bodyScattering: true, shadowing: true, bodyReflectivity: 0.6, bodyBounces: false, ...(reverberation ? { reverberation } : {}) },
    people: [{ id: 1, height: 1.75, start: { x: 1, y: 3 }, script: [{ action: 'walk', path: [[4, 3]], speed: 1 }] }],
  });
}

/** Mean over chains and subcarriers of |shape(t1) − shape(t0)|, each chain divided by its mean amplitude (what sensing reads). */
function bandShapeChange(sim: Simulator, t0: number, t1: number): number {
  const a = sim.cleanChannel(0, t0);
  const b = sim.cleanChannel(0, t1);
  const nsc = sim.links[0].grid.indices.length;
  const chains = a.re.length / nsc;
  let sum = 0;
  for (let c = 0; c < chains; c++) {
    const amp = (h: { re: Float64Array; im: Float64Array }, k: number) => Math.hypot(h.re[c * nsc + k], h.im[c * nsc + k]);
    let ma = 0;
    let mb = 0;
    for (let k = 0; k < nsc; k++) {
      ma += amp(a, k) / nsc;
      mb += amp(b, k) / nsc;
    }
    for (let k = 0; k < nsc; k++) sum += Math.abs(amp(b, k) / mb - amp(a, k) / ma);
  }
  return sum / (chains * nsc);
}

describe('the reverberant field (propagation.reverberation)', () => {
  it('is off by default: a scenario without it, or with both of its parts off, gives the same channel', () => {
    const off = new Simulator(walking());
    const partsOff = new Simulator(walking({ decayNs: 13, staticTail: false, bodyDiffuse: false }));
    for (const t of [0, 0.7, 1.9]) {
      const a = off.cleanChannel(0, t);
      const b = partsOff.cleanChannel(0, t);
      expect(Array.from(b.re)).toEqual(Array.from(a.re));
      expect(Array.from(b.im)).toEqual(Array.from(a.im));
    }
    expect(off.scenario.propagation.reverberation).toBeUndefined();
  });

  it('is deterministic per seed and the room\'s own: the same seed gives the same channel, another seed another', () => {
    const on = { decayNs: 13, staticTail: true, bodyDiffuse: true };
    const a = new Simulator(walking(on)).cleanChannel(0, 1.3);
    const b = new Simulator(walking(on)).cleanChannel(0, 1.3);
    const c = new Simulator({ ...walking(on), seed: 8 }).cleanChannel(0, 1.3);
    expect(Array.from(b.re)).toEqual(Array.from(a.re));
    expect(Array.from(c.re)).not.toEqual(Array.from(a.re));
  });

  it('the static tail carries the room\'s reverberant power c·λ²·T/(8πV) less the explicit reflections', () => {
    const sim = new Simulator(walking({ decayNs: 20, staticTail: true, bodyDiffuse: false }));
    const paths = sim.pathsAt(0, 0);
    const tail = paths.find((p) => p.label === 'diffuse tail')!;
    const explicit = paths.filter((p) => p.kind === 'reflection' && p.label !== 'diffuse tail').reduce((s, p) => s + p.amplitude ** 2, 0);
    const gain = reverberantGain({ width: 5, depth: 4, height: 2.7 }, SPEED_OF_LIGHT / 5.32e9, 20e-9);
    expect(tail.amplitude ** 2).toBeCloseTo(gain - explicit, 15);
    // At 4 m the line of sight is well past the reverberation distance of a 54 m³ room: the diffuse power is larger.
    expect(gain).toBeGreaterThan(paths.find((p) => p.kind === 'los')!.amplitude ** 2);
  });

  it.each([
    ['with the static tail, one direction per path', { decayNs: 13, staticTail: true, bodyDiffuse: true }],
    ['body paths only, one direction per body segment (bodyDirections: "segment")', { decayNs: 25, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' as const }],
  ])('makes a moving body change the band shape, and leaves a body that does not move alone: %s', (_name, settings) => {
    const off = new Simulator(walking());
    const on = new Simulator(walking(settings));
    let changeOff = 0;
    let changeOn = 0;
    for (const t of [0.6, 1.1, 1.6, 2.1]) {
      changeOff += bandShapeChange(off, t, t + 0.1);
      changeOn += bandShapeChange(on, t, t + 0.1);
    }
    expect(changeOn).toBeGreaterThan(3 * changeOff);
    expect(bandShapeChange(on, 1.1, 1.1)).toBe(0);
  });

  it('bodyDirections: "path" is the default (round 1\'s channel); "segment" is its own, deterministic channel', () => {
    const body = { decayNs: 25, staticTail: false, bodyDiffuse: true };
    const byDefault = new Simulator(walking(body)).cleanChannel(0, 1.3);
    const perPath = new Simulator(walking({ ...body, bodyDirections: 'path' })).cleanChannel(0, 1.3);
    const perSegment = new Simulator(walking({ ...body, bodyDirections: 'segment' })).cleanChannel(0, 1.3);
    const again = new Simulator(walking({ ...body, bodyDirections: 'segment' })).cleanChannel(0, 1.3);
    expect(Array.from(perPath.re)).toEqual(Array.from(byDefault.re));
    expect(Array.from(again.re)).toEqual(Array.from(perSegment.re));
    expect(Array.from(perSegment.re)).not.toEqual(Array.from(perPath.re));
    expect(new Simulator(walking(body)).scenario.propagation.reverberation?.bodyDirections).toBe('path');
  });
});
