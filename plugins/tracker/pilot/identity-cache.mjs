// Cache for identity-pilot.mjs (issue 21, "one id per person"): VALIDATION scenes only.
// Records what the shipped estimator's people tracker is given (every estimate's peaks with the
// count head's presence and the change above the room's noise floor) and the simulator's truth, so
// the estimator's tracker, tracker.track and retail.analytics can be replayed with other settings
// without simulating again. Scenes:
//   - three people crossing (evaluation's threePeopleCrossing) in the first validation rooms of the
//     shipped network's recipe (the full test run uses the first test rooms the same way), 60 s each;
//   - two validation shops: shop-monitored.yaml's room and radios with other people, paths, timing
//     and simulator seeds (the test shop, shop-monitored.yaml itself, is never replayed here).
// Run from the repository root after a build:
//   node plugins/tracker/pilot/identity-cache.mjs <out.json> [crossingRooms=3] [crossingSeconds=60] [shopSeconds=150]
// DECIDE=1 / 2 / 3: the deciding scenes of identity-protocol.md's rounds instead (validation rooms
// 4-6 and shop C / rooms 7-9 and shops D and E / rooms 10-12 and shops F and G, each drawn up
// before anything was measured on them).
import { writePilotCache } from '../../pose-tfjs/models/wiflow-locate-v2/pilot-cache-file.mjs';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import { threePeopleCrossing, EXAMPLE_SCENARIOS_DIR } from '@wiflow/plugin-evaluation';
// The module instance the locator itself uses: its update is wrapped to record its input.
import { PeopleTracker } from '../../pose-tfjs/dist/locate/people-tracker.js';

const [out, crossingArg, secondsArg, shopArg] = process.argv.slice(2);
const crossingRooms = Number(crossingArg ?? 3), crossingSeconds = Number(secondsArg ?? 60), shopSeconds = Number(shopArg ?? 150);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val');

let recording = null;
const update = PeopleTracker.prototype.update;
PeopleTracker.prototype.update = function (time, peaks) {
  recording?.push({ t: time, peaks: peaks.map((p) => [p.x, p.y, p.presence, p.aboveNoise ?? null]) });
  return update.call(this, time, peaks);
};

/** Every estimate of a scenario: time (s), the tracker's input peaks, truth [id, x, y]. */
function estimates(scenario, seconds) {
  const locator = new PoseLocator(model, [environmentFromScenario(scenario)], [simulateReference(sim, scenario)], { densePose: 'none', processingMode: 'job' });
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    recording = [];
    const e = locator.locate(frame);
    if (e) list.push({ ...recording[0], truth: (e.truth?.persons ?? []).map((p) => [p.id, p.position.x, p.position.y]) });
    recording = null;
  }
  return list;
}

