// Cache for pilot-distract.mjs (issue 21, distract-protocol.md): the shipped locator's UNTRACKED
// estimates of VALIDATION rooms only (the recipe's `val` split), each image peak with its evidence,
// the count head's presences and packet-spectrum features, and the simulator's truth (people with
// their activity; distractors with position and whether they move). Runs per room: the session with
// its people as drawn, and the room emptied under the installer's conditions (`fan-cat-door`,
// `drift`), drawn exactly as `wiflow eval-e2e --empty-only` draws them (`emptiedScenario`).
// Run from the repository root after a build:
//   [SPLIT=val2 | FRESH=<seed> | PEOPLE_SECONDS=<s>] node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-distract-cache.mjs <out.json> [peopleRooms] [installerRooms] [installerSeconds]
import { writePilotCache } from './pilot-cache-file.mjs';
import { validationSessions } from './pilot-sessions.mjs';
import * as sim from '@wiflow/plugin-sim';
import { locatorEstimates } from './pilot-locate-run.mjs';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR, splitSessions } from '@wiflow/plugin-pose-tfjs';
import { emptiedScenario } from '@wiflow/plugin-evaluation';

const [out, peopleArg, installerArg, secondsArg] = process.argv.slice(2);
const peopleRooms = Number(peopleArg ?? 23), installerRooms = Number(installerArg ?? 10), installerSeconds = Number(secondsArg ?? 60);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
// SPLIT=val2: the second validation split (`--split val2`) instead of the recipe's `val`; FRESH=<seed>: fresh validation rooms (pilot-sessions.mjs).
const split = process.env.SPLIT === 'val2' ? 'val2' : process.env.FRESH ? `fresh:${process.env.FRESH}${process.env.PEOPLE_SECONDS ? `:${process.env.PEOPLE_SECONDS}s` : ""}` : process.env.PEOPLE_SECONDS ? `val:${process.env.PEOPLE_SECONDS}s` : 'val';
const sessions = split === 'val2' ? splitSessions(sim, recipe, { split, maxSessions: Math.max(peopleRooms, installerRooms) }) : validationSessions(Math.max(peopleRooms, installerRooms));

const runs = [];
const started = process.cpuUsage();
for (const [i, s] of sessions.entries()) {
  const room = { width: s.scenario.room.width, depth: s.scenario.room.depth };
  if (i < peopleRooms) { process.stderr.write(`room ${i + 1}: ${s.sessionId} people\n`); runs.push({ kind: 'people', id: s.sessionId, room, estimates: locatorEstimates(model, s.scenario, Number(process.env.PEOPLE_SECONDS ?? recipe.secondsPerSession)) }); }
  if (i < installerRooms) for (const condition of ['fan-cat-door', 'drift']) {
    process.stderr.write(`room ${i + 1}: ${s.sessionId} ${condition}\n`);
    runs.push({ kind: condition, id: s.sessionId, room, estimates: locatorEstimates(model, emptiedScenario(s.scenario, condition, installerSeconds), installerSeconds) });
  }
}
const cpu = process.cpuUsage(started);
writePilotCache(out, { source: { seed: recipe.seed, split, peopleRooms, installerRooms, installerSeconds, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10 }, model: model.spec.modelId, hash: model.hash, tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons, presenceThreshold: model.spec.presenceThreshold, runs });
