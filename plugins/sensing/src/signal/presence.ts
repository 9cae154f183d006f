import type { SensingConfig } from '../config.js';

/**
 * Presence of one link from its seconds of evidence. A person arrives moving: an entry is several moving
 * seconds close together (walking in), while what moves an empty room briefly (a door swing, a cat's short
 * walk, one corrupt packet) gives one to three. Once someone is there, any moving second, a breathing rate
 * or a level above the empty room keeps them there, and a moving second holds presence a while, since a
 * still person's breathing is not always visible. Optionally (`faintKeepSeconds`, off by default) a faint
 * breathing line (a spectrum peak too weak to give a rate) keeps someone already present a while past the
 * hold; it never starts presence. It is off because empty channels show such lines too: on the simulated
 * test rooms it kept most rooms present long after their person left.
 * A moving second counts toward an entry only when it is person-sized: its size (the link's pair spread over
 * its own floor, see `PresenceEvidence`) at least `entrySize`. On 18 simulated validation rooms an empty
 * room's moving seconds (a link whose phase between chains wanders, a door's swing, a cat) read a median
 * 1.2 × the floor, a person walking in 3 × (10th percentile 1.7 ×). `keepSize` and `breathingStartMaxBpm` (a
 * fan's aliased line sits at 27–35 bpm) were tried there and cost still-person recall; they are off by
 * default. The pilots behind these rules are pilot/sim_false_presence.mjs, pilot/sim_still_keep.mjs and
 * pilot/sim_pets.py.
 * A steady line (`steadyKeepSeconds`) keeps a present link present past the hold: the breathing spectrum's peak,
 * however weak, has sat at one rate for minutes. A still person's faint breathing does that; noise moves its peak
 * around (on 30 simulated validation rooms, after the person left a room without a fan, no second had a peak that
 * steady; pilot/sim_presence3.py, chosen by pilot/presence3-protocol.md). A fan's line is steady too, so it never
 * starts presence.
 * A machine's line (`machineLineSeconds`) is a spectrum peak that has sat within half a bpm of one rate for
 * minutes: a ceiling fan's blade-pass harmonic aliased into the breathing band. A person's rate wanders breath by
 * breath, so such a rate neither starts nor keeps presence (pilot/sim_presence4.py, chosen by
 * pilot/presence4-protocol.md).
 */
/** The settings of `PresenceLatch`; built from the sensing config by `presenceRulesFromConfig`, where their defaults live. */
export interface PresenceRules {
  /** Moving seconds within `entryWindowSeconds` that count as someone arriving. */
  entryMovingSeconds: number;
  entryWindowSeconds: number;
  /** A present link stays present this long after its last moving second. */
  holdSeconds: number;
  /**
   * Seconds with a breathing rate within the last `breathingWindowSeconds` that start presence with no entry
   * seen (a person already still when sensing starts); 0: breathing never starts presence. A fan's aliased
   * line that comes and goes makes one short episode after another without this.
   */
  breathingStartSeconds: number;
  breathingWindowSeconds: number;
  /** A present link stays present this long after its last second with a faint breathing line (0: never). */
  faintKeepSeconds: number;
  /** Least size of a moving second that counts toward an entry (0: any moving second). */
  entrySize: number;
  /** Least size of a moving second that keeps a present link present and restarts its hold (0: any). */
  keepSize: number;
  /** Breathing rates above this never start presence (null: any rate); they still keep someone present. */
  breathingStartMaxBpm: number | null;
  /**
   * Seconds of spectrum peaks looked back over for a steady line (0: off). A present link stays present
   * (basis `steady`) while at least `steadyKeepShare` × these seconds had a peak within `steadyToleranceBpm` of
   * the median of the peaks read in them. It never starts presence and does not restart the hold.
   */
  steadyKeepSeconds: number;
  steadyKeepShare: number;
  steadyToleranceBpm: number;
  /**
   * Seconds looked back over for a machine's line (0: off). A second whose spectrum peak had at least
   * `machineLineShare` × these seconds of peaks within `machineLineToleranceBpm` of it is a machine's line (a
   * fan's aliased blade rate keeps one exact rate for minutes; breath wanders): its rate neither starts nor keeps
   * presence, and the second keeps nothing by the steady line.
   */
  machineLineSeconds: number;
  machineLineShare: number;
  machineLineToleranceBpm: number;
}

