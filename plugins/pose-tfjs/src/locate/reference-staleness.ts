import type { CsiFrame } from '@wiflow/core';
import { z } from 'zod';
import { ChannelBlockMeter, changePower } from './channel-block.js';
import { linkKey } from './reference-check.js';
import type { EmptyRoomReference, LinkReference } from './reference.js';

/** Thresholds of stale-reference detection. */
export const StalenessSettingsSchema = z.object({
  /**
   * A second is still when what changes within it is not smooth over subcarriers (coherence,
   * see `ChannelBlock`, under this): nobody moving. Its power is no test: a reference that no
   * longer fits (a re-plugged radio) leaves an alignment residue of several noise floors that
   * is as white as noise.
   */
  stillCoherence: z.number().positive().default(0.15),
  /** Still seconds in a row before the room is judged: short pauses of someone walking never are. */
  stillSeconds: z.number().int().positive().default(20),
  /**
   * Stale when the still room's mean differs from the reference by more than this many noise
   * floors (per value). An unchanged room measures about 0.05 (the mean of a second keeps 1/20
   * of the noise); a sofa moved 3 m about 12, a door left open about 6 (simulator, 25 dB SNR).
   */
  staleNoiseFloors: z.number().positive().default(2),
  /** Packets per second and link measured (the others skipped): at 100 Hz, 10 keeps the check to a tenth of the alignments the locator makes. */
  packetsPerSecond: z.number().int().min(5).default(10),
});

/** Thresholds of stale-reference detection. */
export type StalenessSettings = z.output<typeof StalenessSettingsSchema>;

/** What is known about one link's reference. */
export interface LinkStaleness {
  link: string;
  /** `unchecked` until the room was still for `stillSeconds`; then `fresh` or `stale`. */
  status: 'unchecked' | 'fresh' | 'stale';
  /** The last judged still stretch's change against the reference, in noise floors (median of its seconds); null while unchecked. */
  changeNoiseFloors: number | null;
  /** Still seconds in a row now. */
  stillSeconds: number;
  /** Time (ms) of the last judgement; null while unchecked. */
  checkedAt: number | null;
}

interface LinkState {
  reference: LinkReference;
  meter: ChannelBlockMeter;
  /** Change (noise floors) of every second of the current still stretch. */
  stretch: number[];
  judged: LinkStaleness;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * Watches a room's links as the pipeline runs for an empty-room reference that no longer
 * fits: furniture moved, a door left in another state, a radio re-plugged (new chain phases)
 * or slow drift. Each second of each link is aligned to its reference as the locator aligns
 * it; while nothing moves (`stillSeconds` of still seconds in a row), the room's static
 * channel is compared with the reference against the reference's own noise floor. Moving
 * people make seconds that are not still, so they are never judged; a person standing
 * perfectly still for the whole stretch is a static change too (the warning says "if the
 * room was empty").
 */
export class ReferenceStaleness {
  readonly #links = new Map<string, LinkState>();
  readonly settings: StalenessSettings;

  constructor(readonly reference: EmptyRoomReference, settings: Partial<StalenessSettings> = {}) {
    this.settings = StalenessSettingsSchema.parse(settings);
    for (const link of reference.links) {
      const key = linkKey(link);
      this.#links.set(key, {
        reference: link,
        meter: new ChannelBlockMeter({ re: Float64Array.from(link.re), im: Float64Array.from(link.im) }, Int16Array.from(link.subcarriers), 1000, 5, this.settings.packetsPerSecond, { nrx: link.nrx, gain: link.gain }),
        stretch: [],
        judged: { link: key, status: 'unchecked', changeNoiseFloors: null, stillSeconds: 0, checkedAt: null },
      });
    }
  }

  /** Add one frame (links the reference lacks are ignored: the reference check refuses them elsewhere). */
  push(frame: CsiFrame): void {
    const state = this.#links.get(linkKey(frame.link));
    if (!state) return;
    const block = state.meter.push(frame.csi, frame.time);
    if (!block) return;
    const s = this.settings;
    const noise = state.reference.noisePower;
    const still = block.coherence < s.stillCoherence;
    if (!still) {
      state.stretch = [];
      state.judged.stillSeconds = 0;
      return;
    }
    // The block mean keeps noise / packets of noise power; take it out so an unchanged room reads near 0.
    state.stretch.push(Math.max(0, changePower(block.mean, state.reference) - block.dynamicPower / block.packets) / noise);
    state.judged.stillSeconds++;
    if (state.stretch.length > s.stillSeconds) state.stretch.shift();
    if (state.stretch.length < s.stillSeconds) return;
    const change = median(state.stretch);
    state.judged = { link: state.judged.link, status: change > s.staleNoiseFloors ? 'stale' : 'fresh', changeNoiseFloors: change, stillSeconds: state.judged.stillSeconds, checkedAt: block.time };
  }

  /** Every link's state, in the reference's order. */
  status(): LinkStaleness[] {
    return [...this.#links.values()].map((l) => ({ ...l.judged }));
  }
}
