// Pilot (not shipped): per packet, the phase between receive chains of every simulated link, for sim_burst.py.
// For each session of the training and validation rooms (never the test rooms) and the demo home: per link and
// packet, the time (s) and the unit phasor of each receive chain's conjugate product with the first, per
// subcarrier group (8 groups, the sensor's grouping), as float32 rows [t, re0, im0, ...]; and the truth: fall and
// fall-like windows, and 10 times a second the hips' height and the mean keypoint speed.
// `--rate HZ` re-simulates the sessions at another packet rate (the eval's links send 20/s), `--kinds fall,fall-like`
// keeps only those sessions (and leaves out the demo home).
// `--whatif JSON` merges a propagation what-if into every scenario (the demo home's too), as plugins/sim/pilot/sensing_whatif.mjs
// does; `--split train|validation` dumps one split only; `--first N` starts at room N (rooms N … N + rooms − 1, e.g. fresh
// validation rooms); `--falls-row` keeps only the sessions the evaluation's falls row scores (still, empty, fall, fall-like);
// `--no-demo` leaves out the demo home; `--pause S` inserts a S-s stand after the walk of every fall and fall-like session
// (pilot/fallwidth-protocol.md).
// Run from the repository root after a build: node plugins/sensing/pilot/sim_burst_dump.mjs DIR [--small] [--rooms N] [--rate HZ] [--kinds K,...]
//   [--whatif JSON] [--split S] [--first N] [--falls-row] [--no-demo] [--pause S]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, loadScenario, validateScenario } from '@wiflow/plugin-sim';
import { simSessions, SIM_SIZES } from '../dist/index.js';
import { withPauseBeforeFall } from './pause_before_fall.mjs';

const dir = process.argv[2] ?? 'simburst';
const small = process.argv.includes('--small');
const roomsArg = process.argv.indexOf('--rooms');
const sizes = small ? SIM_SIZES.small : SIM_SIZES.full;
const GROUPS = 8;
const rateArg = process.argv.indexOf('--rate');
const rate = rateArg > 0 ? Number(process.argv[rateArg + 1]) : null;
const kindsArg = process.argv.indexOf('--kinds');
const kinds = kindsArg > 0 ? process.argv[kindsArg + 1].split(',') : null;
const arg = (name) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : null);
const whatIf = arg('--whatif') ? JSON.parse(arg('--whatif')) : null;
const withWhatIf = (scenario) => (whatIf ? validateScenario({ ...scenario, propagation: { ...scenario.propagation, ...whatIf } }, scenario.name) : scenario);
const splits = arg('--split') ? [arg('--split')] : ['train', 'validation'];
const first = Number(arg('--first') ?? 0);
const fallsRow = process.argv.includes('--falls-row');
const pause = Number(arg('--pause') ?? 0);
mkdirSync(dir, { recursive: true });

function dump(scenario, seconds, name, split, kind, index) {
  const sim = new Simulator(withWhatIf(scenario));
  const start = sim.startTimeMs;
  const links = new Map();
  const falls = [];
  const fallLike = [];
  const open = new Map();
  const truth = [];
  let lastTruth = -1;
  let previous = null;
  for (const tick of sim.run(seconds)) {
    const t = (tick.truth.time - start) / 1000;
    for (const e of tick.truth.events) {
      const at = (e.time - start) / 1000;
      if (e.type === 'fall_start' || e.type === 'fall_like_start') open.set(e.type, at);
      if (e.type === 'fall_end') falls.push([open.get('fall_start') ?? at, at, String(e.detail?.fallType ?? '')]);
      if (e.type === 'fall_like_end') fallLike.push([open.get('fall_like_start') ?? at, at, String(e.detail?.kind ?? '')]);
    }
    const person = tick.truth.persons[0];
    if (t - lastTruth >= 0.1) {
      if (person) {
        const k = person.keypoints3d;
        const hips = (k[11][2] + k[12][2]) / 2;
        let speed = 0;
        if (previous) for (let i = 0; i < k.length; i++) speed += Math.hypot(k[i][0] - previous.k[i][0], k[i][1] - previous.k[i][1], k[i][2] - previous.k[i][2]);
        truth.push([t, hips, previous ? speed / k.length / (t - previous.t) : 0]);
        previous = { k, t };
      } else {
        truth.push([t, -1, 0]);
        previous = null;
      }
      lastTruth = t;
    }
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      if (!links.has(key)) links.set(key, []);
      const { re, im } = frame.csi;
      const nsc = frame.nsc;
      const row = [(frame.time - start) / 1000];
      for (let tx = 0; tx < frame.ntx; tx++) {
        const ref = tx * frame.nrx * nsc;
        for (let r = 1; r < frame.nrx; r++) {
          const o = (tx * frame.nrx + r) * nsc;
          for (let g = 0; g < GROUPS; g++) {
            let zr = 0;
            let zi = 0;
            for (let k = Math.floor((g * nsc) / GROUPS); k < Math.floor(((g + 1) * nsc) / GROUPS); k++) {
              zr += re[o + k] * re[ref + k] + im[o + k] * im[ref + k];
              zi += im[o + k] * re[ref + k] - re[o + k] * im[ref + k];
            }
            const m = Math.hypot(zr, zi) || 1;
            row.push(zr / m, zi / m);
          }
        }
      }
      links.get(key).push(row);
    }
  }
  const files = [];
  let li = 0;
  for (const [key, rows] of links) {
    const width = rows[0].length;
    const data = new Float32Array(rows.length * width);
    rows.forEach((r, i) => data.set(r, i * width));
    const file = `${index}-${li++}.f32`;
    writeFileSync(join(dir, file), Buffer.from(data.buffer));
    files.push({ key, file, width, rows: rows.length });
  }
  return { name, split, kind, room: null, falls, fallLike, truth, links: files };
}

const out = [];
for (const split of splits) {
  let s = split === 'validation' ? { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) } : sizes;
  if (roomsArg > 0) s = { ...s, rooms: first > 0 ? Number(process.argv[roomsArg + 1]) : Math.min(s.rooms, Number(process.argv[roomsArg + 1])) };
  // walk-in sessions (added 2026-11-27) are left out, so the dump is the one its findings were read from
  for (const drawn of simSessions(split, { ...s, rooms: first + s.rooms }).filter((x) => x.kind !== 'walk-in' && x.room >= first)) {
    const session = withPauseBeforeFall(drawn, pause);
    if (kinds && !kinds.includes(session.kind)) continue;
    if (fallsRow && session.kind === 'leave') continue;
    if (rate) session.scenario = { ...session.scenario, channel: { ...session.scenario.channel, rateHz: rate } };
    out.push({ ...dump(session.scenario, session.seconds, session.scenario.name, split, session.kind, out.length), room: session.room });
    console.log(session.scenario.name);
  }
}
if (!kinds && !process.argv.includes('--no-demo')) out.push(dump(loadScenario(join(import.meta.dirname, '../../../examples/scenarios/home-monitored.yaml')), 170, 'demo home', 'demo', 'demo', out.length));
writeFileSync(join(dir, 'index.json'), JSON.stringify(out));
const cpu = process.cpuUsage();
console.log(`${out.length} sessions, ${out.reduce((a, x) => a + Math.max(...x.truth.map((r) => r[0])), 0).toFixed(0)} simulated s, ${process.uptime().toFixed(0)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU-s`);
