import { mulberry32 } from '@wiflow/core';

/** A seeded pseudo-random source (mulberry32) so scenes and noise are reproducible. */
export class SeededRandom {
  readonly #draw: () => number;
  #spare: number | null = null;

  constructor(seed: number) {
    this.#draw = mulberry32((Math.floor(seed) ^ 0x9e3779b9) >>> 0);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.#draw();
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return Math.floor(this.uniform(min, max + 1));
  }

  /** Standard normal draw (Box–Muller), scaled by sigma. */
  gaussian(sigma = 1): number {
    if (this.#spare !== null) {
      const s = this.#spare;
      this.#spare = null;
      return s * sigma;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.#spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v) * sigma;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}
