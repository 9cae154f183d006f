import * as sim from '@wiflow/plugin-sim';
import { loadScenario } from '@wiflow/plugin-sim';
import { environmentFromScenario, simulateReference } from '@wiflow/plugin-pose-tfjs';
import { describe, expect, it } from 'vitest';
import { applyEvaluationProfile, EXAMPLE_SCENARIOS_DIR, HARDWARE_CHOICES, parseProfile } from './index.js';

const shop = () => loadScenario(`${EXAMPLE_SCENARIOS_DIR}/shop-monitored.yaml`);

describe('evaluation hardware profiles', () => {
  it('names every chip and setup of the hardware planner', () => {
    expect(Object.keys(HARDWARE_CHOICES)).toEqual(expect.arrayContaining(['recipe', 'esp32-ht20', 'intel5300-1x3-ht20', 'intel5300-1x3-ht40', 'intel5300-3x3-ht20', 'intel5300-3x3-ht40', 'nexmon-1x4-80']));
  });

  it('refuses an unknown name or placement with WIFLOW_SIM_PROFILE_UNKNOWN and the known names', () => {
    for (const name of ['wifi7', 'recipe+5rx', '', 'esp32-ht20+']) {
      expect(() => parseProfile(name)).toThrowError(expect.objectContaining({ code: 'WIFLOW_SIM_PROFILE_UNKNOWN', message: expect.stringContaining('nexmon-1x4-80') }));
    }
  });

  it('recipe keeps the radios; a chip profile changes what each link measures', () => {
    const asDrawn = environmentFromScenario(applyEvaluationProfile(shop(), parseProfile('recipe')));
    expect(asDrawn.links).toHaveLength(3);
    const intel = applyEvaluationProfile(shop(), parseProfile('intel5300-3x3-ht40'));
    expect(intel.channel.bandwidthMHz).toBe(40);
    expect(intel.radios.filter((r) => r.role === 'tx').every((r) => r.antennas === 3)).toBe(true);
    const nexmon = applyEvaluationProfile(shop(), parseProfile('nexmon-1x4-80'));
    expect(nexmon.channel.bandwidthMHz).toBe(80);
    expect(nexmon.radios.filter((r) => r.role === 'rx').every((r) => r.antennas === 4 && r.device === 'nexmon')).toBe(true);
    const esp = applyEvaluationProfile(shop(), parseProfile('esp32-ht20'));
    expect(esp.radios.every((r) => r.antennas === 1 && r.device === 'esp32')).toBe(true);
  });

  it('+4rx adds a fourth receiver and +2tx a second transmitter, inside the room, facing it', () => {
    const four = applyEvaluationProfile(shop(), parseProfile('recipe+4rx'));
    expect(environmentFromScenario(four).links).toHaveLength(4);
    const two = applyEvaluationProfile(shop(), parseProfile('intel5300-1x3-ht20+2tx'));
    const links = environmentFromScenario(two).links;
    expect(links).toHaveLength(6);
    const added = two.radios.find((r) => r.id === 'added-tx')!;
    expect(added.antennas).toBe(1);
    expect(added.position[0]).toBeGreaterThan(0);
    expect(added.position[0]).toBeLessThan(two.room.width);
    expect(added.position[1]).toBeGreaterThan(0);
    expect(added.position[1]).toBeLessThan(two.room.depth);
  });
});

describe('~clean', () => {
  it("keeps the chip's grid and antennas but the room's own impairments", () => {
    const room = shop();
    const clean = applyEvaluationProfile(room, parseProfile('nexmon-1x4-80~clean'));
    const chip = applyEvaluationProfile(room, parseProfile('nexmon-1x4-80'));
    expect(clean.channel.bandwidthMHz).toBe(80);
    expect(clean.radios.filter((r) => r.role === 'rx').every((r) => r.antennas === 4)).toBe(true);
    expect(clean.impairments).toEqual(applyEvaluationProfile(room, parseProfile('recipe')).impairments);
    expect(chip.impairments).not.toEqual(clean.impairments);
  });
});

describe('Intel 5300 at 40 MHz', () => {
  it("the empty-room reference of a simulated HT40 room aligns each receive chain on its own; HT20 and HT40 ~clean keep one common gain", () => {
    const gains = (profile: string) => simulateReference(sim as never, applyEvaluationProfile(shop(), parseProfile(profile))).links.map((l) => l.gain);
    expect(gains('intel5300-1x3-ht40')).toEqual(['per-rx-chain', 'per-rx-chain', 'per-rx-chain']);
    expect(gains('intel5300-3x3-ht40')).toEqual(['per-rx-chain', 'per-rx-chain', 'per-rx-chain']);
    expect(gains('intel5300-1x3-ht20')).toEqual(['common', 'common', 'common']);
    expect(gains('intel5300-1x3-ht40~clean')).toEqual(['common', 'common', 'common']);
  }, 60_000);
});
