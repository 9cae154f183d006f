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
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import { threePeopleCrossing } from '@wiflow/plugin-evaluation';

const [out, roomsArg, emptyArg, crossingArg] = process.argv.slice(2);
const rooms = Number(roomsArg ?? 23), emptySeconds = Number(emptyArg ?? 32), crossingRooms = Number(crossingArg ?? 2);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
// CLEAN_RADIUS=<m>: image with that CLEAN radius instead of the shipped one (explain-away in the image: project a neighbourhood of each person out before the next is sought).
const cleanRadiusM = process.env.CLEAN_RADIUS === undefined ? model.spec.imaging.cleanRadiusM : Number(process.env.CLEAN_RADIUS);
const untracked = { ...model, spec: { ...model.spec, tracker: undefined, imaging: { ...model.spec.imaging, cleanRadiusM } } };
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const sessions = validationSessions(rooms);

/** Room i's people walking side by side: 2 (even i) or 3 (odd i), `spacing` apart, along the room's longer axis and back. */
function sideBySide(scenario, i) {
  const { width: w, depth: d } = scenario.room;
  const n = i % 2 === 0 ? 2 : 3;
  const spacing = 0.8 + 0.4 * ((i * 7) % 5) / 4;
  const alongX = w >= d;
  const r = (v) => Math.round(v * 100) / 100;
  const people = Array.from({ length: n }, (_, k) => {
    const off = (k - (n - 1) / 2) * spacing;
    const from = alongX ? [r(0.15 * w), r(d / 2 + off)] : [r(w / 2 + off), r(0.15 * d)];
    const to = alongX ? [r(0.85 * w), r(d / 2 + off)] : [r(w / 2 + off), r(0.85 * d)];
    const speed = 0.8 + 0.1 * k;
    return { id: k + 1, height: 1.65 + 0.1 * k, start: { x: from[0], y: from[1], yawDeg: alongX ? 0 : 90 }, loop: true,
      script: [{ action: 'walk', path: [to], speed }, { action: 'stand', duration: 2 }, { action: 'walk', path: [from], speed }, { action: 'stand', duration: 2 }] };
  });
  return sim.validateScenario({ ...scenario, name: `${scenario.name}: ${n} people side by side ${spacing.toFixed(1)} m apart`, people });
}

/** Every estimate: time (ms), peaks [x, y, presence, aboveNoise, ...linkExplained] strongest first, the count features, truth [id, x, y]. */
function estimates(scenario, seconds) {
  const locator = new PoseLocator(untracked, [environmentFromScenario(scenario)], [simulateReference(sim, scenario)], { densePose: 'none', processingMode: 'job' });
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    const e = locator.locate(frame);
    if (e) list.push({ t: e.time, peaks: e.hypotheses.map((h, i) => [h.position.x, h.position.y, h.presence, e.peaks[i].aboveNoise, ...e.peaks[i].linkExplained.map((v) => Math.round(v * 1000) / 1000)]), features: e.features, truth: (e.truth?.persons ?? []).map((p) => [p.id, p.position.x, p.position.y]) });
  }
  return list;
}
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
