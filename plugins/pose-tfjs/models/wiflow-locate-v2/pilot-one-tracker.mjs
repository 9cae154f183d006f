// Pilot behind FINDINGS.md "One tracker": where tracking lives in the chain. Validation rooms only.
// Run from the repository root after a build: node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-one-tracker.mjs [rooms]
// Caches the estimator's untracked peaks (the shipped locator with its tracker section removed, in
// memory) of the first validation rooms and two validation rooms of three people crossing, then
// replays them through: the estimator's tracker → tracker.track tracking again (before) or
// following the estimator's ids (shipped), scored as `wiflow eval-e2e` scores (after 5 s of track,
// IDF1 at 0.5 m), and through retail.analytics for visitors.
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import { BucketScorer, confirmedTracks, threePeopleCrossing } from '@wiflow/plugin-evaluation';
import { MultiPersonTracker, scoreTracking, combineScores } from '@wiflow/plugin-tracker';
import { computeRetailMetrics } from '@wiflow/plugin-retail';
import { PeopleTracker } from '../../dist/locate/people-tracker.js';

const rooms = Number(process.argv[2] ?? 10);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const untracked = { ...model, spec: { ...model.spec, tracker: undefined } };
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val');

/** Every estimate of a scenario: time, peaks [x, y, presence] strongest first, truth [id, x, y]. */
function estimates(scenario, seconds) {
  const locator = new PoseLocator(untracked, [environmentFromScenario(scenario)], [simulateReference(sim, scenario)], { densePose: 'none', processingMode: 'job' });
  const out = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    const e = locator.locate(frame);
    if (e) out.push({ t: e.time, peaks: e.hypotheses.map((h) => [h.position.x, h.position.y, h.presence]), truth: (e.truth?.persons ?? []).map((p) => [p.id, p.position.x, p.position.y]) });
  }
  return out;
}
const runs = [
  ...sessions.slice(0, rooms).map((s) => ({ kind: 'room', estimates: estimates(s.scenario, recipe.secondsPerSession) })),
  ...sessions.slice(0, 2).map((s) => ({ kind: 'crossing', estimates: estimates(sim.validateScenario(threePeopleCrossing(s.scenario)), 30) })),
];

const frameOf = (e, persons) => ({
  timestamp: e.t, environmentId: 'room',
  persons: persons.map((p, i) => ({ id: i, trackId: p.trackId, trackStatus: 'active', confidence: p.confidence, position: { x: p.x, y: p.y }, keypoints: [], keypoints3d: [] })),
  truth: { persons: e.truth.map(([id, x, y]) => ({ id, position: { x, y } })) },
});

/** The chain: the estimator's tracker (its settings from locator.json), then tracker.track with `options`; `reTrack` hides the estimator's ids as before. */
function chain(run, options, reTrack, trackerSettings = {}) {
  const people = new PeopleTracker({ ...model.spec.tracker, ...trackerSettings }, model.spec.imaging.maxPersons);
  const tracker = new MultiPersonTracker(options);
  const threshold = model.spec.presenceThreshold;
  return run.estimates.map((e) => {
    const shown = people.update(e.t / 1000, e.peaks.map(([x, y, presence]) => ({ x, y, presence }))).filter((t) => t.confirmed)
      .map((t) => ({ x: t.x, y: t.y, trackId: reTrack ? null : t.id, confidence: threshold + (1 - threshold) * Math.max(0.02, t.support) }));
    const f = frameOf(e, shown);
    return { ...tracker.update(reTrack ? { ...f, persons: f.persons.map((p) => ({ ...p, trackStatus: undefined })) } : f), truth: f.truth };
  });
}

const r2 = (v) => (v === null ? '—' : v.toFixed(2));
console.log('| chain | count exact, 1 / 2 / 3 / all | floor error, 1 / 2 / 3 people | IDF1 (crossing) | crossing ids | room ids / visitors / visitors counting momentary ones (true people) |');
console.log('|---|---|---|---|---|---|');
const variants = [
  ['tracking again (before)', { follow_upstream_ids: false }, true],
  ['following its ids (shipped)', {}, false],
  ['following, an id shown after 3 frames', { upstream_min_hits: 3 }, false],
  // The estimator's births and deaths (locator.json's tracker section; shipped: born after 2 of 4, dies after 4).
  ['following; deaths after 8 estimates', {}, false, { deathMisses: 8 }],
  ['following; deaths after 12 estimates', {}, false, { deathMisses: 12 }],
  ['following; births after 3 of 5', {}, false, { confirmHits: 3, confirmWindow: 5 }],
];
for (const [name, options, reTrack, trackerSettings] of variants) {
  const scorer = new BucketScorer();
  const tracking = [];
  let ids = 0, visitors = 0, momentary = 0, people = 0;
  for (const run of runs) {
    const frames = chain(run, options, reTrack, trackerSettings);
    if (run.kind === 'crossing') { tracking.push(scoreTracking(frames)); continue; }
    scorer.addSession(frames);
    ids += confirmedTracks(frames);
    visitors += computeRetailMetrics(frames, {}).metrics.traffic.total_visitors;
    momentary += computeRetailMetrics(frames, { min_visit_seconds: 0 }).metrics.traffic.total_visitors;
    people += new Set(run.estimates.flatMap((e) => e.truth.map((t) => t[0]))).size;
  }
  const f = scorer.figures(), t = combineScores(tracking);
  console.log(`| ${name} | ${['1', '2', '3', 'all'].map((k) => r2(f[k].countExact)).join(' / ')} | ${['1', '2', '3'].map((k) => r2(f[k].floorErrorM.mean)).join(' / ')} m | ${r2(t.idf1)} | ${t.trackIds} | ${ids} / ${visitors} / ${momentary} (${people}) |`);
}
