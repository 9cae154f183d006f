/**
 * A link's own quiet floor of its motion inputs: per input, a low quantile of its values over the link's last
 * `seconds` seconds (the second itself included). `LinkSensor` keeps two: the pair spread's (presence, the
 * simulated radios' motion) and, for the ESP32, the first four motion inputs'. A slow ESP32 link reads movement as its inputs minus this floor
 * (`SensingModels.motionFloor`, docs/sensing.md "Movement at slower packet rates"): the absolute level of a link's
 * change differs between setups, its own recent quiet level does not.
 */
export class MotionFloor {
  readonly #rows: Float64Array[];
  #count = 0;
  #next = 0;
  readonly #column: Float64Array;

  constructor(readonly width: number, readonly seconds: number) {
    this.#rows = Array.from({ length: seconds }, () => new Float64Array(width));
    this.#column = new Float64Array(seconds);
  }

  /** Seconds held (at most `seconds`). */
  get size(): number {
    return this.#count;
  }

  /** Add one second's inputs (the first `width` are kept). */
  push(inputs: ArrayLike<number>): void {
    const row = this.#rows[this.#next];
    for (let j = 0; j < this.width; j++) row[j] = inputs[j];
    this.#next = (this.#next + 1) % this.seconds;
    this.#count = Math.min(this.seconds, this.#count + 1);
  }

  /** Each input's `quantile` over the seconds held (linear between order statistics, as numpy's default); NaN when empty. */
  floor(quantile: number): number[] {
    return this.#quantile(quantile, true);
  }

  /** Each input's order statistic at ⌊quantile · (n − 1)⌋ over the seconds held (no interpolation); NaN when empty. */
  orderStatistic(quantile: number): number[] {
    return this.#quantile(quantile, false);
  }

  #quantile(quantile: number, interpolate: boolean): number[] {
    const n = this.#count;
    const out = new Array<number>(this.width).fill(Number.NaN);
    if (!n) return out;
    const column = this.#column.subarray(0, n);
    const at = quantile * (n - 1);
    const lo = Math.floor(at);
    const hi = Math.min(n - 1, lo + 1);
    for (let j = 0; j < this.width; j++) {
      for (let i = 0; i < n; i++) column[i] = this.#rows[i][j];
      column.sort();
      out[j] = interpolate ? column[lo] + (at - lo) * (column[hi] - column[lo]) : column[lo];
    }
    return out;
  }
}

/** Each of `inputs`' first `floor.length` values minus its floor. */
export function belowFloor(inputs: ArrayLike<number>, floor: number[]): number[] {
  return floor.map((f, j) => inputs[j] - f);
}
