import type { CsiFrame } from '@wiflow/core';
import { z } from 'zod';
import { ChannelBlockMeter, changePower } from './channel-block.js';
import { linkKey } from './reference-check.js';
import type { EmptyRoomReference, LinkReference } from './reference.js';
import { StaticChainGain } from './static-chain-gain.js';

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

/** The locator's gain per receive chain (`imaging.staticChainGain` of its spec) that the detector judges with too. */
export interface StalenessChainGain {
  windowS: number;
  minDeviation: number;
}

/**
 * What a still, empty stretch says of a link's reference: `fine` (it fits), `replugged` (it fits
 * once each receive chain has its own gain, as the locator's `staticChainGain` gives it: new chain
 * phases, the locator copes, nothing to do), `stale` (a static change the locator does not remove:
 * re-record).
 */
export type StalenessVerdict = 'unchecked' | 'fine' | 'replugged' | 'stale';

/** What is known about one link's reference. */
export interface LinkStaleness {
  link: string;
  /** `unchecked` until the room was still for `stillSeconds`; then `fresh` (verdict fine or replugged: the reference serves the locator) or `stale`. */
  status: 'unchecked' | 'fresh' | 'stale';
  /** The finer verdict behind `status`. */
  verdict: StalenessVerdict;
  /** The last judged still stretch's change against the reference, in noise floors (median of its seconds), aligned with the reference's own gain model; null while unchecked. */
  changeNoiseFloors: number | null;
  /** The same change with the stretch aligned as the locator aligns it with a gain per receive chain; null while unchecked, or where the locator has no `staticChainGain` (or the link's reference fits a gain per chain already). */
  chainAlignedChangeNoiseFloors: number | null;
  /** Still seconds in a row now. */
  stillSeconds: number;
  /** Seconds of the link measured so far, still or not. */
  secondsMeasured: number;
  /**
   * The longest run of still seconds so far. Under `stillSeconds` after a long watch, the link
   * was never judged because it never looked still: someone moving all the time, or packets that
   * vary as motion does (a re-plugged receiver aligned with one common gain: FINDINGS.md, room-0041).
   */
  longestStillSeconds: number;
  /** Time (ms) of the last judgement; null while unchecked. */
  checkedAt: number | null;
}

/** What one second of one link said, as the detector judged it (what `ReferenceRefresh` builds its stretches from). */
export interface StillSecond {
  link: string;
  /** Time (ms) of the second's last packet. */
  time: number;
  /** Nothing moved on the link in it (coherence under `stillCoherence`). */
  still: boolean;
  /** Its change against the reference in noise floors (null when not still: not measured). */
  changeNoiseFloors: number | null;
  /** The same after the locator's gain per receive chain (null without one). */
  chainAlignedChangeNoiseFloors: number | null;
}

interface LinkState {
  reference: LinkReference;
  meter: ChannelBlockMeter;
  /** The same packets aligned with the locator's gain per receive chain; null without it. */
  chainMeter: ChannelBlockMeter | null;
  /** Change (noise floors) of every second of the current still stretch. */
  stretch: number[];
  /** The same with the gain per receive chain. */
  chainStretch: number[];
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
 *
 * With `chainGain` (the locator's `staticChainGain`), each second is also aligned with the
 * locator's own `StaticChainGain`; a stretch that differs from the reference only until each
 * receive chain has its own gain is a re-plugged receiver that the locator aligns (`replugged`,
 * not stale). Without it a re-plug stays stale: it does hurt such a locator.
 */
export class ReferenceStaleness {
  readonly #links = new Map<string, LinkState>();
  readonly settings: StalenessSettings;

  constructor(readonly reference: EmptyRoomReference, settings: Partial<StalenessSettings> = {}, readonly chainGain: StalenessChainGain | null = null) {
    this.settings = StalenessSettingsSchema.parse(settings);
    for (const link of reference.links) {
      const key = linkKey(link);
      const h0 = { re: Float64Array.from(link.re), im: Float64Array.from(link.im) }, subcarriers = Int16Array.from(link.subcarriers);
      const meter = (align: StaticChainGain | null) => new ChannelBlockMeter(h0, subcarriers, 1000, 5, this.settings.packetsPerSecond, { nrx: link.nrx, gain: link.gain }, align && ((csi, time) => align.align(csi, time)));
      // As the imager: only links aligned with one common gain get a gain per chain (a per-chain reference has one already).
      const chains = chainGain && link.gain === 'common' && link.nrx > 1 ? new StaticChainGain(h0, subcarriers, link.nrx, chainGain.windowS, chainGain.minDeviation) : null;
      this.#links.set(key, {
        reference: link,
        meter: meter(null),
        chainMeter: chains && meter(chains),
        stretch: [],
        chainStretch: [],
        judged: { link: key, status: 'unchecked', verdict: 'unchecked', changeNoiseFloors: null, chainAlignedChangeNoiseFloors: null, stillSeconds: 0, secondsMeasured: 0, longestStillSeconds: 0, checkedAt: null },
      });
    }
  }

