// After the 2.3.0 draft (live noise floor) lost people on clean test rooms: how much does a
// walking person raise the live floor over the reference's? VALIDATION rooms only, realism none:
// the first 8 val sessions, 12 s each, per link the live floor (LiveNoiseFloor, median over the
// packets) over the reference's noisePower, the room empty and with its people. A ratio r lowers
// every estimate's log change-over-noise by log r, against the tracker's birth margin of 0.1.
// Usage (package built), in plugins/pose-tfjs: node models/wiflow-locate-v2/pilot-live-noise.mjs
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference } from '../../dist/index.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';
import { LiveNoiseFloor } from '../../dist/locate/live-noise.js';
import { referenceChange } from '../../dist/locate/calibrated-link.js';
const started = process.cpuUsage(), loadBefore = os.loadavg();
const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const recipe = DatasetRecipeSchema.parse(locator.spec.training.dataset);
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const rows = [];
for (const session of plan.sessions.filter((s) => s.split === 'val').slice(0, 8)) {
  const sc = session.scenario, ref = simulateReference(sim, sc);
  const row = { session: session.sessionId, people: sc.people.length };
  for (const people of [false, true]) {
    const m = new Map();
    for (const tick of new sim.Simulator(people ? sc : { ...sc, people: [] }).run(12)) for (const f of tick.frames) {
      const r = ref.links.find((l) => l.tx === f.link.tx && l.rx === f.link.rx);
      const link = { reference: r, h0: { re: Float64Array.from(r.re), im: Float64Array.from(r.im) }, subcarriers: Int16Array.from(r.subcarriers), n: r.re.length };
      const key = `${f.link.tx}->${f.link.rx}`;
      if (!m.has(key)) m.set(key, { r, live: new LiveNoiseFloor(link.subcarriers, r.ntx * r.nrx, 1000) });
      const d = referenceChange(link, f.csi); m.get(key).live.push(d.re, d.im);
    }
    row[people ? 'occupied' : 'empty'] = Object.fromEntries([...m].map(([k, s]) => [k, +(s.live.power() / s.r.noisePower).toFixed(2)]));
  }
  process.stderr.write(`${row.session} ${row.people}p empty ${Object.values(row.empty).join(' ')} occupied ${Object.values(row.occupied).join(' ')}\n`);
  rows.push(row);
}
const u = process.cpuUsage(started);
console.log(JSON.stringify({ pilot: 'live-noise', split: 'val', loadBefore, loadAfter: os.loadavg(), cpuSeconds: +((u.user + u.system) / 1e6).toFixed(1), rows }, null, 1));
