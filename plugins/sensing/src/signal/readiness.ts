import type { LinkSnapshot } from './link-sensor.js';

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
/** The sensing's grid rate: below it slots are held, and the motion models were fitted at 20–100 packets/s. */
export const GRID_PACKETS_PER_SECOND = 10;
/** Share of packets of another kind above which the sender should be fixed. */
const OTHER_KIND_NOTE = 0.05;

const pct = (x: number) => `${Math.round(100 * x)} %`;
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
  const raise = 'raise the sender\'s packet rate (its ping or beacon interval) to 10–100 /s';

  const movement: ReadinessCheck = tooSlow
    ? { capability: 'movement', verdict: 'no', reason: `${packets}: the sensing needs at least ${MIN_PACKETS_PER_SECOND} packets/s; ${raise}` }
    : slow
      ? { capability: 'movement', verdict: 'limited', reason: `${packets}: empty slots hold the one before, which damps movement, and the motion models were fitted at 20–100 packets/s; ${raise}` }
      : { capability: 'movement', verdict: 'ok', reason: packets };

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