/** The presence rules of a sensing config (the config's defaults are the shipped rules). */
export function presenceRulesFromConfig(config: SensingConfig): PresenceRules {
  return {
    entryMovingSeconds: config.presenceEntryMovingSeconds,
    entryWindowSeconds: config.presenceEntryWindowSeconds,
    holdSeconds: config.presenceHoldSeconds,
    breathingStartSeconds: config.presenceBreathingStartSeconds,
    breathingWindowSeconds: config.presenceBreathingWindowSeconds,
    faintKeepSeconds: config.presenceFaintKeepSeconds,
    entrySize: config.presenceEntryFloorRatio,
    keepSize: config.presenceKeepFloorRatio,
    breathingStartMaxBpm: config.presenceBreathingStartMaxBpm,
    steadyKeepSeconds: config.presenceSteadyKeepSeconds,
    steadyKeepShare: config.presenceSteadyKeepShare,
    steadyToleranceBpm: config.presenceSteadyToleranceBpm,
    machineLineSeconds: config.presenceMachineLineSeconds,
    machineLineShare: config.presenceMachineLineShare,
    machineLineToleranceBpm: config.presenceMachineLineToleranceBpm,
  };
}

/** What a second shows beyond moving / breathing, for the person-sized rules of `PresenceRules`. */
export interface PresenceEvidence {
  /**
   * How large the second's movement is against the link's own quiet level (pair spread over its floor);
   * `Infinity` while the link has not yet learned that level (every moving second then counts).
   */
  size?: number;
  /** The breathing rate the second gave (null or absent: none or unknown). */
  breathingBpm?: number | null;
  /** The breathing spectrum's peak this second, however weak (null or absent: no spectrum was read). */
  peakBpm?: number | null;
  /** The second's level is above the empty room's (a reference's level rule in 'keep' mode): it keeps a present link present past the hold, never starts it. */
  levelKeeps?: boolean;
}

/** Why a second is present, or why not (for the breathing reason of a second that is not). */
export type PresenceBasis = 'entry' | 'moving' | 'breathing' | 'level' | 'hold' | 'steady' | 'faint' | 'none';

/** Per-second presence of one link (see `PresenceRules`). */
export class PresenceLatch {
  #moving: Uint8Array;
  #breathing: Uint8Array;
  #present = false;
  #lastMoving = -Infinity;
  #lastFaint = -Infinity;
  #seconds = 0;
  /** The last spectrum peaks and their seconds, oldest first (ring over the longer of the steady and machine windows). */
  #peaks: Float64Array;
  #peakSeconds: Float64Array;
  #peakCount = 0;
  #peakHead = 0;

  constructor(readonly rules: PresenceRules) {
    this.#moving = new Uint8Array(Math.max(1, rules.entryWindowSeconds));
    this.#breathing = new Uint8Array(Math.max(1, rules.breathingWindowSeconds));
    const seconds = Math.max(0, Math.round(rules.steadyKeepSeconds), Math.round(rules.machineLineSeconds));
    this.#peaks = new Float64Array(seconds);
    this.#peakSeconds = new Float64Array(seconds);
  }

  /** The peaks read in the `seconds` seconds before and including `second`. */
  #peaksWithin(second: number, seconds: number): number[] {
    const length = this.#peaks.length;
    const out: number[] = [];
    for (let i = 0; i < this.#peakCount; i++) {
      const at = (this.#peakHead - 1 - i + length) % length;
      if (this.#peakSeconds[at] > second - seconds) out.push(this.#peaks[at]);
    }
    return out;
  }

  /** Whether the peaks of the last `steadyKeepSeconds` seconds (up to `second`) hold one rate (see `PresenceRules`). */
  #steady(second: number): boolean {
    const seconds = Math.round(this.rules.steadyKeepSeconds);
    const need = this.rules.steadyKeepShare * seconds;
    const inWindow = this.#peaksWithin(second, seconds);
    if (inWindow.length < need) return false;
    inWindow.sort((a, b) => a - b);
    const mid = inWindow.length >> 1;
    const median = inWindow.length % 2 ? inWindow[mid] : (inWindow[mid - 1] + inWindow[mid]) / 2;
    let near = 0;
    for (const bpm of inWindow) if (Math.abs(bpm - median) <= this.rules.steadyToleranceBpm) near++;
    return near >= need;
  }

