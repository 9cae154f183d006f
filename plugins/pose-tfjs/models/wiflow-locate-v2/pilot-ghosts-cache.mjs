// Cache for pilot-ghosts.mjs and ghosts-grid.mjs (issue 21, ghosts-protocol.md): the shipped
// estimator's untracked estimates of VALIDATION rooms only, with each image peak's evidence (the
// change energy left before it against the noise floor, and what it explains on each link).
// Like pilot-births-cache.mjs, plus CLOSE=1: fresh rooms where 2 or 3 people walk side by side
// 0.8–1.2 m apart (the people a merge or an explain-away rule could wrongly take for one).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-ghosts-cache.mjs <out.json> [rooms] [emptySeconds] [crossingRooms]
// FRESH=<seed> draws fresh validation rooms (planDataset with that seed, every room in `val`, the
// recipe's ranges; FAINT=1 their faint edge as births-protocol.md); a fresh room whose signature
// matches any room of the shipped plan (train, val or test) is an error.
import { writePilotCache } from './pilot-cache-file.mjs';
import { validationSessions } from './pilot-sessions.mjs';
import * as sim from '@wiflow/plugin-sim';
import { DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import { sideBySide, untrackedEstimates, untrackedLocatorModel } from './pilot-ghosts-rooms.mjs';
import { threePeopleCrossing } from '@wiflow/plugin-evaluation';

const [out, roomsArg, emptyArg, crossingArg] = process.argv.slice(2);
const rooms = Number(roomsArg ?? 23), emptySeconds = Number(emptyArg ?? 32), crossingRooms = Number(crossingArg ?? 2);
const { model, cleanRadiusM, untracked } = untrackedLocatorModel();
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const sessions = validationSessions(rooms);

const estimates = (scenario, seconds) => untrackedEstimates(untracked, scenario, seconds);
const runs = [];
for (const [i, s] of sessions.entries()) {
  process.stderr.write(`room ${i + 1}/${sessions.length}\n`);
  const room = { width: s.scenario.room?.width, depth: s.scenario.room?.depth };
  if (process.env.CLOSE === '1') { runs.push({ kind: 'room', id: `${s.sessionId}~side-by-side`, room, estimates: estimates(sideBySide(s.scenario, i), 20) }); continue; }
  runs.push({ kind: 'room', id: s.sessionId, room, estimates: estimates(s.scenario, recipe.secondsPerSession) });
  if (emptySeconds > 0) runs.push({ kind: 'empty', id: s.sessionId, room, estimates: estimates({ ...s.scenario, people: [] }, emptySeconds) });
}
for (const s of sessions.slice(0, crossingRooms)) runs.push({ kind: 'crossing', id: s.sessionId, estimates: estimates(sim.validateScenario(threePeopleCrossing(s.scenario)), 30) });
writePilotCache(out, { source: { ...(process.env.FRESH ? { seed: process.env.FRESH, faint: process.env.FAINT === '1', close: process.env.CLOSE === '1' } : { seed: recipe.seed, split: 'val' }), cleanRadiusM }, model: model.spec.modelId, hash: model.hash, tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons, presenceThreshold: model.spec.presenceThreshold, runs });
