import { SLOW_MODEL_MAX_EMPTY, type LinkSnapshot } from './link-sensor.js';

/**
 * Whether a link gives a capability what it needs: `ok` (it does), `limited` (it works partly, the reason says
 * how), `no` (it cannot), `unknown` (too few packets yet to say). This judges the link's radio and packets, not
 * the room: how well each capability does on real captures is in docs/sensing.md.
 */
export type ReadinessVerdict = 'ok' | 'limited' | 'no' | 'unknown';

/** What an installer asks of a link. */
export type SensingCapability = 'movement' | 'still_person' | 'breathing' | 'falls';

export interface ReadinessCheck {
  capability: SensingCapability;
  verdict: ReadinessVerdict;
  reason: string;
}

/** A link's readiness: one check per capability, and notes on its packets. */
export interface LinkReadiness {
  checks: ReadinessCheck[];
  notes: string[];
}

/** The fewest packets per second the sensing reads at all (breathing gives `rate_too_low` below it). */
export const MIN_PACKETS_PER_SECOND = 2;
/** The sensing's grid rate: below it slots are held, and movement is read by the slow links' models only. */
export const GRID_PACKETS_PER_SECOND = 10;
/**
 * Radio families whose motion model reads no movement on slower links, where no slow-link model reads the link (the
 * models have none for the family, or the link is burstier than `SLOW_MODEL_MAX_EMPTY`): the rate
 * the model's captures had (about; it is `limited` under it) and the rate under which it was measured to read no
 * movement at all (the ESP32's: F1 0.71 at 53 packets/s, 0 at 21 and below, on thinned real captures of chips it
 * was not fitted on; `npm run eval:real`, "at slower packet rates").
 */
export const MOTION_RATE_LIMITS: Record<string, { fitted: number; blindBelow: number }> = { int8: { fitted: 74, blindBelow: 25 } };
/** Share of packets of another kind above which the sender should be fixed. */
const OTHER_KIND_NOTE = 0.05;

const pct = (x: number) => `${Math.round(100 * x)} %`;
/** The floor a slow link's movement is read against, in words. */
const floorText = (f: NonNullable<LinkSnapshot['motionFloor']>) => `${f.quantile === 0 ? 'the lowest' : `the ${Math.round(100 * f.quantile)}th percentile`} of each input over its last ${f.window % 60 === 0 ? `${f.window / 60} min` : `${f.window} s`}, ${f.seconds} s held so far`;
const rateText = (r: number) => `${r < 10 ? r.toFixed(1) : Math.round(r)} packets/s`;

