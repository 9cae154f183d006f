// Cache for pilot-births.mjs: the shipped estimator's untracked estimates (locator.json with its
// tracker section removed, in memory) of VALIDATION rooms only — every validation session with its
// people, the same rooms emptied (people removed, longer), and validation rooms of three people crossing.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-births-cache.mjs <out.json> [rooms] [emptySeconds] [crossingRooms]
// FRESH=<seed> draws fresh validation rooms instead (births-protocol.md): planDataset with that seed,
// every room in `val`, the recipe's ranges (FAINT=1: narrowed to their faint edge); a fresh room
// whose signature matches any room of the shipped plan (train, val or test) is an error.
import { writePilotCache } from './pilot-cache-file.mjs';
import { validationSessions } from './pilot-sessions.mjs';
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import { threePeopleCrossing } from '@wiflow/plugin-evaluation';

const [out, roomsArg, emptyArg, crossingArg] = process.argv.slice(2);
const rooms = Number(roomsArg ?? 23), emptySeconds = Number(emptyArg ?? 32), crossingRooms = Number(crossingArg ?? 2);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const untracked = { ...model, spec: { ...model.spec, tracker: undefined } };
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const sessions = validationSessions(rooms);

/** Every estimate: time (ms), peaks [x, y, presence] strongest first, the count features, truth [id, x, y]. */
function estimates(scenario, seconds) {
  const locator = new PoseLocator(untracked, [environmentFromScenario(scenario)], [simulateReference(sim, scenario)], { densePose: 'none', processingMode: 'job' });
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    const e = locator.locate(frame);
    if (e) list.push({ t: e.time, peaks: e.hypotheses.map((h) => [h.position.x, h.position.y, h.presence]), features: e.features, truth: (e.truth?.persons ?? []).map((p) => [p.id, p.position.x, p.position.y]) });
  }
  return list;
}
const runs = [];
for (const [i, s] of sessions.entries()) {
  process.stderr.write(`room ${i + 1}/${sessions.length}\n`);
  const room = { width: s.scenario.room?.width, depth: s.scenario.room?.depth };
  runs.push({ kind: 'room', id: s.sessionId, room, estimates: estimates(s.scenario, recipe.secondsPerSession) });
  runs.push({ kind: 'empty', id: s.sessionId, room, estimates: estimates({ ...s.scenario, people: [] }, emptySeconds) });
}
for (const s of sessions.slice(0, crossingRooms)) runs.push({ kind: 'crossing', id: s.sessionId, estimates: estimates(sim.validateScenario(threePeopleCrossing(s.scenario)), 30) });
writePilotCache(out, { source: process.env.FRESH ? { seed: process.env.FRESH, faint: process.env.FAINT === '1' } : { seed: recipe.seed, split: 'val' }, model: model.spec.modelId, hash: model.hash, tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons, presenceThreshold: model.spec.presenceThreshold, runs });
