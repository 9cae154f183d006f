import { describe, expect, it } from 'vitest';
import { DatasetRecipeSchema, loadLocatorModel, locateSplit, RECIPE_PROFILE } from '../index.js';
import type { HardwareProfile, PlanScenario } from './hardware-profile.js';
import { parsePropagationWhatIf, withPropagationWhatIf } from './propagation-whatif.js';

const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const room = { environmentId: 'room-x', propagation: { maxReflectionOrder: 2, shadowing: true } } as unknown as PlanScenario;

describe('the propagation what-if of locate fit|eval', () => {
  it('merges into each room after the profile, keeping the room\'s other propagation fields and the profile\'s name', () => {
    const profile: HardwareProfile = { name: 'recipe+4rx', apply: (s) => ({ ...s, propagation: { ...(s as unknown as { propagation: object }).propagation, shadowing: false } }) as PlanScenario };
    const whatIf = withPropagationWhatIf(profile, C2);
    const applied = whatIf.apply(room) as unknown as { propagation: Record<string, unknown> };
    expect(applied.propagation).toEqual({ maxReflectionOrder: 2, shadowing: false, ...C2 });
    expect(whatIf.name).toBe('recipe+4rx');
    expect(whatIf.propagationWhatIf).toEqual(C2);
    // The room given is not changed in place (the plan's scenarios are shared).
    expect((room as unknown as { propagation: object }).propagation).toEqual({ maxReflectionOrder: 2, shadowing: true });
  });

  it('takes a JSON object and refuses anything else naming the option', () => {
    expect(parsePropagationWhatIf(JSON.stringify(C2))).toEqual(C2);
    expect(() => parsePropagationWhatIf('[1]')).toThrow(/--whatif-propagation must be a JSON object/);
    expect(() => parsePropagationWhatIf('{decayNs')).toThrow(/--whatif-propagation must be a JSON object/);
  });

  it('reaches the simulated rooms the locator images, and the simulator refuses a field it does not know', async () => {
    const shipped = loadLocatorModel();
    const recipe = DatasetRecipeSchema.parse(shipped.spec.training.dataset);
    const firstFeatures = async (profile: HardwareProfile) => {
      for await (const instant of locateSplit(shipped, recipe, { split: 'val', maxSessions: 1, maxSeconds: 1 }, undefined, profile)) if (instant.truth?.persons.length) return instant.features;
      throw new Error('no estimate with a person');
    };
    const off = await firstFeatures(RECIPE_PROFILE);
    expect(await firstFeatures(RECIPE_PROFILE)).toEqual(off);
    expect(await firstFeatures(withPropagationWhatIf(RECIPE_PROFILE, C2))).not.toEqual(off);
    await expect(firstFeatures(withPropagationWhatIf(RECIPE_PROFILE, { reverberation: { decayNs: 22, loudness: 3 } }))).rejects.toThrow(/loudness/);
  });
});
