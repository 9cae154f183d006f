import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WiflowError } from '@wiflow/core';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, randomScenario, Simulator, validateScenario } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/scenarios');

describe('scenario files', () => {
  it('every example scenario loads and runs', () => {
    const files = readdirSync(examples).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) {
      const s = loadScenario(path.join(examples, f));
      expect(s.people.length).toBeGreaterThan(0);
      const sim = new Simulator(s);
      const tick = sim.next();
      expect(tick.truth.environmentId).toBe(s.environmentId);
      expect(tick.frames.length).toBeLessThanOrEqual(sim.links.length);
    }
  });

  it('JSON and YAML describe the same scenario', () => {
    const input = testScenario({ people: [{ id: 1, start: { x: 1, y: 1 }, script: [{ action: 'stand', duration: 1 }] }] });
    const fromJson = parseScenario(JSON.stringify(input), 'json');
    const fromYaml = parseScenario(stringify(input), 'yaml');
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson.propagation.maxReflectionOrder).toBe(2);
  });

  it('rejects bad input with clear, coded errors', () => {
    const bad = (value: unknown, pattern: RegExp, code = 'WIFLOW_SIM_SCENARIO_INVALID') => {
      try {
        validateScenario(value);
      } catch (error) {
        expect(error).toBeInstanceOf(WiflowError);
        expect((error as WiflowError).code).toBe(code);
        expect((error as Error).message).toMatch(pattern);
        return;
      }
      throw new Error('accepted a bad scenario');
    };
    bad({}, /room/);
    bad({ ...testScenario(), room: { width: -1, depth: 3 } }, /room.width/);
    bad({ ...testScenario(), radios: [{ id: 'a', role: 'tx', position: [9, 1, 1] }, { id: 'b', role: 'rx', position: [1, 1, 1] }] }, /radio a/, 'WIFLOW_SIM_OUTSIDE_ROOM');
    bad({ ...testScenario(), people: [{ id: 1, start: { x: 1, y: 1 }, script: [{ action: 'dance' }] }] }, /people.0.script.0/);
    bad({ ...testScenario(), links: [{ tx: 'rx', rx: 'tx' }] }, /link names tx radio rx/, 'WIFLOW_SIM_RADIO_UNKNOWN');
    expect(() => parseScenario('room: [unclosed', 'yaml')).toThrow(/not valid YAML/);
    expect(() => loadScenario('/nonexistent/scenario.yaml')).toThrow(/cannot read scenario.*ENOENT/);
  });

  it('is deterministic for a seed: same seed, same frames; another seed, other noise', () => {
    const scenario = loadScenario(path.join(examples, 'home-two-people-fall.yaml'));
    const run = (seed?: number) => {
      const sim = new Simulator(scenario, { seed });
      const out: number[] = [];
      for (const tick of sim.run(0.3)) for (const f of tick.frames) out.push(f.timestamp, ...f.csi.re.slice(0, 8), ...f.csi.im.slice(0, 8));
      return out;
    };
    expect(run()).toEqual(run());
    expect(run(5)).not.toEqual(run());
  });

  it('randomised scenarios are valid and deterministic for a seed', () => {
    const a = randomScenario({ seed: 11, durationS: 20 });
    const b = randomScenario({ seed: 11, durationS: 20 });
    const c = randomScenario({ seed: 12, durationS: 20 });
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    for (let seed = 0; seed < 25; seed++) {
      const s = randomScenario({ seed, durationS: 30 });
      expect(s.people.length).toBeGreaterThanOrEqual(1);
      expect(s.people.length).toBeLessThanOrEqual(3);
      const sim = new Simulator(s);
      // Scripts run to the end without errors and people stay inside the room (doors lie on walls).
      for (let t = 0; t < 32; t += 0.5) {
        for (const p of sim.truthAt(t).persons) {
          expect(p.position.x).toBeGreaterThanOrEqual(-0.01);
          expect(p.position.x).toBeLessThanOrEqual(s.room.width + 0.01);
        }
      }
    }
  });

  it('the example scenario files are documented in YAML comments or descriptions', () => {
    for (const f of readdirSync(examples).filter((x) => /\.ya?ml$/.test(x))) expect(readFileSync(path.join(examples, f), 'utf8')).toMatch(/^# /);
  });
});
