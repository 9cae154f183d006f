/**
 * Presence of one link from its seconds of evidence. A person arrives moving: an entry is several moving
 * seconds close together (walking in), while what moves an empty room briefly (a door swing, a cat's short
 * walk, one corrupt packet) gives one to three. Once someone is there, any moving second, a breathing rate
 * or a level above the empty room keeps them there, and a moving second holds presence a while, since a
 * still person's breathing is not always visible. Optionally (`faintKeepSeconds`, off by default) a faint
 * breathing line (a spectrum peak too weak to give a rate) keeps someone already present a while past the
 * hold; it never starts presence. It is off because empty channels show such lines too: on the simulated
 * test rooms it kept most rooms present long after their person left. The pilots behind these rules are
 * pilot/sim_false_presence.mjs and pilot/sim_still_keep.mjs.
 */
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
  faintKeepSeconds?: number;
}

/** Why a second is present, or why not (for the breathing reason of a second that is not). */
export type PresenceBasis = 'entry' | 'moving' | 'breathing' | 'level' | 'hold' | 'faint' | 'none';

/** Per-second presence of one link (see `PresenceRules`). */
export class PresenceLatch {
  #moving: Uint8Array;
  #breathing: Uint8Array;
  #present = false;
  #lastMoving = -Infinity;
  #lastFaint = -Infinity;
  #seconds = 0;

  constructor(readonly rules: PresenceRules) {
    this.#moving = new Uint8Array(Math.max(1, rules.entryWindowSeconds));
    this.#breathing = new Uint8Array(Math.max(1, rules.breathingWindowSeconds));
  }

  /**
   * Add one second's evidence; returns whether the second is present and on what basis. `faint`: the
   * breathing spectrum shows a line too weak for a rate (it only keeps someone already present).
   */
  update(second: number, moving: boolean, breathing: boolean, byLevel: boolean, faint = false): PresenceBasis {
    const window = this.#moving;
    const breaths = this.#breathing;
    window[this.#seconds % window.length] = moving ? 1 : 0;
    breaths[this.#seconds % breaths.length] = breathing ? 1 : 0;
    this.#seconds++;
    if (moving) this.#lastMoving = second;
    if (this.#present && (faint || breathing)) this.#lastFaint = second;
    let recent = 0;
    for (let i = 0; i < Math.min(this.#seconds, window.length); i++) recent += window[i];
    let breathed = 0;
    for (let i = 0; i < Math.min(this.#seconds, breaths.length); i++) breathed += breaths[i];
    const breathingStarts = this.rules.breathingStartSeconds > 0 && breathed >= this.rules.breathingStartSeconds;
    const faintKeep = this.rules.faintKeepSeconds ?? 0;
    let basis: PresenceBasis = 'none';
    if (moving && recent >= this.rules.entryMovingSeconds) basis = 'entry';
    else if (this.#present && moving) basis = 'moving';
    else if (byLevel) basis = 'level';
    else if (breathing && (this.#present || breathingStarts)) basis = 'breathing';
    else if (this.#present && second - this.#lastMoving <= this.rules.holdSeconds) basis = 'hold';
    else if (this.#present && faintKeep > 0 && second - this.#lastFaint <= faintKeep) basis = 'faint';
    this.#present = basis !== 'none';
    return basis;
  }
}
