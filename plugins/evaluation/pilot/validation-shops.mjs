// Fresh VALIDATION shops for the shop-visit pilot (issue 21, branch shopvisit): the test shop's room,
// radios and zones (examples/scenarios/shop-monitored.yaml, seed 99, the test shop: never run here), with
// visitors drawn from a seed. Seeds 7201.. are new: the identity pilot's validation shops A–G used
// 7101–7107 (plugins/tracker/pilot/identity-cache.mjs), the test shop 99.
// Each visitor enters at the door, walks to one or two places among the shelves or the till, stands,
// and leaves by the door; arrivals are staggered over the first ~100 s so visits overlap a little.
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { EXAMPLE_SCENARIOS_DIR } from '@wiflow/plugin-evaluation';

/** The seeds of the validation shops (fresh: not used by any earlier pilot). */
export const VALIDATION_SHOP_SEEDS = [7201, 7202, 7203, 7204];

/** Places a visitor walks to: the aisles beside the three shelves, the display and the till. */
const PLACES = [[2.0, 3.0], [2.0, 5.5], [4.0, 2.5], [4.0, 5.5], [6.0, 2.5], [6.0, 5.5], [8.0, 4.5], [1.8, 1.8], [8.6, 1.6], [8.0, 6.5]];

/** One validation shop drawn from `seed` (deterministic). */
export function validationShop(seed, visitors = 4) {
  const base = sim.loadScenario(path.join(EXAMPLE_SCENARIOS_DIR, 'shop-monitored.yaml'));
  const prng = new sim.Prng(`shopvisit-val:${seed}`);
  const people = [];
  let arrival = prng.uniform(0, 8);
  for (let id = 1; id <= visitors; id++) {
    const stops = prng.int(1, 2);
    const script = [{ action: 'enter', at: [round(prng.uniform(4.6, 5.4)), 0.3], yawDeg: 90 }];
    if (arrival > 0.5) script.unshift({ action: 'absent', duration: round(arrival) });
    for (let s = 0; s < stops; s++) {
      const [x, y] = PLACES[prng.int(0, PLACES.length - 1)];
      script.push({ action: 'walk', path: [[round(x + prng.uniform(-0.3, 0.3)), round(y + prng.uniform(-0.3, 0.3))]], speed: round(prng.uniform(0.6, 1.1)) });
      script.push({ action: 'stand', duration: round(prng.uniform(4, 18)) });
    }
    script.push({ action: 'leave', path: [[5.0, 0.2], [5.0, 0.0]] });
    people.push({ id, height: round(prng.uniform(1.55, 1.9)), script });
    arrival += prng.uniform(15, 35);
  }
  return sim.validateScenario({ ...base, name: `shopvisit validation shop ${seed}`, environmentId: `shopvisit-val-${seed}`, seed, people });
}

function round(v) {
  return Math.round(v * 100) / 100;
}
