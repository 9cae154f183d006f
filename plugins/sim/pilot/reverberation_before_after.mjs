// Pilot (not shipped; issue 22, branch revfast): the reverberant body's cost before and after an optimisation, each
// build in its own process, C2 off and on, alternating builds and settings round by round so all see the same load.
// Per run: the sim bench's standard scenario (src/bench/sim-bench.ts), a 3 s warm-up, then `seconds` simulated;
// CPU time (user + system) of that process. Prints every run and the best per build and setting.
// Run from plugins/sim after a build, with the other build's dist copied somewhere under the repository's
// node_modules (so its imports resolve), e.g. `cp -r plugins/sim/dist node_modules/.sim-before`:
//   node pilot/reverberation_before_after.mjs <before dist> <after dist> [seconds=30] [rounds=3]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };

if (process.argv[2] === '--one') {
  const [, , , dir, mode, secondsArg] = process.argv;
  const sim = await import(path.resolve(dir, 'index.js'));
  const bench = await import(path.resolve(dir, 'bench/sim-bench.js'));
  const measure = (seconds) => {
    const input = bench.benchScenario('standard');
    const scenario = sim.validateScenario({ ...input, durationS: seconds, propagation: { ...(input.propagation ?? {}), ...(mode === 'on' ? C2 : {}) } });
    const run = new sim.Simulator(scenario, { attachTruth: false });
    const before = process.cpuUsage();
    let frames = 0;
    for (const tick of run.run(seconds)) frames += tick.frames.length;
    const used = process.cpuUsage(before);
    return { cpuS: (used.user + used.system) / 1e6, frames };
  };
  measure(3);
  console.log(JSON.stringify(measure(Number(secondsArg))));
} else {
  const [beforeDir, afterDir] = process.argv.slice(2, 4);
  const seconds = Number(process.argv[4] ?? 30);
  const rounds = Number(process.argv[5] ?? 3);
  const builds = { before: beforeDir, after: afterDir };
  console.log(`load average before ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}; ${seconds} s simulated a run, ${rounds} rounds`);
  const runs = {};
  for (let r = 0; r < rounds; r++) {
    for (const [build, dir] of Object.entries(builds)) {
      for (const mode of ['off', 'on']) {
        const out = JSON.parse(execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--one', dir, mode, String(seconds)], { encoding: 'utf8' }));
        (runs[`${build} ${mode}`] ??= []).push(out.cpuS);
      }
    }
  }
  console.log('| build | C2 | CPU-s per simulated second, each round | best: × real time per CPU-second |\n|---|---|---|---:|');
  for (const [key, cpu] of Object.entries(runs)) {
    const [build, mode] = key.split(' ');
    console.log(`| ${build} | ${mode} | ${cpu.map((c) => (c / seconds).toFixed(4)).join(' / ')} | ${(seconds / Math.min(...cpu)).toFixed(1)}× |`);
  }
  console.log(`load average after ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
}
