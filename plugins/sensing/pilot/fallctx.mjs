// Pilot (not shipped; pilot/fallctx-protocol.md, issue 22, second round): false falls in quiet rooms and still people,
// today and with the candidates G2 (`fallFullContext`), G3 (`fallMotionGuard`) and both, run through the product itself
// (fallguard.mjs's harness with these candidates and fresh rooms). Information only: where the real fall clips' peak
// falls sit in their clips (`--clips`, today's product; the clips are the test set, no candidate runs on them).
// (a) real quiet/still captures through `senseCapture` (room falls per hour); (b) the falls row's sessions (still,
// empty, fall, fall-like) of fresh simulated validation rooms, each simulated once and sensed by one `LinkSensor` per
// link and candidate, room seconds by `combineRoomSecond`, scored by the evaluation's own `scoreSimRuns`.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/fallctx.mjs OUT.json [--real-only | --sim-only | --clips-only] [--clips] [--first 216] [--rooms 12]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Simulator } from '@wiflow/plugin-sim';
import { combineRoomSecond, DEFAULT_SENSING_MODELS, FallTruth, defaultRealRoot, LinkSensor, scoreSimRuns, senseCapture, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const arg = (name) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : null);
const outFile = process.argv[2];
if (!outFile || outFile.startsWith('--')) throw new Error('usage: fallctx.mjs OUT.json [--real-only | --sim-only] [--first N] [--rooms N]');
const first = Number(arg('--first') ?? 216);
const count = Number(arg('--rooms') ?? 12);
const CANDIDATES = { today: {}, G2: { fallFullContext: true }, G3: { fallMotionGuard: true }, 'G2+G3': { fallFullContext: true, fallMotionGuard: true } };
const models = DEFAULT_SENSING_MODELS;
const configs = Object.fromEntries(Object.entries(CANDIDATES).map(([name, c]) => {
  const config = SensingConfigSchema.parse({ fallMovementGuard: false, fallFullContext: false, fallMotionGuard: false, ...c });
  return [name, { config, configHash: sensingConfigHash(config, models) }];
}));
const clockOf = () => ({ wall: Date.now(), cpu: process.cpuUsage(), load: loadavg()[0] });
const spent = (c) => { const cpu = process.cpuUsage(c.cpu); return { wallS: (Date.now() - c.wall) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, load: [c.load, loadavg()[0]] }; };
const out = {};

if (process.argv.includes('--clips') || process.argv.includes('--clips-only')) {
  // Information only: the peak fall of each real fall clip (the shipped profile detector's highest-probability judged
  // event; the clips carry no annotated time), and whether it lies in the clip's first 3 s or last 5 s.
  const dir = join(defaultRealRoot(), 'activities-intel5300');
  const clips = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')).filter((e) => e.label === 'fall');
  const rows = [];
  for (const clip of clips) {
    const events = [];
    const r = await senseCapture(join(dir, clip.file), { config: configs.today.config, onProfileEvent: (e) => events.push(e) });
    const seconds = r.links.length ? Math.max(...r.links.map((f) => f.second)) + 1 : 0;
    const peak = events.reduce((best, e) => (!best || e.probability > best.probability ? e : best), null);
    const at = peak ? Math.round(peak.second * 10) / 10 : null;
    const edge = at === null ? 'no event' : at < 3 ? 'first 3 s' : at > seconds - 5 ? 'last 5 s' : 'inside';
    rows.push({ file: clip.file, seconds, peakSecond: at, probability: peak ? Math.round(peak.probability * 1000) / 1000 : null, edge });
  }
  const count = (k) => rows.filter((r) => r.edge === k).length;
  out.clips = { clips: rows.length, 'first 3 s': count('first 3 s'), 'last 5 s': count('last 5 s'), inside: count('inside'), 'no event': count('no event'), rows };
  console.error(`fall clips: ${JSON.stringify({ ...out.clips, rows: undefined })}`);
}

if (!process.argv.includes('--sim-only') && !process.argv.includes('--clips-only')) {
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

if (!process.argv.includes('--real-only') && !process.argv.includes('--clips-only')) {
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
