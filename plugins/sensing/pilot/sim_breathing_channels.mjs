// Pilot (not shipped): which channels the simulated radios' breathing spectrum should read, chosen on the
// 6 validation rooms only (the test rooms of `npm run eval:sim` are not touched).
// Run from the repository root after a build:
//   node plugins/sensing/pilot/sim_breathing_channels.mjs still    (then: empty, for false presence)
import { DEFAULT_SENSING_MODELS, runSimSession, scoreSimRuns, SIM_SIZES, simSessions } from '../dist/index.js';

const kind = process.argv[2] ?? 'still';
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: 6 }).filter((s) => s.kind === kind);
for (const channels of ['all', 'pairs']) {
  const models = { ...DEFAULT_SENSING_MODELS, breathingChannelsByFamily: { sim: channels } };
  const runs = sessions.map((s) => runSimSession(s, models));
  for (const r of scoreSimRuns(runs)) if (r.value !== null && !r.name.startsWith('falls')) console.log(`${channels}: ${r.name} ${r.value} (${r.detail})`);
}
