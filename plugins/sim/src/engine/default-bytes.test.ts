import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, planDataset, randomScenario, Simulator } from '../index.js';
import { captureFingerprint } from '../test-support/fingerprint.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/scenarios');

/**
 * Fingerprints of short captures computed with the simulator as it was at 9ca692a, before the
 * realism options existed. The shipped model cards are reproduced from these rooms in CI, so
 * a scenario that turns no new option on must keep producing exactly these bytes.
 */
const BEFORE_REALISM: Record<string, string> = {
  'example:home-monitored.yaml': 'c6afa59f124d5274b8573a85d7e60c87233cee5ab7b11664a5e9a2acd3b164ce',
  'example:home-two-people-fall.yaml': '15748b1a969828ab9060606c8ade58113f1556abb3baf9f0172f5ea9df137c24',
  'example:retail-after-hours.yaml': 'e3e146a840c270f34c526a382f1429804b08e265186cd03c3c46ffa2718cb408',
  'example:shop-monitored.yaml': '71ba44895a27f878a63173e1ca9fe86d411011734011fadcda6e623b2dee5621',
  'example:three-people-crossing.yaml': '701e8bd0b1ce2bb70f7f18b43ab7394abf92aa7a91ca61907e5c5fc40a049557',
  'random:5': 'e618e825419ee35369415bc11373d1d89dd409041b10f1374e759a2ac49d5cf8',
  'plan:test-session': '91b1ff1c84f69b5281ba9cda24180ee30c28c0057ad867c58142ba397b1b3af6',
  'plan:reference': '384f6a988c28f914f4294bbe4c6b22469060be51281fba564b4dbb4722ab8491',
};

function fingerprints(): Record<string, string> {
  const out: Record<string, string> = {};
  // The examples that existed at 9ca692a (later examples turn realism options on by design).
  for (const key of Object.keys(BEFORE_REALISM).filter((k) => k.startsWith('example:'))) {
    const file = key.slice('example:'.length);
    out[key] = captureFingerprint(new Simulator(loadScenario(path.join(examples, file))).run(1.5));
  }
  out['random:5'] = captureFingerprint(new Simulator(randomScenario({ seed: 5, durationS: 10 })).run(2));
  // The locator's and the pose network's recipe (3 receivers at 20 Hz): a test session and its empty-room reference.
  const plan = planDataset({ rooms: 8, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v1', ranges: { receivers: [3, 3], rateHz: 20 } });
  const session = plan.sessions.find((s) => s.split === 'test')!;
  out['plan:test-session'] = captureFingerprint(new Simulator(session.scenario).run(3));
  out['plan:reference'] = captureFingerprint(new Simulator({ ...session.scenario, people: [] }).run(2));
  return out;
}

describe('default output is unchanged by the realism options', () => {
  it('every scenario that turns no new option on gives the bytes of 9ca692a', () => {
    const now = fingerprints();
    expect(now).toEqual(BEFORE_REALISM);
  }, 120_000);
});

describe('the reference phase of a scenario without drift', () => {
  it('is the scenario with its people removed, byte for byte', () => {
    const plan = planDataset({ rooms: 8, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v1', ranges: { receivers: [3, 3], rateHz: 20 } });
    const session = plan.sessions.find((s) => s.split === 'test')!;
    expect(captureFingerprint(new Simulator(session.scenario, { phase: 'reference' }).run(2))).toBe(BEFORE_REALISM['plan:reference']);
  });
});
