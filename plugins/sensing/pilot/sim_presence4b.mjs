// Pilot (issue 22, presence round 4, addendum B of pilot/presence4-protocol.md; not shipped): the machine-line rule on
// and off on fresh VALIDATION rooms built for the case the test rooms lost: a still person (sitting or lying, 900 s)
// with a ceiling fan, half of them breathing with low variability (rateCv 0.05-0.10, sleep/rest). The built sensing
// end to end (`runSimSession`, scored by `scoreSimRuns`, as `eval-sense-sim` does); the test rooms are not touched.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/sim_presence4b.mjs [rooms=24] [from=42]   (STEADY_OFF=1: also the steady keep off, still sessions)
// Prints, for the shipped config and for `presenceMachineLineSeconds: 0`: recall, false presence per day, the
// after-leaving median, and recall per half (low / default breathing CV) and per posture.
import { Prng } from '@wiflow/plugin-sim';
import { validateScenario } from '@wiflow/plugin-sim';
import { runSimSession, scoreSimRuns, SensingConfigSchema, SIM_SIZES, simSessions, DEFAULT_SENSING_MODELS } from '../dist/index.js';

const rooms = Number(process.argv[2] ?? 24);
const from = Number(process.argv[3] ?? 42);
const STILL_SECONDS = 900;
const round = (v) => Math.round(v * 100) / 100;
/** Rooms 42 + 4k + {2, 3} breathe with low variability: 6 sitting and 6 lying of 24. */
const lowCv = (room) => (room - 42) % 4 >= 2;

const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: from + rooms, stillSeconds: STILL_SECONDS })
  .filter((s) => s.room >= from && ['still', 'empty', 'leave'].includes(s.kind))
  .map((s) => {
    if (s.kind === 'empty') return s;
    const input = structuredClone(s.scenario);
    const prng = new Prng(`presence4b:${s.room}:${s.kind}`);
    const rpm = round(prng.uniform(60, 200));
    const cv = round(prng.uniform(0.05, 0.1));
    if (!(input.distractors ?? []).some((d) => d.kind === 'fan')) {
      const { width, depth, height } = input.room;
      input.distractors = [...(input.distractors ?? []), { kind: 'fan', id: 'fan', position: [round(width / 2), round(depth / 2), round(height - 0.3)], rpm }];
    }
    if (lowCv(s.room)) input.people = input.people.map((p) => ({ ...p, breathing: { ...(p.breathing ?? {}), rateCv: cv } }));
    return { ...s, scenario: validateScenario(input, input.name) };
  });

const configs = { on: SensingConfigSchema.parse({}), off: SensingConfigSchema.parse({ presenceMachineLineSeconds: 0 }) };
// STEADY_OFF=1 (descriptive, not part of the rule): also the steady-line keep off with the machine line off, still
// sessions only, to show how many still seconds the steady keep holds in these rooms (the case the test rooms lost).
if (process.env.STEADY_OFF) configs['off, steady keep off too'] = SensingConfigSchema.parse({ presenceMachineLineSeconds: 0, presenceSteadyKeepSeconds: 0 });
const ONLY_STILL = new Set(['off, steady keep off too']);
console.log(`rooms ${from}-${from + rooms - 1} of the validation split (seeds ${72000 + from}-${72000 + from + rooms - 1}), ${sessions.length} sessions, ${sessions.reduce((a, s) => a + s.seconds, 0)} simulated seconds each way; shipped presenceMachineLineSeconds ${configs.on.presenceMachineLineSeconds}`);
for (const s of sessions.filter((x) => x.kind === 'still')) {
  const p = s.scenario.people[0];
  console.log(`  room ${s.room} ${s.detail}: fan ${s.scenario.distractors.find((d) => d.kind === 'fan')?.rpm} rpm, ${p.breathingRateBpm} bpm, rateCv ${p.breathing?.rateCv ?? 0.15}`);
}
const runs = {};
for (const [name, config] of Object.entries(configs)) {
  const t0 = Date.now();
  runs[name] = sessions.filter((s) => !ONLY_STILL.has(name) || s.kind === 'still').map((s) => runSimSession(s, DEFAULT_SENSING_MODELS, config));
  console.log(`${name}: simulated and sensed in ${Math.round((Date.now() - t0) / 1000)} s`);
}
const pick = (name, rows) => rows.filter((r) => ['still person present: recall', 'empty room with distractors: false presence per day', 'after leaving: present seconds per session (median)'].includes(r.name)).map((r) => `${r.name}: ${r.value} (${r.detail})`);
for (const name of Object.keys(configs)) {
  console.log(`\n== machine line ${name}`);
  for (const line of pick(name, scoreSimRuns(runs[name]))) console.log(`  ${line}`);
  for (const [label, keep] of [['low CV (0.05-0.10)', (r) => lowCv(r.session.room)], ['default CV (0.15)', (r) => !lowCv(r.session.room)], ['sitting', (r) => r.session.room % 2 === 0], ['lying', (r) => r.session.room % 2 === 1]]) {
    const rec = scoreSimRuns(runs[name].filter((r) => r.session.kind === 'still' && keep(r)))[0];
    console.log(`  still, ${label}: recall ${rec.value} (${rec.detail})`);
  }
}
