// Pilot (not shipped): which distractor makes the false-presence episodes in the simulated empty rooms, per
// room and per link, on validation rooms only (the test rooms of `npm run eval:sim` are not touched).
// Run from the repository root after a build:
//   node plugins/sensing/pilot/sim_false_presence.mjs [rooms=6] [seconds=1200] [kind=empty|still|leave] > /tmp/fp.jsonl
// Writes one JSON line per link second: room, link, second, presence, state, motion, breathing rate, quality and
// reason, the motion features (ps pair spread, pf its floor), the breathing spectrum's own read (eb, eq, edge),
// and the truth (cat walking, door swinging within the motion window, person there).
// CONFIG='{"presenceHoldSeconds":60}' overrides the sensing config; ROOM=4 keeps one room; NO_GLITCH=1 / NO_AGC=1
// switch the radios' antenna-switching glitches / AGC steps off (how the glitches were found to be the source).
import { Simulator } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const rooms = Number(process.argv[2] ?? 6);
const seconds = Number(process.argv[3] ?? 1200);
const kind = process.argv[4] ?? 'empty';
const config = SensingConfigSchema.parse(JSON.parse(process.env.CONFIG ?? '{}'));
const models = DEFAULT_SENSING_MODELS;
const hash = sensingConfigHash(config, models);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms, emptySeconds: seconds, stillSeconds: seconds }).filter((s) => s.kind === kind && (process.env.ROOM === undefined || String(s.room) === process.env.ROOM));
if (process.env.NO_GLITCH) for (const s of sessions) s.scenario.impairments = { ...s.scenario.impairments, glitchChance: 0 };
if (process.env.NO_AGC) for (const s of sessions) s.scenario.impairments = { ...s.scenario.impairments, agcStepChance: 0 };
for (const session of sessions) {
  const sim = new Simulator(session.scenario);
  const start = sim.startTimeMs;
  const sensors = new Map();
  const feats = new Map();
  const truth = [];
  const swings = (session.scenario.distractors ?? []).find((d) => d.kind === 'door')?.swings ?? [];
  for (const tick of sim.run(session.seconds)) {
    const t = (tick.truth.time - start) / 1000;
    const s = Math.floor(t);
    const tr = (truth[s] ??= { catWalking: false, person: false });
    for (const d of tick.truth.distractors ?? []) if (d.kind === 'pet' && d.active) tr.catWalking = true;
    if (tick.truth.persons.length) tr.person = true;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, { environmentId: 'x', config, models, configHash: hash, onMotionFeatures: (sec, f) => feats.set(`${key}@${sec}`, f), onBreathingEstimate: (sec, e) => feats.set(`${key}#${sec}`, e) });
        sensors.set(key, sensor);
      }
      for (const f of sensor.push(frame)) {
        const tru = truth[f.second] ?? {};
        const door = swings.some((w) => f.second + 1 >= w.at && f.second - 2 <= w.at + w.durationS);
        const m = feats.get(`${key}@${f.second}`);
        console.log(JSON.stringify({ room: session.room, bpm: session.breathingBpm, link: key, s: f.second, p: f.presence, st: f.state, mo: f.motion, b: f.breathingBpm, q: f.breathingQuality, r: f.breathingReason, cat: tru.catWalking, person: tru.person, door, ps: m?.pairSpread, pf: m?.pairFloor, sp: m?.spread, pk: m?.packetStep, edge: feats.get(`${key}#${f.second}`)?.edge ?? null, eb: feats.get(`${key}#${f.second}`)?.bpm ?? null, eq: feats.get(`${key}#${f.second}`)?.quality ?? null }));
      }
    }
  }
}
