/**
 * A fixed-size log-linear histogram of durations in milliseconds (about 4 % resolution from
 * 1 µs to 100 s). Recording is a few arithmetic operations, cheap enough for every message.
 */
export class LatencyHistogram {
  static readonly #BUCKETS_PER_OCTAVE = 16;
  static readonly #MIN_MS = 0.001;
  readonly #counts = new Float64Array(28 * LatencyHistogram.#BUCKETS_PER_OCTAVE);
  #total = 0;
  #max = 0;
  #sum = 0;

  /** Record one duration in milliseconds. */
  record(ms: number): void {
    const ratio = ms / LatencyHistogram.#MIN_MS;
    let index = ratio <= 1 ? 0 : Math.floor(Math.log2(ratio) * LatencyHistogram.#BUCKETS_PER_OCTAVE) + 1;
    if (index >= this.#counts.length) index = this.#counts.length - 1;
    this.#counts[index]++;
    this.#total++;
    this.#sum += ms;
    if (ms > this.#max) this.#max = ms;
  }

  get count(): number {
    return this.#total;
  }

  get mean(): number {
    return this.#total === 0 ? 0 : this.#sum / this.#total;
  }

  get max(): number {
    return this.#max;
  }

  /** The duration below which a fraction `q` (0..1) of recordings fall (upper bucket edge). */
  percentile(q: number): number {
    if (this.#total === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      seen += this.#counts[i];
      if (seen >= rank) {
        const upper = LatencyHistogram.#MIN_MS * 2 ** (i / LatencyHistogram.#BUCKETS_PER_OCTAVE);
        return Math.min(upper, this.#max);
      }
    }
    return this.#max;
  }

  /** The non-empty buckets: upper edge (ms) and count, in increasing order. */
  buckets(): { upperMs: number; count: number }[] {
    const out: { upperMs: number; count: number }[] = [];
    for (let i = 0; i < this.#counts.length; i++) {
      if (this.#counts[i] > 0) out.push({ upperMs: LatencyHistogram.#MIN_MS * 2 ** (i / LatencyHistogram.#BUCKETS_PER_OCTAVE), count: this.#counts[i] });
    }
    return out;
  }

  /** Forget everything recorded. */
  reset(): void {
    this.#counts.fill(0);
    this.#total = 0;
    this.#max = 0;
    this.#sum = 0;
  }
}
