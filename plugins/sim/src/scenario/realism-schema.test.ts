import { WiflowError } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { parseScenario, validateScenario } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

/** The error a bad scenario raises: always a coded WiflowError naming the field, never a crash. */
function errorOf(input: unknown): WiflowError {
  try {
    validateScenario(input, 'bad.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(WiflowError);
    return error as WiflowError;
  }
  throw new Error('the scenario was accepted');
}

describe('bad realism fields get a clear error with the field path', () => {
  const cases: [string, Record<string, unknown>, RegExp, string?][] = [
    ['fan rpm below zero', { distractors: [{ kind: 'fan', position: [2, 2, 2.5], rpm: -5 }] }, /distractors\.0\.rpm/],
    ['an unknown distractor kind', { distractors: [{ kind: 'robot-vacuum', position: [1, 1, 0.1] }] }, /distractors\.0\.kind/],
    ['a pet walking through the wall', { distractors: [{ kind: 'pet', path: [[1, 1], [9, 1]] }] }, /distractors\.0\.path\.1/, 'WIFLOW_SIM_OUTSIDE_ROOM'],
    ['a fan outside the room', { distractors: [{ kind: 'fan', position: [2, 2, 3.5] }] }, /distractors\.0\.position/, 'WIFLOW_SIM_OUTSIDE_ROOM'],
    ['a neighbour beyond the wall\'s end', { distractors: [{ kind: 'neighbour', wall: 'north', from: 1, to: 12 }] }, /distractors\.0\.to: 12 m is beyond the north wall \(5 m long\)/],
    ['a door swing with a string time', { distractors: [{ kind: 'door', hinge: [0, 1], closedYawDeg: 90, swings: [{ at: 'soon', toDeg: 90 }] }] }, /distractors\.0\.swings\.0\.at/],
    ['moving furniture that does not exist', { clutter: [{ label: 'sofa', position: [1, 1, 0.4] }], drift: { moved: [{ clutter: 'piano', to: [2, 2, 0.4] }] } }, /drift\.moved\.0\.clutter: no clutter item "piano"/],
    ['re-plugging an unknown radio', { drift: { replugged: ['router'] } }, /drift\.replugged\.0: no radio "router"/],
    ['a negative drift period', { drift: { staticDrift: { periodS: -1 } } }, /drift\.staticDrift\.periodS/],
    ['an unknown antenna pattern', { radios: [{ id: 'tx', role: 'tx', position: [1, 1, 1], pattern: { kind: 'yagi' } }, { id: 'rx', role: 'rx', position: [4, 1, 1] }] }, /radios\.0\.pattern\.kind/],
    ['a glitch chance above 0.2', { impairments: { glitchChance: 0.9 } }, /impairments\.glitchChance/],
    ['an unknown spatial mapping', { impairments: { spatialMapping: 'beamformed' } }, /impairments\.spatialMapping/],
  ];
  for (const [what, patch, pattern, code] of cases) {
    it(what, () => {
      const error = errorOf({ ...testScenario(), ...patch });
      expect(error.code).toBe(code ?? 'WIFLOW_SIM_SCENARIO_INVALID');
      expect(error.message).toMatch(pattern);
    });
  }

  it('YAML with realism fields parses to the same scenario as JSON', () => {
    const yaml = `
room: { width: 5, depth: 4 }
radios:
  - { id: tx, role: tx, position: [0.5, 2, 1], pattern: { kind: patch, beamwidthDeg: 70 } }
  - { id: rx, role: rx, position: [4.5, 2, 1] }
distractors:
  - { kind: fan, mount: ceiling, position: [2.5, 2, 2.5], rpm: 150 }
  - { kind: pet, species: dog, path: [[1, 1], [3, 3]] }
drift: { replugged: [rx], staticDrift: { gainDb: 0.2 } }
`;
    const s = parseScenario(yaml);
    expect(s.distractors?.[1]).toMatchObject({ kind: 'pet', species: 'dog', speed: 0.5, restS: 20 });
    expect(s.drift?.staticDrift).toEqual({ gainDb: 0.2, phaseRad: 0.2, periodS: 3600, elapsedS: 3600 });
    expect(s.radios[0].pattern).toEqual({ kind: 'patch', beamwidthDeg: 70, frontToBackDb: 15 });
  });
});