/** Validation shops: the test shop's room, radios and zones; other people, paths, timing and seed. */
function validationShops() {
  const base = sim.loadScenario(path.join(EXAMPLE_SCENARIOS_DIR, 'shop-monitored.yaml'));
  const raw = { ...base };
  const shopA = {
    ...raw, name: 'validation shop A', environmentId: 'shop-val-a', seed: 7101,
    people: [
      { id: 1, height: 1.75, script: [
        { action: 'enter', at: [5.1, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[6.2, 2.2], [6.2, 6.0]], speed: 0.8 },
        { action: 'stand', duration: 10 },
        { action: 'walk', path: [[1.8, 6.2], [1.8, 2.0]], speed: 0.9 },
        { action: 'stand', duration: 6 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.6, script: [
        { action: 'absent', duration: 25 },
        { action: 'enter', at: [4.8, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[3.0, 2.5], [3.0, 5.5]], speed: 0.7 },
        { action: 'stand', duration: 12 },
        { action: 'walk', path: [[8.6, 1.5]], speed: 0.8 },
        { action: 'stand', duration: 8 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.82, script: [
        { action: 'absent', duration: 60 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[8.0, 3.0], [8.0, 6.5]], speed: 1.0 },
        { action: 'stand', duration: 15 },
        { action: 'leave', path: [[5.2, 0.2], [5.2, 0.0]] },
      ] },
    ],
  };
  const shopB = {
    ...raw, name: 'validation shop B', environmentId: 'shop-val-b', seed: 7102,
    people: [
      { id: 1, height: 1.68, script: [
        { action: 'enter', at: [4.9, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[2.0, 2.0], [2.0, 6.5], [6.5, 6.5]], speed: 0.9 },
        { action: 'stand', duration: 20 },
        { action: 'walk', path: [[8.7, 1.4]], speed: 0.9 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.78, script: [
        { action: 'absent', duration: 5 },
        { action: 'enter', at: [5.3, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[7.5, 2.0], [7.5, 6.0]], speed: 0.8 },
        { action: 'stand', duration: 8 },
        { action: 'walk', path: [[4.0, 6.0], [4.0, 2.0]], speed: 0.8 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.55, script: [
        { action: 'absent', duration: 50 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[5.0, 3.0], [1.5, 3.0]], speed: 0.6 },
        { action: 'stand', duration: 18 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 4, height: 1.88, script: [
        { action: 'absent', duration: 95 },
        { action: 'enter', at: [9.6, 7.6], yawDeg: -135 },
        { action: 'walk', path: [[8.8, 2.0]], speed: 1.3 },
        { action: 'stand', duration: 10 },
        { action: 'walk', path: [[9.2, 7.2]], speed: 1.2 },
        { action: 'leave', path: [[9.8, 7.8], [10.0, 8.0]] },
      ] },
    ],
  };
  // Drawn up with the protocol, before any figure of it was seen: five visitors, two of them in
  // the shop together for most of a minute, one who stays long by the back shelves.
  const shopC = {
    ...raw, name: 'validation shop C', environmentId: 'shop-val-c', seed: 7103,
    people: [
      { id: 1, height: 1.72, script: [
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[7.0, 2.5], [7.0, 6.8]], speed: 0.8 },
        { action: 'stand', duration: 25 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.64, script: [
        { action: 'absent', duration: 15 },
        { action: 'enter', at: [4.7, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[2.5, 3.0], [2.5, 6.0]], speed: 0.7 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[4.8, 0.2], [4.8, 0.0]] },
      ] },
      { id: 3, height: 1.8, script: [
        { action: 'absent', duration: 40 },
        { action: 'enter', at: [5.3, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[8.8, 1.5]], speed: 0.9 },
        { action: 'stand', duration: 20 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 4, height: 1.59, script: [
        { action: 'absent', duration: 70 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[4.0, 2.0], [4.0, 5.5], [6.0, 5.5]], speed: 0.8 },
        { action: 'stand', duration: 8 },
        { action: 'leave', path: [[5.1, 0.2], [5.1, 0.0]] },
      ] },
      { id: 5, height: 1.86, script: [
        { action: 'absent', duration: 100 },
        { action: 'enter', at: [4.9, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[3.0, 4.5]], speed: 1.0 },
        { action: 'stand', duration: 12 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
    ],
  };
  // Round 2 (identity-protocol.md), drawn up before any figure of them was seen: shop D, four
  // visitors, one coming in as another goes out; shop E, three visitors and the intruder's route.
  const shopD = {
    ...raw, name: 'validation shop D', environmentId: 'shop-val-d', seed: 7104,
    people: [
      { id: 1, height: 1.7, script: [
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[3.5, 2.0], [3.5, 6.0]], speed: 0.8 },
        { action: 'stand', duration: 15 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.62, script: [
        { action: 'absent', duration: 28 },
        { action: 'enter', at: [5.2, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[7.5, 2.0], [7.5, 6.5], [5.5, 6.5]], speed: 0.8 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.83, script: [
        { action: 'absent', duration: 75 },
        { action: 'enter', at: [4.8, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[8.6, 1.4]], speed: 0.9 },
        { action: 'stand', duration: 14 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 4, height: 1.57, script: [
        { action: 'absent', duration: 105 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[2.0, 3.0], [2.0, 6.0]], speed: 0.7 },
        { action: 'stand', duration: 10 },
      ] },
    ],
  };
  const shopE = {
    ...raw, name: 'validation shop E', environmentId: 'shop-val-e', seed: 7105,
    people: [
      { id: 1, height: 1.76, script: [
        { action: 'absent', duration: 5 },
        { action: 'enter', at: [5.1, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[6.5, 3.0], [6.5, 5.0], [2.5, 5.0]], speed: 0.7 },
        { action: 'stand', duration: 12 },
        { action: 'walk', path: [[8.7, 1.5]], speed: 0.8 },
        { action: 'stand', duration: 8 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.66, script: [
        { action: 'absent', duration: 55 },
        { action: 'enter', at: [4.9, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[4.0, 3.0], [4.0, 5.0]], speed: 0.8 },
        { action: 'stand', duration: 20 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.85, script: [
        { action: 'absent', duration: 90 },
        { action: 'enter', at: [9.6, 7.6], yawDeg: -135 },
        { action: 'walk', path: [[8.9, 2.2]], speed: 1.3 },
        { action: 'stand', duration: 10 },
        { action: 'walk', path: [[9.3, 7.3]], speed: 1.2 },
        { action: 'leave', path: [[9.8, 7.8], [10.0, 8.0]] },
      ] },
    ],
  };
  // Round 3, drawn up before any figure of them was seen: shop F, three visitors, one of them a
  // short visit (in and out in about 15 s); shop G, four visitors, two coming in 5 s apart.
  const shopF = {
    ...raw, name: 'validation shop F', environmentId: 'shop-val-f', seed: 7106,
    people: [
      { id: 1, height: 1.74, script: [
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[3.0, 2.5], [3.0, 6.0], [7.0, 6.0]], speed: 0.8 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.6, script: [
        { action: 'absent', duration: 45 },
        { action: 'enter', at: [5.1, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[5.5, 2.5]], speed: 0.8 },
        { action: 'stand', duration: 5 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.81, script: [
        { action: 'absent', duration: 80 },
        { action: 'enter', at: [4.9, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[8.5, 1.5]], speed: 0.9 },
        { action: 'stand', duration: 15 },
        { action: 'walk', path: [[6.5, 5.0]], speed: 0.8 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
    ],
  };
  const shopG = {
    ...raw, name: 'validation shop G', environmentId: 'shop-val-g', seed: 7107,
    people: [
      { id: 1, height: 1.69, script: [
        { action: 'absent', duration: 3 },
        { action: 'enter', at: [4.9, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[2.5, 2.0], [2.5, 5.5]], speed: 0.7 },
        { action: 'stand', duration: 15 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 2, height: 1.77, script: [
        { action: 'absent', duration: 8 },
        { action: 'enter', at: [5.2, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[7.5, 2.5], [7.5, 5.5]], speed: 0.8 },
        { action: 'stand', duration: 12 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 3, height: 1.63, script: [
        { action: 'absent', duration: 70 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[4.5, 4.0], [8.6, 1.5]], speed: 0.8 },
        { action: 'stand', duration: 10 },
        { action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] },
      ] },
      { id: 4, height: 1.88, script: [
        { action: 'absent', duration: 105 },
        { action: 'enter', at: [5.0, 0.3], yawDeg: 90 },
        { action: 'walk', path: [[6.0, 6.0]], speed: 1.0 },
        { action: 'stand', duration: 20 },
      ] },
    ],
  };
  const chosen = { '1': [shopC], '2': [shopD, shopE], '3': [shopF, shopG] }[process.env.DECIDE ?? ''] ?? [shopA, shopB];
  return chosen.map((s) => sim.validateScenario(s));
}

const runs = [];
const firstRoom = { '1': 3, '2': 6, '3': 9 }[process.env.DECIDE ?? ''] ?? 0;
for (const s of sessions.slice(firstRoom, firstRoom + crossingRooms)) {
  process.stderr.write(`crossing ${s.sessionId}\n`);
  runs.push({ kind: 'crossing', id: s.sessionId, estimates: estimates(sim.validateScenario(threePeopleCrossing(s.scenario)), crossingSeconds) });
}
for (const shop of validationShops()) {
  process.stderr.write(`${shop.name}\n`);
  runs.push({ kind: 'shop', id: shop.environmentId, zones: shop.zones, estimates: estimates(shop, shopSeconds) });
}
writePilotCache(out, { source: { seed: recipe.seed, split: 'val' }, model: model.spec.modelId, hash: model.hash, tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons, presenceThreshold: model.spec.presenceThreshold, runs });
