// The imager against drift between the empty-room reference and the recording (issue 21,
// drift-protocol.md): a re-plugged receiver's new chain phases, a reference captured with
// another noise floor, and a static change that a slowly adapting background follows.
import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import { RoomImager, type ImagingSettings } from './imager.js';
import { LiveNoiseFloor } from './live-noise.js';
import { PoseLocator } from './locator.js';
import { loadLocatorModel } from './locator-model.js';
import { simulateReference } from './simulated.js';
import { alignPacket } from './reference.js';
import { StaticChainGain } from './static-chain-gain.js';

const room = {
  name: 'drift',
  environmentId: 'drift-room',
  seed: 11,
  room: { width: 5, depth: 4, height: 2.7 },
  channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 },
  radios: [
    { id: 'tx', role: 'tx', device: 'intel5300', position: [0.5, 2, 1], yawDeg: 0, antennas: 1 },
    { id: 'rx0', role: 'rx', device: 'intel5300', position: [4.5, 2, 1], yawDeg: 180, antennas: 3 },
    { id: 'rx1', role: 'rx', device: 'intel5300', position: [2.5, 3.9, 1], yawDeg: 270, antennas: 3 },
  ],
  impairments: { snrDb: 25, timingOffsetNs: 20, randomPhase: true, chainPhase: true, agcJitterDb: 0.5, quantisation: 'none', packetLoss: 0, timingJitterUs: 0 },
  clutter: [{ label: 'sofa', position: [1.5, 3.2, 0.4], rcs: 2 }],
  people: [],
};

const imaging: ImagingSettings = { gridStepM: 0.25, heightsM: [0.9], packets: 8, separationM: 0.8, cleanRadiusM: 0, maxPersons: 2, scatterer: 'point' };

/** Run an empty room for `seconds` and return the last image's change energy over its noise energy, per link. */
function emptyChangeOverNoise(scenario: object, settings: ImagingSettings, seconds = 4): number[] {
  const validated = sim.validateScenario(scenario as never);
  const imager = new RoomImager(environmentFromScenario(validated as never), simulateReference(sim as never, validated as never), settings);
  for (const tick of new sim.Simulator(validated).run(seconds)) for (const frame of tick.frames) imager.push(frame);
  const image = imager.image();
  return image.linkEnergies[0].map((e, l) => e / image.linkNoiseEnergies[l]);
}

describe('drift between the empty-room reference and the recording', () => {
  it('a re-plugged receiver (new chain phases) reads as a large change unless each receive chain gets its own gain', () => {
    const replugged = { ...room, drift: { replugged: ['rx0'] } };
    const before = emptyChangeOverNoise(replugged, imaging);
    const after = emptyChangeOverNoise(replugged, { ...imaging, chainGain: 'per-rx-chain' });
    // Link tx->rx0 was re-plugged; tx->rx1 was not.
    expect(before[0]).toBeGreaterThan(20);
    expect(after[0]).toBeLessThan(2);
    expect(after[1]).toBeLessThan(2);
  });

  it('a gain per receive chain held over a window takes a re-plug\'s new chain phases too, and with a dead band leaves an unplugged link as it was', () => {
    const replugged = { ...room, drift: { replugged: ['rx0'] } };
    const held = emptyChangeOverNoise(replugged, { ...imaging, staticChainGain: { windowS: 30, minDeviation: 0.2 } });
    expect(held[0]).toBeLessThan(2);
    expect(held[1]).toBeLessThan(2);
    // Without drift, the dead band keeps the imager exactly as without the setting.
    expect(emptyChangeOverNoise(room, { ...imaging, staticChainGain: { windowS: 30, minDeviation: 0.2 } })).toEqual(emptyChangeOverNoise(room, imaging));
  });

  it('a reference captured 10 dB quieter than the recording: the live noise floor matches the recording, the reference\'s is several times too low', () => {
    const quietReference = { ...room, drift: { reference: { snrDb: 35 } } };
    const before = emptyChangeOverNoise(quietReference, imaging);
    const after = emptyChangeOverNoise(quietReference, { ...imaging, liveNoise: true });
    for (const ratio of before) expect(ratio).toBeGreaterThan(3);
    for (const ratio of after) { expect(ratio).toBeGreaterThan(0.7); expect(ratio).toBeLessThan(1.4); }
  });

  it('a slowly adapting background takes up a static change the reference does not hold (furniture moved)', () => {
    const moved = { ...room, drift: { moved: [{ clutter: 'sofa', to: [3.8, 0.6, 0.4] }] } };
    const before = emptyChangeOverNoise(moved, imaging, 12);
    const after = emptyChangeOverNoise(moved, { ...imaging, backgroundS: 2 }, 12);
    expect(Math.max(...before)).toBeGreaterThan(20);
    for (const ratio of after) expect(ratio).toBeLessThan(2);
  });
});

describe('the locator with a live noise floor (imaging.liveNoise, the 2.3.0 draft) against a reference captured at another noise floor', () => {
  /**
   * People reported per estimate in the empty room after its first 2 s (the live floor needs 20
   * packets of a link; until then the reference's floor is used), through the locator as a user runs it.
   */
  function reportedInEmptyRoom(scenario: object, liveNoise: boolean): number {
    const validated = sim.validateScenario(scenario as never);
    const shipped = loadLocatorModel();
    const model = { ...shipped, spec: { ...shipped.spec, imaging: { ...shipped.spec.imaging, liveNoise } } };
    const locator = new PoseLocator(model, [environmentFromScenario(validated as never)], [simulateReference(sim as never, validated as never)], { densePose: 'none', processingMode: 'job' });
    let people = 0, estimates = 0;
    for (const tick of new sim.Simulator(validated).run(8)) {
      for (const frame of tick.frames) {
        const pose = locator.push(frame);
        if (pose && tick.t >= 2) { people += pose.persons.length; estimates++; }
      }
    }
    expect(estimates).toBeGreaterThan(10);
    return people / estimates;
  }

  it('keeps an empty room empty when the reference was 10 dB quieter (the reference\'s own floor shows people there)', () => {
    const quiet = { ...room, drift: { reference: { snrDb: 35 } } };
    expect(reportedInEmptyRoom(quiet, true)).toBe(0);
    expect(reportedInEmptyRoom(quiet, false)).toBeGreaterThan(1);
  });
});

