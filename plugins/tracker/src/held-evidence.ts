/**
 * Held evidence (`upstream_min_evidence`): an id is shown only once the mean evidence of its
 * estimates over the last `windowS` seconds (its life so far while younger) reaches `minEvidence`;
 * once shown, shown until it ends. A lived-in room's fan, cat or door makes the locator confirm
 * tracks of little explained change; a person explains more, within a second or two
 * (plugins/pose-tfjs/models/wiflow-locate-v2/confirm21-protocol.md).
 */
export class HeldEvidence {
  /** [time s, evidence] of the estimates in the window. */
  readonly #recent: [number, number][] = [];
  #shown = false;

  constructor(readonly minEvidence: number, readonly windowS: number) {}

  /** Whether the id is shown (it stays so once it was). */
  get shown(): boolean {
    return this.#shown;
  }

  /** Add one estimate of the id (evidence 0 where it had none); returns whether the id is shown from this estimate on. */
  add(timestampMs: number, evidence: number): boolean {
    if (this.#shown) return true;
    const now = timestampMs / 1000;
    this.#recent.push([now, evidence]);
    while (this.#recent[0][0] <= now - this.windowS) this.#recent.shift();
    const mean = this.#recent.reduce((sum, [, e]) => sum + e, 0) / this.#recent.length;
    this.#shown = mean >= this.minEvidence;
    return this.#shown;
  }
}
