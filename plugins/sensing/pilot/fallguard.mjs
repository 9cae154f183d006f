// Pilot (not shipped; pilot/fallguard-protocol.md, issue 22): false falls in quiet rooms and still people, today and
// with the candidate guards G1 (`fallMovementGuard`), G2 (`fallFullContext`) and both, run through the product itself.
// (a) real quiet/still captures through `senseCapture` (room falls per hour); (b) the falls row's sessions (still,
// empty, fall, fall-like) of fresh simulated validation rooms, each simulated once and sensed by one `LinkSensor` per
// link and candidate, room seconds by `combineRoomSecond`, scored by the evaluation's own `scoreSimRuns`.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/fallguard.mjs OUT.json [--real-only | --sim-only] [--first 204] [--rooms 12]
import { readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Simulator } from '@wiflow/plugin-sim';
import { combineRoomSecond, DEFAULT_SENSING_MODELS, FallTruth, defaultRealRoot, LinkSensor, scoreSimRuns, senseCapture, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const arg = (name) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : null);
const outFile = process.argv[2];
if (!outFile || outFile.startsWith('--')) throw new Error('usage: fallguard.mjs OUT.json [--real-only | --sim-only] [--first N] [--rooms N]');
const first = Number(arg('--first') ?? 204);
const count = Number(arg('--rooms') ?? 12);
const CANDIDATES = { today: {}, G1: { fallMovementGuard: true }, G2: { fallFullContext: true }, 'G1+G2': { fallMovementGuard: true, fallFullContext: true } };
const models = DEFAULT_SENSING_MODELS;
const configs = Object.fromEntries(Object.entries(CANDIDATES).map(([name, c]) => {
  const config = SensingConfigSchema.parse({ fallMovementGuard: false, fallFullContext: false, ...c });
  return [name, { config, configHash: sensingConfigHash(config, models) }];
}));
const clockOf = () => ({ wall: Date.now(), cpu: process.cpuUsage(), load: loadavg()[0] });
const spent = (c) => { const cpu = process.cpuUsage(c.cpu); return { wallS: (Date.now() - c.wall) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, load: [c.load, loadavg()[0]] }; };
const out = {};

if (!process.argv.includes('--sim-only')) {
  const root = defaultRealRoot();
  const list = (dir, keep = () => true) => readdirSync(join(root, dir)).filter((f) => !f.endsWith('.json') && !f.endsWith('.gyro.csv') && keep(f)).sort().map((f) => join(dir, f));
  const sets = {
    'presence-esp32 baseline': list('presence-esp32/baseline'),
    'intel5300 lying + sitting': [...list('activities-intel5300/lying'), ...list('activities-intel5300/sitting')],
    'breathing-intel5300 sd/sn/sno': list('breathing-intel5300', (f) => /_(sd|sn|sno)\d\.dat$/.test(f)),
    'breathing-esp32': list('breathing-esp32'),
  };
  const clock = clockOf();
  out.real = {};
  for (const [set, files] of Object.entries(sets)) {
    const row = { files: files.length, seconds: 0 };
    for (const [name, { config }] of Object.entries(configs)) {
      let falls = 0;
      let seconds = 0;
      const where = [];
      for (const file of files) {
        const r = await senseCapture(join(root, file), { config });
        seconds += r.room.length;
        for (const f of r.room) if (f.falls.length) { falls += f.falls.length; where.push(`${file.split('/').pop()} s${f.second}`); }
      }
      row.seconds = seconds;
      row[name] = { falls, perHour: Math.round((falls / seconds) * 3600 * 100) / 100, where };
    }
    out.real[set] = row;
    console.error(`${set}: ${Object.keys(configs).map((n) => `${n} ${row[n].falls}`).join(', ')} in ${row.seconds} s`);
  }
  out.realClock = spent(clock);
}

if (!process.argv.includes('--real-only')) {
  const clock = clockOf();
  const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: first + count }).filter((s) => s.room >= first && ['still', 'empty', 'fall', 'fall-like'].includes(s.kind));
  const runs = Object.fromEntries(Object.keys(configs).map((n) => [n, []]));
  for (const session of sessions) {
    const sim = new Simulator(session.scenario);
    const start = sim.startTimeMs;
    const sensors = new Map();
    const frames = Object.fromEntries(Object.keys(configs).map((n) => [n, []]));
    const fallTruth = new FallTruth(start);
    const { falls, fallLike } = fallTruth;
    for (const tick of sim.run(session.seconds)) {
      fallTruth.add(tick.truth.events);
      for (const frame of tick.frames) {
        const key = `${frame.link.tx}>${frame.link.rx}`;
        if (!sensors.has(key)) sensors.set(key, Object.fromEntries(Object.entries(configs).map(([n, { config, configHash }]) => [n, new LinkSensor(frame.link, { environmentId: session.scenario.environmentId, config, models, configHash })])));
        for (const [n, sensor] of Object.entries(sensors.get(key))) frames[n].push(...sensor.push(frame));
      }
    }
    for (const perLink of sensors.values()) for (const [n, sensor] of Object.entries(perLink)) frames[n].push(...sensor.finish());
    for (const n of Object.keys(configs)) {
      const bySecond = new Map();
      for (const f of frames[n]) bySecond.set(f.second, [...(bySecond.get(f.second) ?? []), f]);
      const room = [...bySecond.keys()].sort((a, b) => a - b).map((s) => combineRoomSecond(bySecond.get(s)));
      runs[n].push({ session, room, links: [], present: [], moving: [], falls, fallLike, breathingTruth: [], motionRows: [], candidates: [] });
    }
    console.error(`${session.scenario.name}: ${Object.keys(configs).map((n) => `${n} ${runs[n].at(-1).room.reduce((a, f) => a + f.falls.length, 0)}`).join(', ')}`);
  }
  out.sim = { rooms: [first, first + count - 1], sessions: sessions.length, seconds: sessions.reduce((a, s) => a + s.seconds, 0) };
  for (const n of Object.keys(configs)) out.sim[n] = Object.fromEntries(scoreSimRuns(runs[n]).filter((r) => r.name.startsWith('falls')).map((r) => [r.name, { value: r.value, detail: r.detail }]));
  out.simClock = spent(clock);
}
writeFileSync(outFile, JSON.stringify(out, null, 2));
console.log(JSON.stringify(out, (k, v) => (k === 'where' ? v.slice(0, 8) : v), 1));