describe('StaticChainGain', () => {
  const subcarriers = [-3, -1, 1, 3], nrx = 2;
  const h0 = { re: Float64Array.from([1, 0.5, -0.3, 0.8, 0.2, -1, 0.7, 0.4]), im: Float64Array.from([0.1, -0.6, 0.9, 0.3, 1.1, 0.2, -0.5, 0.6]) };
  /** h0 with chain 1 turned by `phase` and scaled by `gain`, the packet's own phase and timing slope, plus `body` on value 0. */
  const packet = (phase: number, gain: number, p: number, body = 0) => {
    const re = new Float64Array(8), im = new Float64Array(8);
    for (let j = 0; j < 8; j++) {
      const chain = j >= 4, a = 0.7 * p + 0.02 * p * subcarriers[j % 4] + (chain ? phase : 0), g = (chain ? gain : 1) * 0.9;
      const r = h0.re[j] + (j === 0 ? body : 0), i = h0.im[j];
      re[j] = g * (r * Math.cos(a) - i * Math.sin(a)); im[j] = g * (r * Math.sin(a) + i * Math.cos(a));
    }
    return { re, im };
  };

  it('aligns a re-plugged chain (a fixed new phase and gain) onto the reference from the first packet on', () => {
    const held = new StaticChainGain(h0, subcarriers, nrx, 30, 0.2);
    for (let p = 0; p < 5; p++) {
      const x = held.align(packet(2.1, 1.4, p), p * 50)!;
      for (let j = 0; j < 8; j++) { expect(x.re[j]).toBeCloseTo(h0.re[j], 6); expect(x.im[j]).toBeCloseTo(h0.im[j], 6); }
    }
  });

  it('inside its dead band leaves the packet to the reference\'s own alignment', () => {
    const held = new StaticChainGain(h0, subcarriers, nrx, 30, 0.2);
    expect(held.align(packet(0.05, 1.05, 1), 0)).toBeNull();
    expect(held.gains()).toBeNull();
  });

  it('holds the gain over its window: a change on one packet is kept, not eaten as a per-packet gain would', () => {
    const held = new StaticChainGain(h0, subcarriers, nrx, 30);
    for (let p = 0; p < 99; p++) held.align(packet(1, 1, p), p * 50);
    const x = held.align(packet(1, 1, 99, 0.5), 99 * 50)!;
    const perPacket = alignPacket(packet(1, 1, 99, 0.5), h0, subcarriers, { nrx, gain: 'per-rx-chain' });
    expect(x.re[0] - h0.re[0]).toBeGreaterThan(perPacket.re[0] - h0.re[0] + 0.05);
  });

  it('forgets packets older than the window', () => {
    const held = new StaticChainGain(h0, subcarriers, nrx, 1);
    for (let p = 0; p < 40; p++) held.align(packet(p < 20 ? 0 : 1.5, 1, p), p * 100);
    const x = held.align(packet(1.5, 1, 40), 4000)!;
    for (let j = 0; j < 8; j++) expect(x.re[j]).toBeCloseTo(h0.re[j], 6);
  });
});

describe('LiveNoiseFloor', () => {
  // A deterministic stand-in for white noise (a linear congruential generator, Box–Muller).
  let state = 12345;
  const uniform = () => ((state = (state * 1103515245 + 12345) % 2147483648) + 0.5) / 2147483648;
  const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const subcarriers = Array.from({ length: 30 }, (_, k) => -28 + 2 * k);

  it('measures white noise of known power, and a strong smooth change (a body\'s path) leaves it nearly unchanged', () => {
    const floor = new LiveNoiseFloor(subcarriers, 3);
    const withBody = new LiveNoiseFloor(subcarriers, 3);
    expect(floor.power()).toBeNull();
    const power = 0.02, sigma = Math.sqrt(power / 2);
    for (let p = 0; p < 100; p++) {
      const re = new Float64Array(90), im = new Float64Array(90), bre = new Float64Array(90), bim = new Float64Array(90);
      for (let j = 0; j < 90; j++) {
        re[j] = sigma * gauss(); im[j] = sigma * gauss();
        // A path 30 ns long with 100 times the noise power per value, its phase turning from packet to packet.
        const a = 2 * Math.PI * subcarriers[j % 30] * 312.5e3 * 30e-9 + 0.3 * p;
        bre[j] = re[j] + Math.sqrt(100 * power) * Math.cos(a); bim[j] = im[j] + Math.sqrt(100 * power) * Math.sin(a);
      }
      floor.push(re, im);
      withBody.push(bre, bim);
    }
    expect(floor.power()! / power).toBeGreaterThan(0.9);
    expect(floor.power()! / power).toBeLessThan(1.1);
    expect(withBody.power()! / power).toBeLessThan(1.3);
  });

  it('measures nothing on a grid without evenly spaced subcarriers', () => {
    const floor = new LiveNoiseFloor([1, 2, 4, 7, 11], 1);
    expect(floor.measurable).toBe(false);
    for (let p = 0; p < 30; p++) floor.push(new Float64Array(5).fill(1), new Float64Array(5));
    expect(floor.power()).toBeNull();
  });
});
