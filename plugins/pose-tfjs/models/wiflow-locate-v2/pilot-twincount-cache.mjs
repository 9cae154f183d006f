// Cache for pilot-twincount.mjs (twincount-protocol.md): for each room of a split of the shipped
// locator's recipe, the untracked estimator's evidence (peaks, count features, truth) of
//  - the room's own session (what is scored), imaged against the room's simulated empty-room reference;
//  - N sessions of the room's TWIN (twinFromEnvironment: the declared room box and radios, guessed
//    materials, no furniture, default radio impairments, body reflectivity 0.6), k % 4 people in
//    session k, each imaged against the twin's own simulated empty room;
// with the CPU seconds the twin took (simulation + imaging). The evidence does not depend on the
// count head or the tracker, so every candidate correction replays it without re-imaging.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-twincount-cache.mjs <split> <out.json> [rooms] [twinSessions] [twinSeconds]
import { writePilotCache } from './pilot-cache-file.mjs';
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, twinFromEnvironment, sessionScenario } from '@wiflow/plugin-pose-tfjs';

const [split, out, roomsArg, twinArg, twinSecondsArg] = process.argv.slice(2);
if (!['val', 'test'].includes(split) || !out) throw new Error('usage: pilot-twincount-cache.mjs <val|test> <out.json> [rooms] [twinSessions] [twinSeconds]');
const rooms = Number(roomsArg ?? 23), twinSessions = Number(twinArg ?? 8);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const untracked = { ...model, spec: { ...model.spec, tracker: undefined } };
const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset ?? {});
const twinSeconds = Number(twinSecondsArg ?? recipe.secondsPerSession);
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === split).slice(0, rooms);

const cpuSeconds = (since) => { const u = process.cpuUsage(since); return (u.user + u.system) / 1e6; };

/** Every estimate of a scenario: time (ms), peak evidence, count features, the true people. */
function evidence(scenario, reference, seconds) {
  const locator = new PoseLocator(untracked, [environmentFromScenario(scenario)], [reference], { densePose: 'none', processingMode: 'job' });
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    const e = locator.locate(frame);
    if (e) list.push({ t: e.time, peaks: e.peaks, features: e.features, truth: e.truth?.persons ?? [] });
  }
  return list;
}

const runs = [];
const started = Date.now(), cpuStart = process.cpuUsage();
for (const [i, session] of sessions.entries()) {
  const scenario = session.scenario;
  const environment = environmentFromScenario(scenario);
  // What the installer has: the declared environment and the room's recorded empty-room reference.
  const reference = simulateReference(sim, scenario);
  const room = { width: environment.room.width, depth: environment.room.depth };
  const own = evidence(scenario, reference, recipe.secondsPerSession);
  const twinCpu = process.cpuUsage();
  const twinRoom = twinFromEnvironment(environment, reference);
  const pair = { environmentId: environment.id, real: twinRoom, twin: twinRoom, environment };
  const twin = [];
  for (let k = 0; k < twinSessions; k++) {
    const people = k % 4;
    const twinScenario = sessionScenario(sim, pair, { role: 'twin', seed: `count${k}`, seconds: twinSeconds, people: [people, people], personHeight: [1.5, 1.95] });
    twin.push({ people, estimates: evidence(twinScenario, simulateReference(sim, twinScenario), twinSeconds) });
  }
  runs.push({ sessionId: session.sessionId, environmentId: environment.id, environment, room, people: scenario.people.length, twinCpuSeconds: cpuSeconds(twinCpu), own, twin });
  process.stderr.write(`${split} room ${i + 1}/${sessions.length} ${environment.id}: ${own.length} estimates, twin ${twin.reduce((a, s) => a + s.estimates.length, 0)} estimates in ${runs.at(-1).twinCpuSeconds.toFixed(1)} CPU-s\n`);
}
writePilotCache(out, { split, model: model.spec.modelId, hash: model.hash, twinSessions, twinSeconds, wallSeconds: (Date.now() - started) / 1000, cpuSeconds: cpuSeconds(cpuStart), runs });
