// Pilot (not shipped; issue 22, branch fallguard): where the false falls in quiet rooms and still people come from.
// For each capture: every fall the product raises (which detector, the peak's second since the link's first frame,
// its probability), the link's motion and state from 3 s before to 3 s after, and what the detector judged there
// (burst candidates: features; profile events: probability). Evaluation hooks only; the product runs unchanged.
// Run from the repository root after a build: node plugins/sensing/pilot/fallguard_diagnose.mjs FILE...
import { loadavg } from 'node:os';
import { DEFAULT_SENSING_MODELS, FALL_FEATURES, radioFamily, senseCapture } from '../dist/index.js';

const clock = { wall: Date.now(), cpu: process.cpuUsage(), load: loadavg()[0] };
for (const file of process.argv.slice(2)) {
  const candidates = [];
  const events = [];
  const result = await senseCapture(file, { onFallCandidate: (c) => candidates.push(c), onProfileEvent: (e) => events.push(e) });
  const links = result.links;
  const origin = links.length ? links[0].time - (links[0].second + 1) * 1000 : 0;
  const falls = links.flatMap((f) => f.falls.map((x) => ({ ...x, second: (x.time - origin) / 1000, judgedIn: f.second })));
  const profile = events.length > 0;
  console.log(`\n${file.split('/real/')[1]}: ${result.frames} frames, ${result.room.length} s, states ${[...new Set(result.room.map((f) => f.state))].join('/')}, ${profile ? 'profile' : 'burst'} detector (${candidates.length} burst candidates, ${events.length} profile events)`);
  for (const f of falls) {
    console.log(`  fall at t=${f.second.toFixed(2)} s p=${f.confidence.toFixed(3)} (in second ${f.judgedIn})`);
    const around = links.filter((x) => x.second >= Math.floor(f.second) - 3 && x.second <= Math.floor(f.second) + 3);
    console.log(`    seconds ${around.map((x) => `${x.second}:${x.state}/${x.motion}`).join(' ')}`);
    if (profile) {
      const e = events.find((x) => Math.abs(x.second - f.second) < 1e-6);
      if (e) console.log(`    profile event: strength ${e.strength.toFixed(3)}, probability ${e.probability.toFixed(3)}`);
    } else {
      const c = candidates.find((x) => Math.abs(x.second - f.second) < 1e-6);
      if (c) console.log(`    burst candidate: peak ${c.peak.toFixed(4)}; ${FALL_FEATURES.map((n, i) => `${n}=${c.features[i].toFixed(2)}`).join(' ')}`);
    }
  }
  const top = profile ? [...events].sort((a, b) => b.probability - a.probability).slice(0, 3).map((e) => `t=${e.second.toFixed(2)} p=${e.probability.toFixed(3)}`) : [...candidates].sort((a, b) => b.probability - a.probability).slice(0, 3).map((c) => `t=${c.second.toFixed(1)} p=${c.probability.toFixed(3)}`);
  console.log(`  top judged: ${top.join(', ')}; moving seconds (motion ≥ threshold): ${links.filter((x) => x.state === 'moving').length} by state`);
}
const cpu = process.cpuUsage(clock.cpu);
console.log(`\nwall ${((Date.now() - clock.wall) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, load ${clock.load.toFixed(2)} → ${loadavg()[0].toFixed(2)}`);
