// Pilot (not shipped): falls from the height of the change (fallheight-protocol.md). For each session of the
// chosen rooms, simulates once and feeds every frame both to the shipped per-link sensing (`LinkSensor`, its
// burst candidates through `onFallCandidate`) and to the locator's imager (`RoomImager` of pose-tfjs, heights
// 0.3/0.9/1.5 m); every 0.5 s writes the room image I(cell, height) = mean over links of each link's power share,
// as float32 rows [t, I(c0,h0), I(c0,h1), ...]. Plus the truth (falls, fall-like windows) and the CPU the
// imaging took. Run from the repository root after a build (imports @wiflow/plugin-pose-tfjs from the workspace:
// a pilot's import, not a dependency of the sensing package):
//   node plugins/sensing/pilot/fallheight_dump.mjs DIR --split train --rooms 0-5
//   node plugins/sensing/pilot/fallheight_dump.mjs DIR --split validation --rooms 78-83
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { RoomImager, environmentFromScenario, simulateReference } from '@wiflow/plugin-pose-tfjs';
import { simSessions, SIM_SIZES, LinkSensor, DEFAULT_SENSING_MODELS, SensingConfigSchema, sensingConfigHash } from '../dist/index.js';

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const dir = process.argv[2];
const split = arg('--split', 'validation');
const [from, to] = arg('--rooms', '78-83').split('-').map(Number);
const kinds = arg('--kinds', 'still,empty,fall,fall-like').split(',');
const HEIGHTS = [0.3, 0.9, 1.5];
const SETTINGS = { gridStepM: 0.3, heightsM: HEIGHTS, packets: 10, separationM: 0.8, cleanRadiusM: 0, maxPersons: 1, scatterer: 'point', minPacketIntervalS: 0.045 };
const STEP_S = 0.5;
mkdirSync(dir, { recursive: true });

const config = SensingConfigSchema.parse({});
const models = DEFAULT_SENSING_MODELS;
const configHash = sensingConfigHash(config, models);
const sessions = simSessions(split, { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.room >= from && s.room <= to && kinds.includes(s.kind));
const out = [];
let imagingCpuUs = 0;
let simulatedSeconds = 0;
const wallStart = Date.now();
const cpuStart = process.cpuUsage();
for (const session of sessions) {
  const scenario = session.scenario;
  const environment = environmentFromScenario(scenario);
  const reference = simulateReference(sim, scenario);
  const imager = new RoomImager(environment, reference, SETTINGS);
  const simulator = new sim.Simulator(scenario);
  const start = simulator.startTimeMs;
  const sensors = new Map();
  const candidates = [];
  const falls = [];
  const fallLike = [];
  const open = new Map();
  const rows = [];
  let nextImage = STEP_S;
  const cells = imager.cells.length;
  const H = HEIGHTS.length;
  for (const tick of simulator.run(session.seconds)) {
    const t = (tick.truth.time - start) / 1000;
    for (const e of tick.truth.events) {
      const at = (e.time - start) / 1000;
      if (e.type === 'fall_start' || e.type === 'fall_like_start') open.set(e.type, at);
      if (e.type === 'fall_end') falls.push([open.get('fall_start') ?? at, at, String(e.detail?.fallType ?? '')]);
      if (e.type === 'fall_like_end') fallLike.push([open.get('fall_like_start') ?? at, at, String(e.detail?.kind ?? '')]);
    }
    const before = process.cpuUsage();
    for (const frame of tick.frames) if (imager.has(frame)) imager.push(frame);
    if (t >= nextImage && imager.ready()) {
      const powers = imager.powerByHeight();
      const row = new Float32Array(1 + cells * H);
      row[0] = t;
      for (const p of powers) {
        let total = 0;
        for (let j = 0; j < p.length; j++) total += p[j];
        for (let j = 0; j < p.length; j++) row[1 + j] += p[j] / (total || 1) / powers.length;
      }
      rows.push(row);
      nextImage = t + STEP_S;
    }
    const used = process.cpuUsage(before);
    imagingCpuUs += used.user + used.system;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, { environmentId: scenario.environmentId, config, models, configHash, onFallCandidate: (c) => candidates.push({ link: key, time: c.time, probability: c.probability }) });
        sensors.set(key, sensor);
      }
      sensor.push(frame);
    }
  }
  for (const sensor of sensors.values()) sensor.finish();
  simulatedSeconds += session.seconds;
  const index = out.length;
  const data = new Float32Array(rows.length * (1 + cells * H));
  rows.forEach((r, i) => data.set(r, i * r.length));
  writeFileSync(join(dir, `${index}.f32`), Buffer.from(data.buffer));
  out.push({
    name: scenario.name, split, room: session.room, kind: session.kind, detail: session.detail, seconds: session.seconds,
    falls, fallLike, candidates: candidates.map((c) => ({ ...c, second: (c.time - start) / 1000 })),
    cells: imager.cells, heights: HEIGHTS, links: environment.links.length, file: `${index}.f32`, width: 1 + cells * H, rows: rows.length,
    wall: environment.room,
  });
  console.log(`${scenario.name}: ${rows.length} images, ${candidates.length} candidates, imaging ${(imagingCpuUs / 1e6).toFixed(1)} CPU-s so far`);
}
const cpu = process.cpuUsage(cpuStart);
const summary = { sessions: out, simulatedSeconds, imagingCpuS: imagingCpuUs / 1e6, totalCpuS: (cpu.user + cpu.system) / 1e6, wallS: (Date.now() - wallStart) / 1000, settings: SETTINGS };
writeFileSync(join(dir, 'index.json'), JSON.stringify(summary));
console.log(`${out.length} sessions, ${simulatedSeconds} s simulated; imaging ${summary.imagingCpuS.toFixed(1)} CPU-s (${(summary.imagingCpuS / simulatedSeconds).toFixed(4)} per room-second), total ${summary.totalCpuS.toFixed(1)} CPU-s, wall ${summary.wallS.toFixed(0)} s`);
