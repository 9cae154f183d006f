import { describe, expect, it } from 'vitest';
import { Simulator, validateScenario, type ScenarioInput } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

/**
 * A receiver's `impairments` and the drift's `reference` override only the fields they name.
 * Before, they were parsed with `ImpairmentsSchema.partial()`, which in zod 4 keeps the defaults:
 * `{ agcOffsetDb: 2 }` became a full set (snrDb 25, packetLoss 0.01, random phases, …) laid over the
 * scenario's own values, so a realism-v2 room's empty-room reference had the default radio's noise.
 */
const off = { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none' as const, packetLoss: 0, timingJitterUs: 0 };

/** The SNR a frame reports: its noise floor below its mean RSSI. */
function reportedSnrDb(sim: Simulator): number {
  const f = sim.next().frames[0];
  const meanRssi = 10 * Math.log10(f.rssi!.reduce((acc, v) => acc + 10 ** (v / 10), 0) / f.rssi!.length);
  return Math.round((meanRssi - f.noiseDbm!) * 10) / 10;
}

function frames(sim: Simulator, ticks: number): number {
  let n = 0;
  for (let i = 0; i < ticks; i++) n += sim.next().frames.length;
  return n;
}

describe('impairment overrides name only the fields they change', () => {
  it('parse to the fields given, with no defaults filled in, and reject unknown fields', () => {
    const s = validateScenario(testScenario({ impairments: { ...off, snrDb: 10 }, drift: { reference: { agcOffsetDb: 2 } } }));
    expect(s.drift?.reference).toEqual({ agcOffsetDb: 2 });
    const withRx = validateScenario(testScenario({ radios: [testScenario().radios[0], { ...testScenario().radios[1], impairments: { snrDb: 12 } }] }));
    expect(withRx.radios[1].impairments).toEqual({ snrDb: 12 });
    expect(() => validateScenario(testScenario({ drift: { reference: { snrDB: 10 } as never } }))).toThrow(/snrDB/);
  });

  it('the empty-room reference keeps the scenario\'s SNR when the drift overrides only its AGC offset', () => {
    const spec = testScenario({ impairments: { ...off, snrDb: 10 }, drift: { reference: { agcOffsetDb: 2 } } });
    expect(reportedSnrDb(new Simulator(spec, { phase: 'reference' }))).toBe(10);
    expect(reportedSnrDb(new Simulator(spec))).toBe(10);
  });

  it('a reference override that changes nothing simulates the same channel as the recording', () => {
    const spec = testScenario({ impairments: off, drift: { reference: { timingOffsetNs: 0 } } });
    const reference = new Simulator(spec, { phase: 'reference' }).next().frames[0].csi;
    const recording = new Simulator(spec).next().frames[0].csi;
    expect(Array.from(reference.re)).toEqual(Array.from(recording.re));
    expect(Array.from(reference.im)).toEqual(Array.from(recording.im));
  });

  it('a receiver that overrides its SNR keeps the scenario\'s other impairments (no packet loss here)', () => {
    const [tx, rx] = testScenario().radios;
    const spec: ScenarioInput = testScenario({ impairments: { ...off, snrDb: 30 }, radios: [tx, { ...rx, impairments: { snrDb: 10 } }] });
    expect(reportedSnrDb(new Simulator(spec))).toBe(10);
    // The default packetLoss (0.01) would lose about 10 of 1000 packets; the scenario says 0.
    expect(frames(new Simulator(spec), 1000)).toBe(1000);
  });
});
