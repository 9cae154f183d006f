// Pilot diagnostic (not shipped): how alike a point scatterer's responses at 0.3 m and 1.5 m above one floor cell are
// on the sensing sim rooms' links (1 transmit antenna, a horizontal 3-antenna receiver, the frames' subcarriers):
// |a(0.3)ᴴ a(1.5)| / n per cell, median and 10th percentile over the cells of each room (1 = heights unresolvable).
// Run from the repository root after a build: node plugins/sensing/pilot/fallheight_coherence.mjs [split] [from-to]
// or with a scenario file (the demo home: three 3 × 3 links): node plugins/sensing/pilot/fallheight_coherence.mjs examples/scenarios/home-monitored.yaml
import * as sim from '@wiflow/plugin-sim';
import { arrayElements, environmentFromScenario } from '@wiflow/plugin-pose-tfjs';
import { simSessions, SIM_SIZES } from '../dist/index.js';

const C = 299_792_458;
const split = process.argv[2] ?? 'validation';
const [from, to] = (split.endsWith('.yaml') ? '0-0' : process.argv[3] ?? '78-83').split('-').map(Number);
const sessions = split.endsWith('.yaml') ? [{ scenario: sim.loadScenario(split), room: split }] : simSessions(split, { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.kind === 'empty' && s.room >= from);
for (const session of sessions) {
  const scenario = session.scenario;
  const environment = environmentFromScenario(scenario);
  // One frame gives the link's centre frequency and subcarrier grid as the simulator sends them.
  let frame = null;
  for (const tick of new sim.Simulator(scenario).run(0.2)) if (!frame && tick.frames.length) frame = tick.frames[0];
  const fc = frame.centerFrequencyHz;
  const spacing = 312.5e3; // subcarrier indices are multiples of 312.5 kHz from the centre (core CsiFrame)
  const fk = Array.from(frame.subcarriers, (k) => fc + k * spacing);
  const values = [];
  for (const link of environment.links) {
    const tx = arrayElements(link.txPosition, link.txArray, fc);
    const rx = arrayElements(link.rxPosition, link.rxArray, fc);
    for (let x = 0.15; x < environment.room.width; x += 0.3) {
      for (let y = 0.15; y < environment.room.depth; y += 0.3) {
        const L = (h) => tx.flatMap((t) => rx.map((r) => Math.hypot(x - t[0], y - t[1], h - t[2]) + Math.hypot(x - r[0], y - r[1], h - r[2])));
        const low = L(0.3), high = L(1.5);
        let re = 0, im = 0, n = 0;
        for (let e = 0; e < low.length; e++) for (const f of fk) { const a = (2 * Math.PI * f * (high[e] - low[e])) / C; re += Math.cos(a); im += Math.sin(a); n++; }
        values.push(Math.hypot(re, im) / n);
      }
    }
  }
  values.sort((a, b) => a - b);
  console.log(`${split} room ${session.room}: ${environment.links.length} link(s), fc ${(fc / 1e9).toFixed(3)} GHz, ${fk.length} subcarriers; coherence 0.3 m vs 1.5 m: median ${values[values.length >> 1].toFixed(3)}, 10th percentile ${values[Math.floor(values.length * 0.1)].toFixed(3)}`);
}
