// After drift round 2 (FINDINGS.md, "Drift, round 2"): how often does 2.3.0's dead band open on
// rooms WITHOUT drift (realism none), where it should stay closed? VALIDATION rooms only (the
// first N `val` sessions, 16 s each, people as drawn). Per link: the share of kept packets whose
// held chain gains are in use (outside the dead band), and how many of those fall in the first 2 s.
// Usage (package built), in plugins/pose-tfjs: node models/wiflow-locate-v2/pilot-dead-band.mjs [--sessions 8]
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference } from '../../dist/index.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';
import { StaticChainGain } from '../../dist/locate/static-chain-gain.js';

const args = process.argv.slice(2);
const SESSIONS = Number(args[args.indexOf('--sessions') + 1] || 8);
const started = process.cpuUsage();
const loadBefore = os.loadavg();
const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const { windowS, minDeviation } = locator.spec.imaging.staticChainGain;
const recipe = DatasetRecipeSchema.parse(locator.spec.training.dataset ?? {});
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val').slice(0, SESSIONS);
const rows = [];
/** The held gains at the end of the session (dB, degrees per chain; null inside the dead band). */
const heldAtEnd = (held) => {
  const g = held?.gains();
  return g ? Array.from(g.re, (r, c) => ({ db: +(10 * Math.log10(r * r + g.im[c] ** 2)).toFixed(2), deg: +((Math.atan2(g.im[c], r) * 180) / Math.PI).toFixed(1) })) : null;
};
for (const session of sessions) {
  const scenario = sim.validateScenario(session.scenario);
  const reference = simulateReference(sim, scenario);
  const links = new Map();
  let t0 = null;
  for (const tick of new sim.Simulator(scenario).run(recipe.secondsPerSession)) {
    t0 ??= tick.time;
    for (const f of tick.frames) {
      const key = `${f.link.tx}->${f.link.rx}`;
      let l = links.get(key);
      if (!l) {
        const ref = reference.links.find((r) => r.tx === f.link.tx && r.rx === f.link.rx);
        l = { gain: ref.gain, held: ref.gain === 'common' ? new StaticChainGain({ re: Float64Array.from(ref.re), im: Float64Array.from(ref.im) }, Int16Array.from(ref.subcarriers), ref.nrx, windowS, minDeviation) : null, packets: 0, open: 0, openFirst2s: 0 };
        links.set(key, l);
      }
      if (!l.held) continue;
      const used = l.held.align(f.csi, f.time) !== null;
      l.packets++;
      if (used) { l.open++; if (f.time - t0 < 2000) l.openFirst2s++; }
    }
  }
  const out = {};
  for (const [key, l] of links) out[key] = { gain: l.gain, packets: l.packets, openShare: l.packets ? +(l.open / l.packets).toFixed(3) : null, openInFirst2s: l.openFirst2s, heldAtEnd: heldAtEnd(l.held) };
  rows.push({ session: session.sessionId, people: scenario.people.length, links: out });
  process.stderr.write(`${session.sessionId} (${scenario.people.length} people): ${JSON.stringify(out)}\n`);
}
const u = process.cpuUsage(started);
console.log(JSON.stringify({ pilot: 'dead-band', split: 'val', realism: 'none', sessions: rows.length, windowS, minDeviation, locator: { version: locator.spec.version, hash: locator.hash }, loadBefore, loadAfter: os.loadavg(), cpuSeconds: +((u.user + u.system) / 1e6).toFixed(1), rows }, null, 1));
