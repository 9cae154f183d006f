import type { CsiFrame } from '@wiflow/core';
import { SensingConfigSchema, type SensingConfig, type SensingModels } from '../config.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';
import { LinkSensor } from './link-sensor.js';

/**
 * What an installer's empty-room capture says about one link: the levels its motion features keep with
 * nobody in the room, which a session of the same link is then read against.
 */
export interface LinkReference {
  /** Median over the capture's seconds of the motion spread (`MotionFeatures.spread`): the level rule's base. */
  spread: number;
  /** The capture's pair spread per second, in order (`MotionFeatures.pairSpread`): seeds the link's own floor. */
  pairSpreads: number[];
}

/** The key of a link in a reference: `tx>rx`. */
export const referenceLinkKey = (link: { tx: string; rx: string }) => `${link.tx}>${link.rx}`;

/**
 * Builds the per-link empty-room reference from the frames of an empty-room capture: each link is sensed as a
 * session would be (same normalisation, grid and features) and its per-second motion features are kept.
 */
export class EmptyRoomReferenceRecorder {
  #sensors = new Map<string, LinkSensor>();
  #spreads = new Map<string, number[]>();
  #pairSpreads = new Map<string, number[]>();

  constructor(readonly config: SensingConfig = SensingConfigSchema.parse({}), readonly models: SensingModels = DEFAULT_SENSING_MODELS) {}

  /** Add one frame of the empty-room capture. */
  push(frame: CsiFrame): void {
    const key = referenceLinkKey(frame.link);
    let sensor = this.#sensors.get(key);
    if (!sensor) {
      const spreads: number[] = [];
      const pairSpreads: number[] = [];
      this.#spreads.set(key, spreads);
      this.#pairSpreads.set(key, pairSpreads);
      sensor = new LinkSensor(frame.link, {
        environmentId: 'reference', config: this.config, models: this.models, configHash: '',
        onMotionFeatures: (_s, f) => {
          spreads.push(f.spread);
          pairSpreads.push(f.pairSpread);
        },
      });
      this.#sensors.set(key, sensor);
    }
    sensor.push(frame);
  }

  /** The reference of every link that gave at least one whole second. */
  build(): Map<string, LinkReference> {
    for (const sensor of this.#sensors.values()) sensor.finish();
    const out = new Map<string, LinkReference>();
    for (const [key, spreads] of this.#spreads) {
      if (!spreads.length) continue;
      const sorted = [...spreads].sort((a, b) => a - b);
      out.set(key, { spread: sorted[sorted.length >> 1], pairSpreads: [...this.#pairSpreads.get(key)!] });
    }
    return out;
  }
}
