// Phantoms of the per-room correction (twincount-protocol.md's BM) in emptied rooms: each room of a
// cached split (pilot-twincount-cache.mjs) with nobody in it for `seconds`, the shipped locator and
// BM (fitted on the room's cached twin, as scored) replayed on the same evidence, people counted as
// `wiflow locate eval --empty-room` counts them (every rise of the reported count).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-twincount-empty.mjs <cache.json> [seconds]
import * as sim from '@wiflow/plugin-sim';
import { readPilotCache } from './pilot-cache-file.mjs';
import { hypothesesFromEvidence, PeopleTracker, PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, fitCountBias, withCountBias, withBirthMargin, chooseBirthMargin } from '@wiflow/plugin-pose-tfjs';

const [cacheFile, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 60);
const cache = readPilotCache(cacheFile);
const shipped = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const untracked = { ...shipped, spec: { ...shipped.spec, tracker: undefined } };
const recipe = DatasetRecipeSchema.parse(shipped.spec.training.dataset ?? {});
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const byId = new Map(plan.sessions.map((s) => [s.sessionId, s]));
const phantoms = { S: 0, BM: 0 };
for (const run of cache.runs) {
  const twin = run.twin.map((session) => session.estimates.map((e) => ({ timeS: e.t / 1000, peaks: e.peaks, features: e.features, people: e.truth.length })));
  const biased = withCountBias(shipped.spec, fitCountBias(shipped.spec, twin.flat()));
  const specs = { S: shipped.spec, BM: withBirthMargin(biased, chooseBirthMargin(biased, twin, run.room).margin) };
  const scenario = { ...byId.get(run.sessionId).scenario, people: [] };
  const locator = new PoseLocator(untracked, [environmentFromScenario(scenario)], [simulateReference(sim, scenario)], { densePose: 'none', processingMode: 'job' });
  const evidence = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) { const e = locator.locate(frame); if (e) evidence.push(e); }
  const line = [];
  for (const [name, spec] of Object.entries(specs)) {
    const tracker = new PeopleTracker(spec.tracker, spec.imaging.maxPersons);
    let previous = 0, people = 0;
    for (const e of evidence) {
      const count = hypothesesFromEvidence(spec, tracker, e.time / 1000, e.peaks, e.features, run.room).hypotheses.filter((h) => h.presence > spec.presenceThreshold).length;
      people += Math.max(0, count - previous);
      previous = count;
    }
    phantoms[name] += people;
    line.push(`${name} ${people} (margin ${spec.tracker.birthAboveNoise})`);
  }
  process.stderr.write(`${run.environmentId}: ${line.join(', ')}\n`);
}
const hours = (cache.runs.length * seconds) / 3600;
console.log(`${cache.split}: ${cache.runs.length} rooms emptied for ${seconds} s; phantom people S ${phantoms.S} (${(phantoms.S / hours).toFixed(1)} per hour), BM ${phantoms.BM} (${(phantoms.BM / hours).toFixed(1)} per hour)`);
