// Pilot (not shipped, descriptive): per link second of the still and empty sessions of chosen validation rooms,
// the motion features against the installer's empty-room reference, for pilot/refloor-protocol.md (read after
// its grid; nothing is chosen on it). Prints, per group (still seconds the room misses, still seconds it finds,
// empty-room seconds), percentiles of spread / reference spread, pair spread / reference median pair spread and
// pair spread / the link's own floor.
//   node plugins/sensing/pilot/refloor_levels.mjs 144-155
import { Simulator } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions, simulateSensingReference, combineRoomSecond } from '../dist/index.js';

const [from, to] = (process.argv[2] ?? '144-155').split('-').map(Number);
const config = SensingConfigSchema.parse({});
const hash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.room >= from && ['still', 'empty'].includes(s.kind));
const groups = { 'still missed': [], 'still found': [], empty: [] };
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[s.length >> 1]; };
for (const session of sessions) {
  const refs = simulateSensingReference(session);
  const sim = new Simulator(session.scenario);
  const start = sim.startTimeMs;
  const sensors = new Map();
  const feats = new Map();
  const present = [];
  const links = [];
  for (const tick of sim.run(session.seconds)) {
    present[Math.floor((tick.truth.time - start) / 1000)] = tick.truth.persons.length > 0;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, { environmentId: 'x', config, models: DEFAULT_SENSING_MODELS, configHash: hash, onMotionFeatures: (s, f) => feats.set(`${key}@${s}`, f) });
        sensors.set(key, sensor);
      }
      links.push(...sensor.push(frame).map((f) => ({ key, f })));
    }
  }
  for (const [key, sensor] of sensors) links.push(...sensor.finish().map((f) => ({ key, f })));
  const bySecond = new Map();
  for (const { f } of links) bySecond.set(f.second, [...(bySecond.get(f.second) ?? []), f]);
  const roomPresent = new Map([...bySecond].map(([s, fs]) => [s, combineRoomSecond(fs).presence]));
  for (const { key, f } of links) {
    if (f.second < 10) continue;
    const m = feats.get(`${key}@${f.second}`);
    const ref = refs.get(key);
    if (!m || !ref) continue;
    const group = session.kind === 'empty' ? 'empty' : !present[f.second] ? null : roomPresent.get(f.second) ? 'still found' : 'still missed';
    if (!group) continue;
    groups[group].push({ room: session.room, key, spread: m.spread / ref.spread, pair: m.pairSpread / median(ref.pairSpreads), floor: m.pairSpread / (m.pairFloor || 1e-9), refOverOwn: median(ref.pairSpreads) / (m.pairFloor || 1e-9) });
  }
}
const pct = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
for (const [name, rows] of Object.entries(groups)) {
  console.log(`${name}: ${rows.length} link seconds in rooms ${[...new Set(rows.map((r) => r.room))].join(',')}`);
  for (const k of ['spread', 'pair', 'floor', 'refOverOwn']) console.log(`  ${k}: p10 ${pct(rows.map((r) => r[k]), 0.1).toFixed(2)} p50 ${pct(rows.map((r) => r[k]), 0.5).toFixed(2)} p90 ${pct(rows.map((r) => r[k]), 0.9).toFixed(2)} p99 ${pct(rows.map((r) => r[k]), 0.99).toFixed(2)}`);
}
