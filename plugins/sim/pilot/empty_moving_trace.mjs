// Pilot (not shipped): why some links of the simulated empty rooms (fan, cat, door) read "moving" most of the
// time in plugin-sensing's validation rooms (note4: three links, 100 %, 100 % and 61 % of empty seconds). Each
// case re-simulates a link's empty session with one cause taken away at a time and reports the share of seconds
// (after the first 30) that sensing calls moving, and the median motion features it decides on.
// Validation rooms only; the test rooms of `npm run eval:sim` are not touched.
// Run from the repository root after a build:
//   node plugins/sim/pilot/empty_moving_trace.mjs [seconds=150] [rooms=1,16,17,0,2,4]
import { Simulator, validateScenario } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '@wiflow/plugin-sensing';

const seconds = Number(process.argv[2] ?? 150);
const rooms = (process.argv[3] ?? '1,16,17,0,2,4').split(',').map(Number);
const config = SensingConfigSchema.parse({});
const models = DEFAULT_SENSING_MODELS;
const hash = sensingConfigHash(config, models);
// The sessions as evaluated (the full sizes: the fan's draws follow the door's, whose count depends on the session's length); only `seconds` of each is simulated.
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: 18 }).filter((s) => s.kind === 'empty' && rooms.includes(s.room));

const withDistractors = (kinds) => (sc) => ({ ...sc, distractors: sc.distractors.filter((d) => kinds.includes(d.kind)) });
const fanWith = (change) => (sc) => ({ ...sc, distractors: sc.distractors.map((d) => (d.kind === 'fan' ? { ...d, ...change } : d)) });
const VARIANTS = {
  'as evaluated': (sc) => sc,
  'no fan': withDistractors(['pet', 'door']),
  'fan only': withDistractors(['fan']),
  'nothing moving': withDistractors([]),
  'fan only, impairments off': (sc) => ({ ...withDistractors(['fan'])(sc), impairments: { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none', packetLoss: 0, timingJitterUs: 0 }, drift: undefined }),
  ...(process.env.FAN_VARIANTS ? JSON.parse(process.env.FAN_VARIANTS) : {}),
};
for (const [name, change] of Object.entries(process.env.FAN_VARIANTS ? JSON.parse(process.env.FAN_VARIANTS) : {})) VARIANTS[name] = (sc) => fanWith(change)(withDistractors(['fan'])(sc));

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };
for (const session of sessions) {
  const fan = session.scenario.distractors.find((d) => d.kind === 'fan');
  console.log(`room ${session.room}: fan ${fan.blades} blades × ${fan.bladeLengthM} m at ${fan.rpm} rpm (blade-pass ${(fan.blades * fan.rpm / 60).toFixed(2)} Hz, tip ${(2 * Math.PI * fan.bladeLengthM * fan.rpm / 60).toFixed(1)} m/s), ${fan.bladeRcs} m² a blade, at ${fan.position.join(', ')}`);
  for (const [name, variant] of Object.entries(VARIANTS)) {
    const scenario = validateScenario(variant(session.scenario));
    const sim = new Simulator(scenario, { attachTruth: false });
    const sensors = new Map();
    const stats = new Map();
    for (const tick of sim.run(seconds)) {
      for (const frame of tick.frames) {
        const key = `${frame.link.tx}>${frame.link.rx}`;
        let sensor = sensors.get(key);
        if (!sensor) {
          const st = { n: 0, moving: 0, feats: new Map() };
          stats.set(key, st);
          sensor = new LinkSensor(frame.link, { environmentId: 'x', config, models, configHash: hash, onMotionFeatures: (sec, f) => st.feats.set(sec, f) });
          sensors.set(key, sensor);
        }
        const st = stats.get(key);
        for (const f of sensor.push(frame)) {
          if (f.second < 30) continue;
          st.n++;
          if (f.motion !== null && f.state === 'moving') st.moving++;
          (st.motion ??= []).push(f.motion ?? 0);
        }
      }
    }
    const parts = [];
    for (const [key, st] of stats) {
      const fs = [...st.feats.entries()].filter(([s]) => s >= 30).map(([, f]) => f);
      parts.push(`${key} moving ${(st.moving / Math.max(1, st.n)).toFixed(2)}, motion ${median(st.motion ?? []).toFixed(2)}, spread ${median(fs.map((f) => f.spread)).toFixed(4)}, pair ${median(fs.map((f) => f.pairSpread)).toFixed(4)}, packet step ${median(fs.map((f) => f.packetStep)).toFixed(4)}`);
    }
    console.log(`  ${name.padEnd(28)} ${parts.join(' | ')}`);
  }
}
