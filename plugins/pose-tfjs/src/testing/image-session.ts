// Test support (not part of the public entry): a simulated session imaged by several RoomImagers in lockstep,
// one per settings variant, so a test compares what an imaging option changes on the same packets.
import { Simulator } from '@wiflow/plugin-sim';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import { RoomImager, type ImagingSettings, type RoomImage } from '../locate/imager.js';
import { simulateReference } from '../locate/simulated.js';

/** Images of `seconds` of the scenario, every 10th tick once the first imager is ready: `out[variant][estimate]`. */
export function imageSession(scenario: unknown, settings: ImagingSettings, variants: Partial<ImagingSettings>[], seconds = 4): RoomImage[][] {
  const environment = environmentFromScenario(scenario as never);
  const reference = simulateReference({ Simulator } as never, scenario as never);
  const imagers = variants.map((o) => new RoomImager(environment, reference, { ...settings, ...o }));
  const out: RoomImage[][] = variants.map(() => []);
  for (const tick of new Simulator(scenario as never).run(seconds)) {
    for (const frame of tick.frames) for (const imager of imagers) imager.push(frame);
    if (tick.index % 10 !== 0 || !imagers[0].ready()) continue;
    imagers.forEach((imager, i) => out[i].push(imager.image()));
  }
  return out;
}
