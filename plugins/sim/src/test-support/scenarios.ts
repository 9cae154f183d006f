import type { ScenarioInput } from '../scenario/schema.js';

/**
 * A bare test scenario: a 5 × 4 × 2.7 m room, one 3-antenna transmitter and receiver facing
 * each other at 1 m height along y = 2, no clutter, impairments off unless overridden.
 */
export function testScenario(overrides: Partial<ScenarioInput> = {}): ScenarioInput {
  return {
    name: 'test',
    environmentId: 'test-room',
    seed: 7,
    room: { width: 5, depth: 4, height: 2.7, materials: { walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' } },
    channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 100, txPowerDbm: 20 },
    radios: [
      { id: 'tx', role: 'tx', device: 'ideal', position: [0.5, 2, 1], yawDeg: 0, antennas: 3 },
      { id: 'rx', role: 'rx', device: 'ideal', position: [4.5, 2, 1], yawDeg: 180, antennas: 3 },
    ],
    impairments: { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none', packetLoss: 0, timingJitterUs: 0 },
    ...overrides,
  };
}
