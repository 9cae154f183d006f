// Pilot (not shipped; round 3's switch-on plan, issue 22): which of src/engine/default-bytes.test.ts's eight
// recorded captures would change if a reverberation setting were the default. Each capture as the test makes it,
// once as it is and once with the setting merged into its propagation; same bytes or not (frame values, RSSI, noise).
// Run from the repository root after a build:
//   node plugins/sim/pilot/default_bytes_whatif.mjs ['<propagation json>']
import { createHash } from 'node:crypto';
import path from 'node:path';
import { loadScenario, planDataset, randomScenario, Simulator, validateScenario } from '@wiflow/plugin-sim';

const on = JSON.parse(process.argv[2] ?? '{"reverberation":{"decayNs":22,"staticTail":false,"bodyDiffuse":true,"bodyDirections":"segment"}}');
const examples = path.resolve('examples/scenarios');
function bytes(scenario, seconds) {
  const hash = createHash('sha256');
  for (const tick of new Simulator(scenario, { attachTruth: false }).run(seconds)) {
    for (const f of tick.frames) {
      hash.update(`${f.timestamp}|${f.rssi?.join(',')}|${f.noiseDbm}|`);
      hash.update(new Uint8Array(f.csi.re.buffer, f.csi.re.byteOffset, f.csi.re.byteLength));
      hash.update(new Uint8Array(f.csi.im.buffer, f.csi.im.byteOffset, f.csi.im.byteLength));
    }
  }
  return hash.digest('hex');
}
const withOn = (s) => validateScenario({ ...s, propagation: { ...s.propagation, ...on } });
const plan = planDataset({ rooms: 8, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v1', ranges: { receivers: [3, 3], rateHz: 20 } });
const session = plan.sessions.find((s) => s.split === 'test');
const CAPTURES = {
  ...Object.fromEntries(['home-monitored.yaml', 'home-two-people-fall.yaml', 'retail-after-hours.yaml', 'shop-monitored.yaml', 'three-people-crossing.yaml'].map((f) => [`example:${f}`, [loadScenario(path.join(examples, f)), 1.5]])),
  'random:5': [randomScenario({ seed: 5, durationS: 10 }), 2],
  'plan:test-session': [session.scenario, 3],
  'plan:reference': [{ ...session.scenario, people: [] }, 2],
};
for (const [name, [scenario, seconds]] of Object.entries(CAPTURES)) {
  const s = validateScenario(scenario);
  console.log(`${name}: ${bytes(s, seconds) === bytes(withOn(s), seconds) ? 'same bytes' : 'changes'} (${s.people.length} people)`);
}