/** Judge a link's snapshot for each capability, with the reason in words an installer can act on. */
export function linkReadiness(s: LinkSnapshot): LinkReadiness {
  const notes: string[] = [];
  if (s.frames > 0 && s.otherKindFrames / s.frames > OTHER_KIND_NOTE) {
    notes.push(`${pct(s.otherKindFrames / s.frames)} of the packets are of another kind (shape or PHY mode) and are passed over: set the sender to one kind (for an ESP32, one PHY mode and bandwidth)`);
  }
  if (s.format === null || s.packetsPerSecond === null || s.lostFraction === null) {
    const why = s.format === null ? `${s.frames} packets so far: the link's kind is decided by its first 40` : 'no whole second sensed yet';
    const capabilities: SensingCapability[] = ['movement', 'still_person', 'breathing', 'falls'];
    return { checks: capabilities.map((capability) => ({ capability, verdict: 'unknown', reason: why })), notes };
  }
  const rate = s.packetsPerSecond;
  const lost = s.lostFraction;
  const chains = s.receiveChains ?? 1;
  const packets = `${rateText(rate)}, ${pct(lost)} of the 10-Hz grid's slots empty`;
  const tooSlow = rate < MIN_PACKETS_PER_SECOND;
  const slow = rate < GRID_PACKETS_PER_SECOND || lost > 0.5;
  const slowModel = s.motionModel === 'slow-link';
  const raise = 'raise the sender\'s packet rate (its ping or beacon interval) toward 100 /s';

  const limits = s.family !== null && !slowModel ? MOTION_RATE_LIMITS[s.family] : undefined;
  const uneven = lost > SLOW_MODEL_MAX_EMPTY;
  const movement: ReadinessCheck = tooSlow
    ? { capability: 'movement', verdict: 'no', reason: `${packets}: the sensing needs at least ${MIN_PACKETS_PER_SECOND} packets/s; ${raise}` }
    : limits && rate < limits.blindBelow
      ? { capability: 'movement', verdict: 'no', reason: uneven ? `${packets}: the packets come too unevenly for the slow-link model (it reads links with at most ${pct(SLOW_MODEL_MAX_EMPTY)} of the slots empty), and this radio's motion model was fitted at about 100 packets/s: movement is not read reliably here; send evenly and ${raise}` : `${packets}: this radio's motion model was fitted at about 100 packets/s and reads no movement at ${limits.blindBelow} packets/s or less (measured on real captures, docs/sensing.md); ${raise}` }
      : limits && rate < limits.fitted
        ? { capability: 'movement', verdict: 'limited', reason: `${packets}: under the rate this radio's motion model was fitted at (about 100 packets/s), it misses movement (F1 0.71 at half that rate on real captures, docs/sensing.md)${uneven ? `; the slow-link model, which reads even links at this rate, refuses packets this uneven (more than ${pct(SLOW_MODEL_MAX_EMPTY)} of the slots empty): send evenly and` : ';'} ${raise}` }
        : slowModel && s.motionFloor
          ? { capability: 'movement', verdict: 'limited', reason: `${packets}: under the rate this radio's motion model was fitted at, so movement is read by its slow links' model against the link's own quiet level (${floorText(s.motionFloor)}); a link started while people move, or a room busy for most of that time, reads movement only after a quiet spell (docs/sensing.md, "at slower packet rates"); ${raise}` }
        : slow || slowModel
      ? { capability: 'movement', verdict: 'limited', reason: `${packets}: ${slowModel ? "under the rate this radio's motion model was fitted at, so movement is read by its slow links' model, which tells it less surely (docs/sensing.md, \"at slower packet rates\")" : 'held slots damp movement'}; ${raise}` }
      : { capability: 'movement', verdict: 'ok', reason: s.motionFloor ? `${packets}; movement is read against the link's own quiet level (${floorText(s.motionFloor)}): a link started while people move reads them once it has seen the room quiet` : packets };

  const breathing: ReadinessCheck = tooSlow
    ? { capability: 'breathing', verdict: 'no', reason: `${rateText(rate)}: a breathing rate needs at least ${MIN_PACKETS_PER_SECOND} packets/s (rate_too_low)` }
    : lost > 0.5
      ? { capability: 'breathing', verdict: 'no', reason: `${pct(lost)} of the 10-Hz grid's slots empty: with more than half of them lost no rate is given (too_many_gaps); ${raise}` }
      : chains < 2
        ? { capability: 'breathing', verdict: 'limited', reason: 'one receive chain: breathing is read from amplitudes alone, and the real single-chain (ESP32) captures measured so far showed none (docs/sensing.md); a receiver with 2–3 antennas adds the phase between them' }
        : rate < GRID_PACKETS_PER_SECOND
          ? { capability: 'breathing', verdict: 'limited', reason: `${rateText(rate)}: under the 10-Hz grid slots are held; ${raise}` }
          : { capability: 'breathing', verdict: 'ok', reason: `${chains} receive chains at ${rateText(rate)}: amplitudes and the phase between chains are read, over 20–30 s of a still person` };

  const hold = 'a person who sat or lay down is kept present for 5 min after they last moved';
  const stillPerson: ReadinessCheck =
    breathing.verdict === 'ok'
      ? { capability: 'still_person', verdict: 'ok', reason: `${hold}, and longer while their breathing shows` }
      : movement.verdict === 'no'
        ? { capability: 'still_person', verdict: 'no', reason: movement.reason }
        : { capability: 'still_person', verdict: 'limited', reason: `${hold}; after that only a breathing rate keeps them, which this link gives ${breathing.verdict === 'no' ? 'none of' : 'little of'} (see breathing)` };

  const falls: ReadinessCheck = tooSlow
    ? { capability: 'falls', verdict: 'no', reason: movement.reason }
    : s.fallDetector === 'velocity-profile'
      ? slow
        ? { capability: 'falls', verdict: 'limited', reason: `the velocity-profile detector (fitted on Intel 5300 links at 20 packets/s), but ${packets}` }
        : { capability: 'falls', verdict: 'ok', reason: 'the velocity-profile detector, fitted on Intel 5300 links with several receive chains like this one' }
      : { capability: 'falls', verdict: 'limited', reason: `the burst detector: ${s.family === 'sim' ? 'fitted on simulated rooms' : 'no fall model was fitted or checked on real captures of this radio'}${slow ? `, and ${packets}` : ''}` };

  return { checks: [movement, stillPerson, breathing, falls], notes };
}
