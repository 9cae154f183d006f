import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { simulateReference, withRealism } from '../index.js';
import { DatasetRecipeSchema } from '../sim/recipe.js';

const scenario = {
  name: 'moved-sofa',
  environmentId: 'moved-sofa',
  seed: 4,
  room: { width: 5, depth: 4, height: 2.7 },
  channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 },
  radios: [
    { id: 'tx', role: 'tx', device: 'intel5300', position: [0.5, 2, 1], yawDeg: 0, antennas: 3 },
    { id: 'rx', role: 'rx', device: 'intel5300', position: [4.5, 2, 1], yawDeg: 180, antennas: 3 },
  ],
  impairments: { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: true, agcJitterDb: 0, quantisation: 'none', packetLoss: 0, timingJitterUs: 0 },
  clutter: [{ label: 'sofa', position: [1.5, 3.2, 0.4], rcs: 2 }],
  drift: { moved: [{ clutter: 'sofa', to: [3.8, 0.6, 0.4] }] },
} as const;

const distance = (a: { re: number[]; im: number[] }, b: { re: number[]; im: number[] }) => Math.max(...a.re.map((v, i) => Math.hypot(v - b.re[i], a.im[i] - b.im[i])));

describe('the locator evaluation on realistic rooms', () => {
  it('the simulated reference is the room as installed: the sofa where it stood, not where the recording has it', () => {
    const reference = simulateReference(sim as never, sim.validateScenario(scenario) as never).links[0];
    const installed = simulateReference(sim as never, sim.validateScenario({ ...scenario, drift: undefined }) as never).links[0];
    const movedRoom = simulateReference(sim as never, sim.validateScenario({ ...scenario, drift: undefined, clutter: [{ label: 'sofa', position: [3.8, 0.6, 0.4], rcs: 2 }] }) as never).links[0];
    expect(distance(reference, installed)).toBeLessThan(1e-9);
    expect(distance(reference, movedRoom)).toBeGreaterThan(1e-6);
  });

  it("--realism none leaves the recipe as it is (the card's rooms); v2 asks the simulator for realistic rooms", () => {
    const recipe = DatasetRecipeSchema.parse({});
    expect(withRealism(recipe, 'none')).toBe(recipe);
    expect(withRealism(recipe, 'v2').ranges).toEqual({ ...recipe.ranges, realism: 'v2' });
    expect(withRealism(recipe, 'v2', ['drift']).ranges).toEqual({ ...recipe.ranges, realism: 'v2', realismEffects: ['drift'] });
    const rooms = sim.planDataset({ rooms: 3, secondsPerSession: 4, seed: recipe.seed, ranges: withRealism(recipe, 'v2').ranges as never });
    expect(rooms.sessions.every((s) => s.scenario.drift?.referenceSeed !== undefined)).toBe(true);
  });
});
