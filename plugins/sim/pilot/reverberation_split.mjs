// Pilot (not shipped; issue 22, branch revfast): where the reverberant body's cost goes. Times LinkChannel.compute()
// on the sim bench's standard link (3 × 3, 30 subcarriers, three people walking) at 200 instants, C2 off and on,
// for several builds loaded into one process, in alternating blocks; prints the least µs per compute of each.
// The split comes from copies of a build with one part of `#addBodyDiffuse` skipped by hand (in
// dist/physics/link-channel.js): the sweep (`this.#sumSeparable(` … under `if (amp < 0)`), the body's phasor
// (`this.#phasors(shiftLength` likewise), or the whole per-path loop (`m < draws.count` → `m < 0`). Copy each build
// under the repository's node_modules so that its imports resolve. Run from plugins/sim after a build:
//   node pilot/reverberation_split.mjs [reps=5] [rounds=10] name=<dist> [name=<dist> …]
import os from 'node:os';
import path from 'node:path';

const reps = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 10);
const builds = process.argv.slice(4).map((a) => a.split('='));
if (builds.length === 0) builds.push(['this', 'dist']);
const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const cases = [];
for (const [name, dir] of builds) {
  const sim = await import(path.resolve(dir, 'index.js'));
  const bench = await import(path.resolve(dir, 'bench/sim-bench.js'));
  for (const mode of ['off', 'on']) {
    const input = bench.benchScenario('standard');
    const scenario = sim.validateScenario({ ...input, durationS: 10, propagation: { ...(input.propagation ?? {}), ...(mode === 'on' ? C2 : {}) } });
    const s = new sim.Simulator(scenario, { attachTruth: false });
    const channel = s.linkChannel(0);
    const bodies = Array.from({ length: 200 }, (_, i) => s.bodiesAt(i * 0.05));
    const re = new Float64Array(channel.ntx * channel.nrx * channel.nsc);
    const im = new Float64Array(re.length);
    const run = () => {
      for (let r = 0; r < reps; r++) for (const b of bodies) channel.compute(b, re, im);
    };
    cases.push({ key: `${name} ${mode}`, run, calls: reps * bodies.length, best: Infinity, all: [] });
  }
}
console.log(`load average before ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
for (const c of cases) c.run();
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    const before = process.cpuUsage();
    c.run();
    const used = process.cpuUsage(before);
    const us = (used.user + used.system) / c.calls;
    c.best = Math.min(c.best, us);
    c.all.push(us.toFixed(0));
  }
}
console.log('| build | C2 | least µs per compute() | every round |\n|---|---|---:|---|');
for (const c of cases) console.log(`| ${c.key.replace(' ', ' | ')} | ${c.best.toFixed(1)} | ${c.all.join(' ')} |`);
console.log(`load average after ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
