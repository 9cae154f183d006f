// Pilot (not shipped; round 3's switch-on plan, issue 22): what the reverberant body (C2 or another setting)
// costs per simulated second. Two scenes, each off and on in alternating rounds in one process, CPU time of this
// process (user + system) per simulated second and per frame:
//   bench     the sim bench's standard scenario (src/bench/sim-bench.ts: one 3 × 3 Intel 5300 link, 30 subcarriers,
//             100 Hz, three people walking, a fan, drift, the profile's impairments);
//   sensing   the realism table's walking capture (one 1 × 3 link at 20 Hz, one person).
// Run from the repository root after a build:
//   node plugins/sim/pilot/reverberation_cost.mjs [seconds=10] [rounds=3] ['<propagation json>']
import os from 'node:os';
import { Simulator, validateScenario, applyProfile, emptyRoomScenario } from '@wiflow/plugin-sim';
import { benchScenario } from '../dist/bench/sim-bench.js';

const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 3);
const on = JSON.parse(process.argv[4] ?? '{"reverberation":{"decayNs":22,"staticTail":false,"bodyDiffuse":true,"bodyDirections":"segment"}}');

function walking() {
  const s = emptyRoomScenario({ durationS: seconds });
  const input = { ...s, people: [{ id: 1, start: { x: 1.5, y: 1 }, loop: true, script: [{ action: 'walk', path: [[4.5, 4]], speed: 1.1 }, { action: 'walk', path: [[1.5, 1]], speed: 1.1 }] }] };
  return { ...applyProfile(input, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(input.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 } };
}
const SCENES = { bench: () => benchScenario('standard'), sensing: walking };

function measure(input, propagation) {
  const scenario = validateScenario({ ...input, durationS: seconds, propagation: { ...(input.propagation ?? {}), ...propagation } });
  const sim = new Simulator(scenario, { attachTruth: false });
  const before = process.cpuUsage();
  let frames = 0;
  for (const tick of sim.run(seconds)) frames += tick.frames.length;
  const used = process.cpuUsage(before);
  return { cpuS: (used.user + used.system) / 1e6, frames };
}
console.log(`load average before ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}; ${seconds} s simulated a run, ${rounds} rounds; on = ${JSON.stringify(on)}`);
console.log('| scene | CPU-s per simulated second, off | on | on / off | frames per CPU-second off | on |\n|---|---:|---:|---:|---:|---:|');
for (const [name, make] of Object.entries(SCENES)) {
  const off = [];
  const withOn = [];
  for (let r = 0; r < rounds; r++) {
    off.push(measure(make(), {}));
    withOn.push(measure(make(), on));
  }
  const best = (runs) => runs.reduce((a, b) => (a.cpuS <= b.cpuS ? a : b));
  const a = best(off);
  const b = best(withOn);
  console.log(`| ${name} | ${(a.cpuS / seconds).toFixed(3)} | ${(b.cpuS / seconds).toFixed(3)} | ${(b.cpuS / a.cpuS).toFixed(2)} | ${Math.round(a.frames / a.cpuS)} | ${Math.round(b.frames / b.cpuS)} |`);
}
console.log(`load average after ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