  /**
   * Add one frame (links the reference lacks are ignored: the reference check refuses them
   * elsewhere); returns the link's second it closed, if it closed one.
   */
  push(frame: CsiFrame): StillSecond | null {
    const state = this.#links.get(linkKey(frame.link));
    if (!state) return null;
    const block = state.meter.push(frame.csi, frame.time);
    // The same packets and times: both meters close their blocks together.
    const chainBlock = state.chainMeter?.push(frame.csi, frame.time) ?? null;
    if (!block) return null;
    const s = this.settings;
    const noise = state.reference.noisePower;
    // Stillness from the reference's alignment, as before: the chain gain changes no coherence of a still room.
    const still = block.coherence < s.stillCoherence;
    state.judged.secondsMeasured++;
    if (!still) {
      state.stretch = [];
      state.chainStretch = [];
      state.judged.stillSeconds = 0;
      return { link: state.judged.link, time: block.time, still: false, changeNoiseFloors: null, chainAlignedChangeNoiseFloors: null };
    }
    // The block mean keeps noise / packets of noise power; take it out so an unchanged room reads near 0.
    const changeOf = (b: NonNullable<typeof block>) => Math.max(0, changePower(b.mean, state.reference) - b.dynamicPower / b.packets) / noise;
    const second: StillSecond = { link: state.judged.link, time: block.time, still: true, changeNoiseFloors: changeOf(block), chainAlignedChangeNoiseFloors: chainBlock ? changeOf(chainBlock) : null };
    state.stretch.push(second.changeNoiseFloors!);
    if (chainBlock) state.chainStretch.push(second.chainAlignedChangeNoiseFloors!);
    state.judged.stillSeconds++;
    state.judged.longestStillSeconds = Math.max(state.judged.longestStillSeconds, state.judged.stillSeconds);
    if (state.stretch.length > s.stillSeconds) state.stretch.shift();
    if (state.chainStretch.length > s.stillSeconds) state.chainStretch.shift();
    if (state.stretch.length < s.stillSeconds) return second;
    const change = median(state.stretch);
    const chainChange = state.chainMeter && state.chainStretch.length ? median(state.chainStretch) : null;
    const verdict: StalenessVerdict = change <= s.staleNoiseFloors ? 'fine' : chainChange !== null && chainChange <= s.staleNoiseFloors ? 'replugged' : 'stale';
    state.judged = {
      link: state.judged.link,
      status: verdict === 'stale' ? 'stale' : 'fresh',
      verdict,
      changeNoiseFloors: change,
      chainAlignedChangeNoiseFloors: chainChange,
      stillSeconds: state.judged.stillSeconds,
      secondsMeasured: state.judged.secondsMeasured,
      longestStillSeconds: state.judged.longestStillSeconds,
      checkedAt: block.time,
    };
    return second;
  }

  /** Every link's state, in the reference's order. */
  status(): LinkStaleness[] {
    return [...this.#links.values()].map((l) => ({ ...l.judged }));
  }
}
