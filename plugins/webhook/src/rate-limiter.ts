/**
 * A sliding-window limit: at most `limit` events in any `windowMs`. It keeps the times of
 * the last `limit` events in a ring, so a check is O(1) and memory is fixed.
 */
export class SlidingWindowLimiter {
  readonly #times: Float64Array;
  #next = 0;
  #count = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    this.#times = new Float64Array(limit);
  }

  /** Take one slot at `now` if the window has room; false when it is full. */
  tryTake(now: number): boolean {
    if (this.#count === this.limit && now - this.#times[this.#next] < this.windowMs) return false;
    this.#times[this.#next] = now;
    this.#next = (this.#next + 1) % this.limit;
    if (this.#count < this.limit) this.#count++;
    return true;
  }

  /** When the next slot frees (ms), or `now` when one is free. */
  nextFreeAt(now: number): number {
    if (this.#count < this.limit) return now;
    return Math.max(now, this.#times[this.#next] + this.windowMs);
  }

  /** Slots left at `now`. */
  remaining(now: number): number {
    if (this.#count < this.limit) return this.limit - this.#count;
    let used = 0;
    for (let i = 0; i < this.limit; i++) if (now - this.#times[i] < this.windowMs) used++;
    return this.limit - used;
  }
}
