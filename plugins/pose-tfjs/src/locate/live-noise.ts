/**
 * A link's noise floor measured on the recording itself, for when the empty-room reference
 * was captured with another noise floor (another AGC state, SNR or interference: under the
 * simulator's realism v2 the recording's noise is 0.2–2.5 times the reference's, and the
 * count head reads that as people or as nobody; pilot-drift.json).
 *
 * Noise is white over subcarriers; what a body changes is smooth over them (its paths are
 * tens of nanoseconds long, a few hundredths of a radian per subcarrier). So the second
 * difference over three evenly spaced subcarriers, |d(k−1) − 2d(k) + d(k+1)|² / 6, measures
 * the noise power per value and leaves a body's change nearly out. One packet's estimate is
 * noisy and a burst of motion can bias it, so the floor is the median over the last `window`
 * packets.
 */
export class LiveNoiseFloor {
  readonly #recent: number[] = [];
  /** Triples (k−1, k, k+1) of evenly spaced subcarriers, as value offsets within one antenna pair. */
  readonly #triples: number[] = [];

  constructor(subcarriers: ArrayLike<number>, readonly streams: number, readonly window = 200, readonly minPackets = 20) {
    for (let k = 1; k + 1 < subcarriers.length; k++) {
      const a = subcarriers[k] - subcarriers[k - 1], b = subcarriers[k + 1] - subcarriers[k];
      if (a === b && a > 0) this.#triples.push(k);
    }
    this.nsc = subcarriers.length;
  }

  readonly nsc: number;

  /** Whether the subcarrier grid has any evenly spaced triple (otherwise nothing is measured). */
  get measurable(): boolean {
    return this.#triples.length > 0;
  }

  /** Add one packet's change against the reference (before any per-value rotation), row-major [stream][subcarrier]. */
  push(re: ArrayLike<number>, im: ArrayLike<number>): void {
    if (!this.measurable) return;
    let sum = 0, count = 0;
    for (let s = 0; s < this.streams; s++) {
      const o = s * this.nsc;
      for (const k of this.#triples) {
        const r = re[o + k - 1] - 2 * re[o + k] + re[o + k + 1], i = im[o + k - 1] - 2 * im[o + k] + im[o + k + 1];
        sum += r * r + i * i;
        count++;
      }
    }
    this.#recent.push(sum / count / 6);
    if (this.#recent.length > this.window) this.#recent.shift();
  }

  /** Noise power per value; null until `minPackets` packets came. */
  power(): number | null {
    if (this.#recent.length < this.minPackets) return null;
    const sorted = [...this.#recent].sort((a, b) => a - b);
    const m = sorted.length >> 1;
    return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  }
}
