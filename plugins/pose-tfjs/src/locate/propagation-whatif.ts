import type { HardwareProfile } from './hardware-profile.js';

/**
 * A simulator propagation what-if (`--whatif-propagation`, a validation tool, off by default):
 * fields merged into every simulated room's `propagation`, e.g. the reverberant body
 * `{"reverberation":{"decayNs":22,"staticTail":false,"bodyDiffuse":true,"bodyDirections":"segment"}}`.
 * The simulator's scenario schema checks the fields when the first room is simulated.
 */
export type PropagationWhatIf = Record<string, unknown>;

/** The what-if of `--whatif-propagation <json>`: a JSON object, or a clear error naming the option. */
export function parsePropagationWhatIf(json: string): PropagationWhatIf {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`--whatif-propagation must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('--whatif-propagation must be a JSON object of propagation fields');
  return value as PropagationWhatIf;
}

/**
 * `profile` with the what-if merged into each room after the profile's own change. The name stays
 * the profile's (it names hardware); the what-if rides along as `propagationWhatIf`, so a fit
 * records it. Every room the locator code simulates goes through `apply`, the empty-room
 * reference included (it is simulated from the same scenario).
 */
export function withPropagationWhatIf(profile: HardwareProfile, whatIf: PropagationWhatIf): HardwareProfile {
  return {
    ...profile,
    propagationWhatIf: { ...profile.propagationWhatIf, ...whatIf },
    apply: (scenario) => {
      const applied = profile.apply(scenario) as typeof scenario & { propagation?: Record<string, unknown> };
      return { ...applied, propagation: { ...applied.propagation, ...whatIf } };
    },
  };
}
