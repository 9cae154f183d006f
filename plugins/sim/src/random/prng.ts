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

  /**
   * Normal draw with the given mean and standard deviation, by the ziggurat method
   * (Marsaglia & Tsang 2000, 128 layers): one 32-bit draw and a table lookup in ~98 % of
   * calls, which matters because the simulator draws two per CSI value for noise.
   */
  normal(mean = 0, sigma = 1): number {
    const hz = this.nextUint32() | 0;
    const iz = hz & 127;
    if (Math.abs(hz) < ZIGGURAT.kn[iz]) return mean + sigma * hz * ZIGGURAT.wn[iz];
    return mean + sigma * this.#normalTail(hz, iz);
  }

  #normalTail(hz: number, iz: number): number {
    const r = ZIGGURAT_R;
    for (;;) {
      const x = hz * ZIGGURAT.wn[iz];
      if (iz === 0) {
        let xt: number;
        let y: number;
        do {
          xt = -Math.log(1 - this.next()) / r;
          y = -Math.log(1 - this.next());
        } while (y + y < xt * xt);
        return hz > 0 ? r + xt : -r - xt;
      }
      if (ZIGGURAT.fn[iz] + this.next() * (ZIGGURAT.fn[iz - 1] - ZIGGURAT.fn[iz]) < Math.exp(-0.5 * x * x)) return x;
      hz = this.nextUint32() | 0;
      iz = hz & 127;
      if (Math.abs(hz) < ZIGGURAT.kn[iz]) return hz * ZIGGURAT.wn[iz];
    }
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

const ZIGGURAT_R = 3.442619855899;

/** Ziggurat tables for the standard normal (Marsaglia & Tsang's zigset with 128 layers). */
const ZIGGURAT = (() => {
  const kn = new Float64Array(128);
  const wn = new Float64Array(128);
  const fn = new Float64Array(128);
  const m1 = 2147483648;
  const vn = 9.91256303526217e-3;
  let dn = ZIGGURAT_R;
  let tn = dn;
  const q = vn / Math.exp(-0.5 * dn * dn);
  kn[0] = (dn / q) * m1;
  kn[1] = 0;
  wn[0] = q / m1;
  wn[127] = dn / m1;
  fn[0] = 1;
  fn[127] = Math.exp(-0.5 * dn * dn);
  for (let i = 126; i >= 1; i--) {
    dn = Math.sqrt(-2 * Math.log(vn / dn + Math.exp(-0.5 * dn * dn)));
    kn[i + 1] = (dn / tn) * m1;
    tn = dn;
    fn[i] = Math.exp(-0.5 * dn * dn);
    wn[i] = dn / m1;
  }
  return { kn, wn, fn };
})();