  /** Whether `peak` is a machine's line: the peaks before it (in the last `machineLineSeconds`) sat on it (see `PresenceRules`). */
  #machine(second: number, peak: number): boolean {
    const seconds = Math.round(this.rules.machineLineSeconds);
    const need = this.rules.machineLineShare * seconds;
    const inWindow = this.#peaksWithin(second, seconds);
    if (inWindow.length < need) return false;
    let near = 0;
    for (const bpm of inWindow) if (Math.abs(bpm - peak) <= this.rules.machineLineToleranceBpm) near++;
    return near >= need;
  }

  /**
   * Add one second's evidence; returns whether the second is present and on what basis. `faint`: the
   * breathing spectrum shows a line too weak for a rate (it only keeps someone already present). `evidence`:
   * the movement's size, the breathing rate and the spectrum's peak, for the person-sized, steady and machine
   * rules (absent: every moving second and every rate counts).
   */
  update(second: number, moving: boolean, breathingSeen: boolean, byLevel: boolean, faint = false, evidence: PresenceEvidence = {}): PresenceBasis {
    const rules = this.rules;
    const window = this.#moving;
    const breaths = this.#breathing;
    const size = evidence.size ?? Infinity;
    const big = moving && size >= rules.entrySize;
    const keep = moving && size >= rules.keepSize;
    const bpm = evidence.breathingBpm ?? null;
    const peak = evidence.peakBpm ?? null;
    // Judged against the peaks before this second, as the pilot (pilot/sim_presence4.py) does.
    const machine = peak !== null && rules.machineLineSeconds > 0 && this.#machine(second, peak);
    const breathing = breathingSeen && !machine;
    const startsBreathing = breathing && (bpm === null || rules.breathingStartMaxBpm === null || bpm <= rules.breathingStartMaxBpm);
    if (peak !== null && this.#peaks.length > 0) {
      this.#peaks[this.#peakHead] = peak;
      this.#peakSeconds[this.#peakHead] = second;
      this.#peakHead = (this.#peakHead + 1) % this.#peaks.length;
      if (this.#peakCount < this.#peaks.length) this.#peakCount++;
    }
    window[this.#seconds % window.length] = big ? 1 : 0;
    breaths[this.#seconds % breaths.length] = startsBreathing ? 1 : 0;
    this.#seconds++;
    if (this.#present && (faint || breathing)) this.#lastFaint = second;
    let recent = 0;
    for (let i = 0; i < Math.min(this.#seconds, window.length); i++) recent += window[i];
    let breathed = 0;
    for (let i = 0; i < Math.min(this.#seconds, breaths.length); i++) breathed += breaths[i];
    const breathingStarts = rules.breathingStartSeconds > 0 && breathed >= rules.breathingStartSeconds;
    let basis: PresenceBasis = 'none';
    if (big && recent >= rules.entryMovingSeconds) basis = 'entry';
    else if (this.#present && keep) basis = 'moving';
    else if (byLevel) basis = 'level';
    else if (breathing && (this.#present || breathingStarts)) basis = 'breathing';
    else if (this.#present && second - this.#lastMoving <= rules.holdSeconds) basis = 'hold';
    else if (this.#present && evidence.levelKeeps) basis = 'level';
    else if (this.#present && rules.steadyKeepSeconds > 0 && !machine && this.#steady(second)) basis = 'steady';
    else if (this.#present && rules.faintKeepSeconds > 0 && second - this.#lastFaint <= rules.faintKeepSeconds) basis = 'faint';
    if (keep || basis === 'entry') this.#lastMoving = second;
    this.#present = basis !== 'none';
    return basis;
  }
}
