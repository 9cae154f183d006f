// Pilot (not shipped): plugin-sensing's simulated evaluation (`npm run eval:sim`'s sessions, scoring and shipped
// models) on the 18 VALIDATION rooms instead of the test rooms, to see what a simulator change does before the
// test rooms are run once. Run from the repository root after a build:
//   node plugins/sim/pilot/sensing_validation.mjs [rooms=18]
import { DEFAULT_SENSING_MODELS, formatSimEvaluation, runSimSession, scoreSimRuns, SIM_SIZES, simSessions } from '@wiflow/plugin-sensing';

const rooms = Number(process.argv[2] ?? 18);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms });
const runs = sessions.map((s) => runSimSession(s, DEFAULT_SENSING_MODELS));
console.log(`validation, ${rooms} rooms, ${sessions.length} sessions, ${sessions.reduce((a, s) => a + s.seconds, 0)} simulated s`);
for (const line of formatSimEvaluation({ results: scoreSimRuns(runs) })) console.log(line);
