// One simulated run through the shipped locator without its tracker, as the locator pilots cache it
// (pilot-distract-cache.mjs, pilot-perpacket.mjs): every estimate with its peaks, features and the
// simulator's truth. `onFrame` sees every packet the locator is given (pilot-perpacket.mjs keeps them).
import * as sim from '@wiflow/plugin-sim';
import { PoseLocator, simulateReference, environmentFromScenario } from '@wiflow/plugin-pose-tfjs';

const r3 = (v) => Math.round(v * 1000) / 1000;

/** The locator model with its tracker removed: the estimates a tracker replay reads. */
export const untrackedOf = (model) => ({ ...model, spec: { ...model.spec, tracker: undefined } });

/**
 * Every estimate: time (ms), peaks [x, y, presence, aboveNoise, wallDistance, ...linkExplained] strongest first, features, truth people [id, x, y, activity], distractors [id, kind, x, y, active].
 * `environment` and `reference` are the room's as the locator is given them (made here when absent).
 */
export function locatorEstimates(model, scenario, seconds, { onFrame = null, environment = environmentFromScenario(scenario), reference = simulateReference(sim, scenario) } = {}) {
  const locator = new PoseLocator(untrackedOf(model), [environment], [reference], { densePose: 'none', processingMode: 'job' });
  const list = [];
  for (const tick of new sim.Simulator(scenario).run(seconds)) for (const frame of tick.frames) {
    onFrame?.(frame);
    const e = locator.locate(frame);
    if (!e) continue;
    list.push({
      t: e.time,
      peaks: e.hypotheses.map((h, i) => [r3(h.position.x), r3(h.position.y), r3(h.presence), r3(e.peaks[i].aboveNoise), r3(e.peaks[i].wallDistance), ...e.peaks[i].linkExplained.map(r3)]),
      features: e.features.map(r3),
      truth: (e.truth?.persons ?? []).map((p) => [p.id, r3(p.position.x), r3(p.position.y), p.activity]),
      distractors: (e.truth?.distractors ?? []).filter((d) => d.position).map((d) => [d.id, d.kind, r3(d.position.x), r3(d.position.y), d.active]),
    });
  }
  return list;
}
