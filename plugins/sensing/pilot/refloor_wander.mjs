// Pilot (not shipped, descriptive): presence round 6 (pilot/refloor-protocol.md), read after its grid. The empty
// sessions of presence round 5's validation rooms whose links "wander from their first second" (79, 80, 81, 84, 86),
// their first 90 s: when presence starts without a reference and with the floor seeded from the installer's
// reference, and how the reference's pair spread compares with the session's first 30 s.
//   node plugins/sensing/pilot/refloor_wander.mjs
import { DEFAULT_SENSING_MODELS, runSimSession, SensingConfigSchema, SIM_SIZES, simSessions, simulateSensingReference } from '../dist/index.js';

const all = simSessions('validation', { ...SIM_SIZES.full, rooms: 87 });
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
const LOG_PAIR_SPREAD = 6; // index in MOTION_FEATURES
for (const room of [79, 80, 81, 84, 86]) {
  const session = all.find((s) => s.kind === 'empty' && s.room === room);
  const short = { ...session, seconds: 90 };
  const plain = runSimSession(short, DEFAULT_SENSING_MODELS, SensingConfigSchema.parse({}));
  const seeded = runSimSession(short, DEFAULT_SENSING_MODELS, SensingConfigSchema.parse({ presenceReferenceFloor: true, presenceReferenceLevel: 'off' }), { reference: true });
  const first = (run) => run.room.findIndex((f) => f.presence);
  const references = simulateSensingReference(session);
  const sessionPair = median(plain.motionRows.filter((m) => m.second < 30).map((m) => Math.exp(m.row[LOG_PAIR_SPREAD])));
  console.log(`room ${room}: first present second ${first(plain)} without a reference, ${first(seeded)} with the floor from it; reference pair spread (median) ${[...references].map(([k, r]) => `${k} ${median(r.pairSpreads).toFixed(4)}`).join(', ')}; the session's first 30 s ${sessionPair.toFixed(4)} (all links)`);
}
