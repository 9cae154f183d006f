// The grid of pilot/simbreath-keep-protocol.md: the steady-line keep's tolerance and share on the validation rooms
// of `npm run eval:sim -- --validation` (still, empty and leaving sessions). Usage:
// node plugins/sensing/pilot/simbreath_keep_grid.mjs [--small]
import { runSimSession, scoreSimRuns, SensingConfigSchema, simSessions, SIM_SIZES } from '../dist/index.js';

const sizes = process.argv.includes('--small') ? SIM_SIZES.small : SIM_SIZES.full;
const sessions = simSessions('validation', { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) }).filter((s) => ['still', 'empty', 'leave'].includes(s.kind));
for (const tolerance of [0.5, 1, 1.5, 2]) for (const share of [0.7, 0.5]) {
  const config = SensingConfigSchema.parse({ presenceSteadyToleranceBpm: tolerance, presenceSteadyKeepShare: share });
  const results = Object.fromEntries(scoreSimRuns(sessions.map((s) => runSimSession(s, undefined, config))).map((r) => [r.name, r]));
  const pick = (name) => results[name].value;
  console.log(JSON.stringify({ tolerance, share, recall: pick('still person present: recall'), falsePerDay: pick('empty room with distractors: false presence per day'), afterLeaving: pick('after leaving: present seconds per session (median)'), recallDetail: results['still person present: recall'].detail, leavingDetail: results['after leaving: present seconds per session (median)'].detail }));
}
