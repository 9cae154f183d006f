// Pilot (not shipped): why a person who walks in after the warm-up is missed. Runs the walk-in sessions of
// `npm run eval:sim` (src/eval/sim-sessions.ts) of one split and prints per session the arrival, the room's first
// present second and recall from arrival (5-s grace, as the evaluation), and per link during the walk (seconds the
// person's mean keypoint speed is >= 0.2 m/s): the motion probability against the model's threshold, the pair
// spread over the link's floor (the entry's size, >= presenceEntryFloorRatio counts), and the most person-sized
// moving seconds in any entry window (presenceEntryWindowSeconds; presenceEntryMovingSeconds start presence).
// Run from the repository root after a build:
//   node plugins/sensing/pilot/walkin_misses.mjs test 0-11 > /tmp/walkin-misses.txt
//   CONFIG='{"presenceEntryFloorRatio":1.5}' node plugins/sensing/pilot/walkin_misses.mjs validation 14-25
// Descriptive only on the test split (nothing is chosen there). A line `summary` ends the output.
import { Simulator } from '@wiflow/plugin-sim';
import { combineRoomSecond, DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const split = process.argv[2] ?? 'validation';
const [from, to] = (process.argv[3] ?? '0-5').split('-').map(Number);
const config = SensingConfigSchema.parse(JSON.parse(process.env.CONFIG ?? '{}'));
const models = DEFAULT_SENSING_MODELS;
const hash = sensingConfigHash(config, models);
const sessions = simSessions(split, { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.kind === 'walk-in' && s.room >= from);
const r2 = (v) => Math.round(v * 100) / 100;
let seconds = 0;
let found = 0;
let never = 0;
const lat = [];
for (const session of sessions) {
  const sim = new Simulator(session.scenario);
  const start = sim.startTimeMs;
  const sensors = new Map();
  const size = new Map();
  const byLink = new Map();
  const speed = [];
  const present = [];
  let previous = null;
  let previousT = 0;
  for (const tick of sim.run(session.seconds)) {
    const t = (tick.truth.time - start) / 1000;
    const s = Math.floor(t);
    const person = tick.truth.persons[0];
    if (person) {
      present[s] = true;
      if (previous && t > previousT) {
        let sum = 0;
        for (let k = 0; k < person.keypoints3d.length; k++) sum += Math.hypot(person.keypoints3d[k][0] - previous[k][0], person.keypoints3d[k][1] - previous[k][1], person.keypoints3d[k][2] - previous[k][2]);
        speed[s] = Math.max(speed[s] ?? 0, sum / person.keypoints3d.length / (t - previousT));
      }
      previous = person.keypoints3d;
    } else previous = null;
    previousT = t;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, { environmentId: 'x', config, models, configHash: hash, onMotionFeatures: (sec, f) => size.set(`${key}@${sec}`, f.pairSpread / (f.pairFloor || 1e-9)) });
        sensors.set(key, sensor);
        byLink.set(key, []);
      }
      for (const f of sensor.push(frame)) byLink.get(key)[f.second] = { ...f, size: size.get(`${key}@${f.second}`) };
    }
  }
  for (const [key, sensor] of sensors) for (const f of sensor.finish()) byLink.get(key)[f.second] = { ...f, size: size.get(`${key}@${f.second}`) };
  const arrival = present.findIndex(Boolean);
  const room = [];
  for (let s = 0; s < session.seconds; s++) {
    const frames = [...byLink.values()].map((l) => l[s]).filter(Boolean);
    if (frames.length) room[s] = combineRoomSecond(frames).presence;
  }
  const first = room.findIndex((p, s) => s >= arrival && p);
  let n = 0;
  let k = 0;
  for (let s = arrival + 5; s < session.seconds; s++) if (present[s] && room[s] !== undefined) { n++; if (room[s]) k++; }
  seconds += n;
  found += k;
  if (first < 0) never++;
  else lat.push(first - arrival);
  const walk = [];
  for (let s = arrival; s < session.seconds && s < arrival + 40; s++) if ((speed[s] ?? 0) >= 0.2) walk.push(s);
  console.log(`${split} room ${session.room} (${session.detail}): arrival ${arrival} s, walk ${walk.length} s (${walk[0]}-${walk.at(-1)}), first present ${first < 0 ? 'never' : `${first} s (+${first - arrival})`}, recall from arrival ${r2(k / Math.max(1, n))} (${k}/${n}), present before arrival ${room.slice(10, arrival).filter(Boolean).length} s`);
  const threshold = models.motion.sim?.threshold ?? 0.5;
  for (const [key, frames] of byLink) {
    const moving = (s) => (frames[s]?.motion ?? 0) >= threshold;
    const sized = (s) => moving(s) && (frames[s]?.size ?? 0) >= config.presenceEntryFloorRatio;
    let best = 0;
    for (let s = arrival; s < arrival + 40; s++) {
      let c = 0;
      for (let j = s; j < s + config.presenceEntryWindowSeconds; j++) if (sized(j)) c++;
      best = Math.max(best, c);
    }
    const sizes = walk.map((s) => frames[s]?.size).filter((v) => v !== undefined);
    const sorted = [...sizes].sort((a, b) => a - b);
    console.log(`  link ${key}: walk seconds moving ${walk.filter(moving).length}/${walk.length}, size (pair spread / floor) median ${r2(sorted[sorted.length >> 1] ?? NaN)}, per second ${walk.map((s) => `${r2(frames[s]?.size ?? NaN)}${moving(s) ? '' : '°'}`).join(' ')}; most person-sized moving seconds in a ${config.presenceEntryWindowSeconds}-s window ${best}; link present from arrival ${frames.slice(arrival).filter((f) => f?.presence).length} s`);
  }
}
lat.sort((a, b) => a - b);
const med = lat.length ? (lat.length % 2 ? lat[lat.length >> 1] : (lat[lat.length / 2 - 1] + lat[lat.length / 2]) / 2) : null;
console.log(`summary ${split} rooms ${from}-${to} config ${JSON.stringify(JSON.parse(process.env.CONFIG ?? '{}'))}: recall from arrival ${(found / Math.max(1, seconds)).toFixed(4)} (${found}/${seconds}), never found ${never}/${sessions.length}, seconds to presence median ${med} (${lat.join(', ')}); ° = not moving`);
