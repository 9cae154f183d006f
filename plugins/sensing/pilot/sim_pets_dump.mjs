// Pilot (not shipped): per link and second, the evidence presence could use to tell a person from a cat, a fan
// or a door, with the simulator's truth; validation rooms only (the test rooms of `npm run eval:sim` are not
// touched). Read by pilot/sim_pets.py.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/sim_pets_dump.mjs [rooms=6] > /tmp/pets/dump.jsonl
// One JSON line per link second: kind, room, link, s, mo (motion probability), b (a breathing rate seen, kept
// or withheld as `empty`), eb/eq (the spectrum's peak rate and peak-to-median, kept or not), ps/pf (pair spread and its floor), sp (amplitude spread), gs (group spread), prof
// (the second's mean conjugate-product profile, for the static channel), and the truth: person there (pp),
// person's mean keypoint speed (v), cat walking (cat), door swinging within the motion window (door).
// LEAD=60 gives the still and leaving sessions an empty lead-in of that many seconds (the person walks in after
// it; as pilot/sim_static_exit.mjs does), so an entry has a before; KINDS=still,leave picks session kinds.
// FROM=18 keeps rooms from that index on (rooms 18-29: fresh validation seeds 72018-72029, added for issue 22's
// presence round 3). Also written per row: br (the frame's breathing reason), ec/ee (the spectrum's comb and
// edge flags), tb (the person's true breathing rate), fr/fb (the fan's rpm and blades, null without a fan), fp (the
// fingerprint of the code that made the row: the built simulator and sensing, `dist/**/*.js`; a reader can refuse
// dumps of another build).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Simulator } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash, SIM_SIZES, simSessions } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const codeFiles = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? codeFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [])).sort();
const fingerprint = createHash('sha256');
for (const dir of [path.join(here, '../../sim/dist'), path.join(here, '../dist')]) for (const f of codeFiles(dir)) fingerprint.update(path.relative(here, f)).update(readFileSync(f));
const fp = fingerprint.digest('hex').slice(0, 16);
const rooms = Number(process.argv[2] ?? 6);
const config = SensingConfigSchema.parse(JSON.parse(process.env.CONFIG ?? '{}'));
const models = DEFAULT_SENSING_MODELS;
const hash = sensingConfigHash(config, models);
const kinds = (process.env.KINDS ?? 'empty,still,leave').split(',');
const from = Number(process.env.FROM ?? 0);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms }).filter((s) => kinds.includes(s.kind) && s.room >= from);
const r4 = (v) => (v == null ? null : Math.round(v * 1e4) / 1e4);
const lead = Number(process.env.LEAD ?? 0);
for (const session of sessions) {
  if (lead > 0 && session.scenario.people?.length) {
    session.scenario = structuredClone(session.scenario);
    const p = session.scenario.people[0];
    p.script.unshift({ action: 'absent', duration: lead }, { action: 'enter', at: [p.start.x, p.start.y] });
    session.scenario.durationS += lead;
    session.seconds += lead;
  }
  const sim = new Simulator(session.scenario);
  const start = sim.startTimeMs;
  const sensors = new Map();
  const feats = new Map();
  const truth = [];
  const swings = (session.scenario.distractors ?? []).find((d) => d.kind === 'door')?.swings ?? [];
  const fan = (session.scenario.distractors ?? []).find((d) => d.kind === 'fan');
  const tb = session.scenario.people?.[0]?.breathingRateBpm ?? null;
  let previous = null;
  let previousT = 0;
  for (const tick of sim.run(session.seconds)) {
    const t = (tick.truth.time - start) / 1000;
    const s = Math.floor(t);
    const tr = (truth[s] ??= { cat: false, pp: false, v: 0 });
    for (const d of tick.truth.distractors ?? []) if (d.kind === 'pet' && d.active) tr.cat = true;
    const person = tick.truth.persons[0];
    if (person) {
      tr.pp = true;
      if (previous && t > previousT) {
        let sum = 0;
        for (let k = 0; k < person.keypoints3d.length; k++) sum += Math.hypot(person.keypoints3d[k][0] - previous[k][0], person.keypoints3d[k][1] - previous[k][1], person.keypoints3d[k][2] - previous[k][2]);
        tr.v = Math.max(tr.v, sum / person.keypoints3d.length / (t - previousT));
      }
      previous = person.keypoints3d;
    } else previous = null;
    previousT = t;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) {
        sensor = new LinkSensor(frame.link, {
          environmentId: 'x', config, models, configHash: hash,
          onMotionFeatures: (sec, f) => feats.set(`${key}@${sec}`, f),
          onBreathingEstimate: (sec, e) => feats.set(`${key}#${sec}`, e),
          onStaticProfile: (sec, p, amp) => feats.set(`${key}$${sec}`, Array.from(p.subarray(amp), r4)),
        });
        sensors.set(key, sensor);
      }
      for (const f of sensor.push(frame)) {
        const m = feats.get(`${key}@${f.second}`);
        feats.delete(`${key}@${f.second}`);
        const prof = feats.get(`${key}$${f.second}`);
        feats.delete(`${key}$${f.second}`);
        const est = feats.get(`${key}#${f.second}`);
        feats.delete(`${key}#${f.second}`);
        const tru = truth[f.second] ?? {};
        const door = swings.some((w) => f.second + 1 >= w.at && f.second - 2 <= w.at + w.durationS);
        console.log(JSON.stringify({ kind: session.kind, room: session.room, link: key, s: f.second, p: f.presence, mo: f.motion, b: f.breathingBpm !== null || f.breathingReason === 'empty', eb: r4(est?.bpm), eq: r4(est?.quality), ps: r4(m?.pairSpread), pf: r4(m?.pairFloor), sp: r4(m?.spread), gs: r4(m?.groupSpread), pk: r4(m?.packetStep), pp: tru.pp ?? false, v: r4(tru.v ?? 0), cat: tru.cat ?? false, door, br: f.breathingReason, ec: est?.comb ?? null, ee: est?.edge ?? null, tb, fr: fan?.rpm ?? null, fb: fan?.blades ?? null, fp, prof }));
      }
    }
  }
}
