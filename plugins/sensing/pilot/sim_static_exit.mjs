// Pilot (not shipped): does the static channel tell a still person from an empty room, once the link has seen
// the room empty? (Exit detection instead of a fixed hold: presence would end when the quiet channel returns
// to its empty profile.) Validation rooms only. The evaluation's still and leaving sessions start with the
// person in the room, so here each gets an empty lead-in: the person is absent for LEAD seconds first.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/sim_static_exit.mjs [rooms=6] [lead=120] > /tmp/static.txt
// Per link: the empty profile is the mean per-second profile (`onStaticProfile`: amplitude groups and the
// conjugate products between chains) over lead-in seconds 10 to lead-10; d = RMS over the conjugate-product
// channels of (the mean profile of a 10-s block − the empty profile). Printed per block: d, and the truth.
import { Simulator } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const rooms = Number(process.argv[2] ?? 6);
const lead = Number(process.argv[3] ?? 120);
const config = SensingConfigSchema.parse({});
const hash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms, stillSeconds: 400, emptySeconds: 600 }).filter((s) => s.kind === 'still' || s.kind === 'leave' || s.kind === 'empty');
for (const session of sessions) {
  const scenario = structuredClone(session.scenario);
  if (scenario.people?.length) {
    const p = scenario.people[0];
    p.script.unshift({ action: 'absent', duration: lead }, { action: 'enter', at: [p.start.x, p.start.y] });
    scenario.durationS += lead;
  }
  const seconds = session.seconds + (scenario.people?.length ? lead : 0);
  const sim = new Simulator(scenario);
  const start = sim.startTimeMs;
  const sensors = new Map();
  const profiles = new Map();
  const person = [];
  const moving = new Map();
  for (const tick of sim.run(seconds)) {
    const s = Math.floor((tick.truth.time - start) / 1000);
    person[s] ||= tick.truth.persons.length > 0;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        profiles.set(key, []);
        moving.set(key, []);
        sensor = new LinkSensor(frame.link, { environmentId: 'x', config, models: DEFAULT_SENSING_MODELS, configHash: hash, onStaticProfile: (sec, p, amp) => { profiles.get(key)[sec] = { p, amp }; } });
        sensors.set(key, sensor);
      }
      for (const f of sensor.push(frame)) moving.get(key)[f.second] = f.motion >= 0.5;
    }
  }
  for (const [key, rows] of profiles) {
    const amp = rows.find(Boolean).amp;
    const width = rows.find(Boolean).p.length;
    const mean = (from, to) => {
      const m = new Float64Array(width);
      let n = 0;
      for (let s = from; s < to; s++) if (rows[s]) { for (let c = 0; c < width; c++) m[c] += rows[s].p[c]; n++; }
      return n ? m.map((v) => v / n) : null;
    };
    const empty = mean(10, (scenario.people?.length ? lead : 120) - 10);
    const d = (m) => { let t = 0; for (let c = amp; c < width; c++) t += (m[c] - empty[c]) ** 2; return Math.sqrt(t / Math.max(1, width - amp)); };
    const blocks = [];
    for (let s = 0; s + 10 <= rows.length; s += 10) {
      const m = mean(s, s + 10);
      if (!m) continue;
      const who = person.slice(s, s + 10).some(Boolean) ? 'P' : '.';
      const mov = moving.get(key).slice(s, s + 10).filter(Boolean).length;
      blocks.push(`${s}:${d(m).toFixed(3)}${who}${mov ? 'm' + mov : ''}`);
    }
    console.log(`${session.kind} room ${session.room} ${key}: ${blocks.join(' ')}`);
  }
}
