// Which simulator change moved the simulated presence and breathing figures: the validation rooms of
// `npm run eval:sim -- --validation` scored with the new simulator as shipped, and with each person's breathing
// variability turned off (fixed rate and depth, symmetric raised-cosine breaths, no sighs; the broadband sway
// stays). Validation rooms only. Usage: node plugins/sensing/pilot/simbreath_ablation.mjs [--small]
import { runSimSession, scoreSimRuns, simSessions, SIM_SIZES } from '../dist/index.js';

const sizes = process.argv.includes('--small') ? SIM_SIZES.small : SIM_SIZES.full;
const sessions = simSessions('validation', { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) });
const steady = { rateCv: 0, depthCv: 0, inhaleFraction: 0.5, sighEveryS: 0 };
const variants = {
  'as shipped': (s) => s,
  'breathing variability off': (s) => ({ ...s, scenario: { ...s.scenario, people: s.scenario.people.map((p) => ({ ...p, breathing: steady })) } }),
};
for (const [name, change] of Object.entries(variants)) {
  const runs = sessions.map((s) => runSimSession(change(s)));
  console.log(`\n${name}`);
  for (const r of scoreSimRuns(runs)) if (!r.name.startsWith('falls')) console.log(`  ${r.name}: ${r.value} (${r.detail.slice(0, 140)})`);
}
