// The rooms and estimates of the ghosts caches (pilot-ghosts-cache.mjs, pilot-rank-cache.mjs):
// the shipped locator without its tracker, the side-by-side rooms of CLOSE=1, and one run's
// untracked estimates with each image peak's evidence.
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario } from '@wiflow/plugin-pose-tfjs';

/** The shipped locator without its tracker (the caches replay trackers), with CLEAN_RADIUS=<m> from the environment when set. */
export function untrackedLocatorModel(env = process.env) {
  const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
  // CLEAN_RADIUS=<m>: image with that CLEAN radius instead of the shipped one (explain-away in the image: project a neighbourhood of each person out before the next is sought).
  const cleanRadiusM = env.CLEAN_RADIUS === undefined ? model.spec.imaging.cleanRadiusM : Number(env.CLEAN_RADIUS);
  return { model, cleanRadiusM, untracked: { ...model, spec: { ...model.spec, tracker: undefined, imaging: { ...model.spec.imaging, cleanRadiusM } } } };
}

/** Room i's people walking side by side: 2 (even i) or 3 (odd i), `spacing` apart, along the room's longer axis and back. */
export function sideBySide(scenario, i) {
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

/**
 * Every estimate of `seconds` of the scenario: time (ms), peaks [x, y, presence, aboveNoise, ...linkExplained]
 * strongest first, the count features, truth [id, x, y]. With `annotate`, a locator-independent view of the
 * room (`watch(environment, reference)` returns { push(frame), read() }) adds `read()`'s fields to each estimate.
 */
export function untrackedEstimates(untracked, scenario, seconds, annotate = null) {
  const environment = environmentFromScenario(scenario), reference = simulateReference(sim, scenario);
  const locator = new PoseLocator(untracked, [environment], [reference], { densePose: 'none', processingMode: 'job' });
  const watcher = annotate?.(environment, reference) ?? null;
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    watcher?.push(frame);
    const e = locator.locate(frame);
    if (e) list.push({ t: e.time, peaks: e.hypotheses.map((h, i) => [h.position.x, h.position.y, h.presence, e.peaks[i].aboveNoise, ...e.peaks[i].linkExplained.map((v) => Math.round(v * 1000) / 1000)]), features: e.features, truth: (e.truth?.persons ?? []).map((p) => [p.id, p.position.x, p.position.y]), ...(watcher ? watcher.read() : {}) });
  }
  return list;
}
