/**
 * Seeded pseudo-random numbers. The simulator never calls Math.random: every draw comes
 * from a `Prng`, so a scenario, a randomised room or a dataset is the same for the same seed.
 * Generator: sfc32 (small fast counter, 128-bit state), seeded through splitmix32.
 */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  #spare: number | null = null;

  /** Seed with any finite number or string (strings are hashed). */
  constructor(seed: number | string) {
    let s = typeof seed === 'string' ? hashString(seed) : Math.floor(Number(seed)) >>> 0;
    if (typeof seed === 'number' && !Number.isFinite(seed)) throw new RangeError(`seed must be finite, got ${seed}`);
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer uniform in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Standard normal draw (Marsaglia polar method), times `sigma`, plus `mean`. */
  normal(mean = 0, sigma = 1): number {
    if (this.#spare !== null) {
      const v = this.#spare;
      this.#spare = null;
      return mean + sigma * v;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = this.next() * 2 - 1;
      v = this.next() * 2 - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.#spare = v * f;
    return mean + sigma * u * f;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** An independent generator derived from this one and a label (streams that do not disturb each other). */
  fork(label: string): Prng {
    return new Prng(`${this.nextUint32()}:${label}`);
  }
}

/** FNV-1a 32-bit hash of a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
