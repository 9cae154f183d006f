// Pilot (not shipped): the simulated evaluation's presence rows (still person, empty room, walk-in) on chosen
// validation rooms with a sensing config override, for pilot/walkin-protocol.md. Validation rooms only.
// Run from the repository root after a build:
//   CONFIG='{"presenceEntryMovingSeconds":3}' node plugins/sensing/pilot/walkin_candidates.mjs 114-125
import { DEFAULT_SENSING_MODELS, runSimSession, scoreSimRuns, SensingConfigSchema, SIM_SIZES, simSessions } from '../dist/index.js';

const [from, to] = (process.argv[2] ?? '114-125').split('-').map(Number);
const override = JSON.parse(process.env.CONFIG ?? '{}');
const config = SensingConfigSchema.parse(override);
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.room >= from && ['still', 'empty', 'walk-in'].includes(s.kind));
const runs = sessions.map((s) => runSimSession(s, DEFAULT_SENSING_MODELS, config));
console.log(`validation rooms ${from}-${to}, config ${JSON.stringify(override)}, ${sessions.length} sessions`);
for (const r of scoreSimRuns(runs)) if (/present|presence|walk-in/.test(r.name)) console.log(`${r.name}: ${r.value} | ${r.detail}`);
