// Pilot (not shipped): what a propagation what-if does to plugin-sensing's simulated evaluation (`npm run eval:sim`'s
// sessions, scoring and shipped models) on VALIDATION rooms, option off and on, the same rooms and sessions. The
// shipped sim models were fitted on the simulator without the option: the "on" column is a what-if, not a result.
// Run from the repository root after a build:
//   node plugins/sim/pilot/sensing_whatif.mjs <firstRoom> <rooms> '<propagation JSON>' [off|on|both|refit=both]
// Rooms are validation rooms firstRoom … firstRoom + rooms − 1 (seeds 72000 + room); never the test rooms.
// refit: fit the sim models (`fitSimModels`: training rooms, choices on validation rooms 0–5) with the option on,
// then score those models on the same rooms with the option on: what switching it on would give after refitting.
import { DEFAULT_SENSING_MODELS, fitSimModels, formatSimEvaluation, runSimSession, scoreSimRuns, SIM_SIZES, simSessions } from '@wiflow/plugin-sensing';
import { validateScenario } from '@wiflow/plugin-sim';

const first = Number(process.argv[2]);
const count = Number(process.argv[3]);
const propagation = JSON.parse(process.argv[4] ?? '{}');
const which = process.argv[5] ?? 'both';
if (!Number.isInteger(first) || !Number.isInteger(count) || count < 1) throw new Error('usage: sensing_whatif.mjs <firstRoom> <rooms> <propagation JSON> [off|on|both]');
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: first + count }).filter((s) => s.room >= first);
const withOption = (s) => ({ ...s, scenario: validateScenario({ ...s.scenario, propagation: { ...s.scenario.propagation, ...propagation } }, s.scenario.name) });
const out = {};
for (const side of which === 'both' ? ['off', 'on'] : [which]) {
  const t0 = process.cpuUsage();
  const w0 = Date.now();
  const models = side === 'refit' ? fitSimModels(undefined, false, withOption) : DEFAULT_SENSING_MODELS;
  const runs = sessions.map((s) => runSimSession(side === 'off' ? s : withOption(s), models));
  const results = scoreSimRuns(runs);
  const cpu = process.cpuUsage(t0);
  out[side] = { results, wallS: (Date.now() - w0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
  console.error(`${side}: validation rooms ${first}–${first + count - 1}, ${sessions.length} sessions, ${sessions.reduce((a, s) => a + s.seconds, 0)} simulated s, ${out[side].wallS.toFixed(0)} s wall, ${out[side].cpuS.toFixed(0)} CPU-s`);
  for (const line of formatSimEvaluation({ results })) console.error(line);
}
console.log(JSON.stringify({ rooms: [first, first + count - 1], propagation, ...out }, null, 1));
