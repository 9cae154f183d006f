/**
 * One complex gain per receive chain, held static over a long window, for a link whose packets
 * are aligned with one common gain. A re-plugged receiver (or a per-chain AGC step) turns each
 * of its chains by a fixed phase and gain since the reference; the common gain cannot absorb
 * that, and the difference reads as a body (drift2-protocol.md). A gain fitted on every packet
 * would also eat the body's own change (0.13 m of floor error on clean rooms, drift-protocol.md
 * candidate A); held over `windowS` seconds it takes only what stays: a moving body's part of
 * it averages out.
 *
 * Each packet's gain of chain r is g_r = Σ conj(h0)·a / Σ |h0|² over the chain's values (a: the
 * packet aligned to the reference); the gain applied is the mean of g_r over the packets of the
 * last `windowS` seconds (all packets so far until the window is full: a re-plug is there from
 * the first packet). With `minDeviation` > 0 the gains are applied only while some chain's static
 * gain is more than that far from 1 (|ḡ_r − 1|): a re-plug's new phases are drawn anywhere on the
 * circle, a body moves a chain's gain by a few hundredths, so clean rooms are left as they were.
 */
export class StaticChainGain {
  readonly #chains: number;
  /** Σ|h0|² per chain. */
  readonly #power: Float64Array;
  readonly #recent: { time: number; re: Float64Array; im: Float64Array }[] = [];
  readonly #sumRe: Float64Array;
  readonly #sumIm: Float64Array;

  constructor(readonly h0: { re: ArrayLike<number>; im: ArrayLike<number> }, readonly nsc: number, nrx: number, readonly windowS: number, readonly minDeviation = 0) {
    this.#chains = Math.max(1, nrx);
    this.#power = new Float64Array(this.#chains);
    this.#sumRe = new Float64Array(this.#chains);
    this.#sumIm = new Float64Array(this.#chains);
    for (let j = 0; j < h0.re.length; j++) this.#power[this.#chain(j)] += h0.re[j] ** 2 + h0.im[j] ** 2;
  }

  #chain(j: number): number {
    return Math.floor(j / this.nsc) % this.#chains;
  }

  /**
   * Add one aligned packet (time in ms) and divide it, in place, by each chain's static gain.
   * A packet from before the last one (a restarted stream) starts the window again.
   */
  apply(aligned: { re: Float64Array; im: Float64Array }, time: number): void {
    const n = aligned.re.length;
    const gr = new Float64Array(this.#chains), gi = new Float64Array(this.#chains);
    for (let j = 0; j < n; j++) {
      const c = this.#chain(j), hr = this.h0.re[j], hi = this.h0.im[j];
      gr[c] += hr * aligned.re[j] + hi * aligned.im[j];
      gi[c] += hr * aligned.im[j] - hi * aligned.re[j];
    }
    for (let c = 0; c < this.#chains; c++) { gr[c] /= this.#power[c] || 1; gi[c] /= this.#power[c] || 1; }
    const last = this.#recent[this.#recent.length - 1];
    if (last && time < last.time) { this.#recent.length = 0; this.#sumRe.fill(0); this.#sumIm.fill(0); }
    this.#recent.push({ time, re: gr, im: gi });
    for (let c = 0; c < this.#chains; c++) { this.#sumRe[c] += gr[c]; this.#sumIm[c] += gi[c]; }
    while (this.#recent.length > 1 && time - this.#recent[0].time > this.windowS * 1000) {
      const old = this.#recent.shift()!;
      for (let c = 0; c < this.#chains; c++) { this.#sumRe[c] -= old.re[c]; this.#sumIm[c] -= old.im[c]; }
    }
    const count = this.#recent.length;
    let deviation = 0;
    for (let c = 0; c < this.#chains; c++) deviation = Math.max(deviation, Math.hypot(this.#sumRe[c] / count - 1, this.#sumIm[c] / count));
    if (deviation <= this.minDeviation) return;
    const invRe = new Float64Array(this.#chains), invIm = new Float64Array(this.#chains);
    for (let c = 0; c < this.#chains; c++) {
      const mr = this.#sumRe[c] / count, mi = this.#sumIm[c] / count, m2 = mr * mr + mi * mi;
      // A chain without a reference or a vanished gain is left as it is.
      if (!(m2 > 1e-12)) { invRe[c] = 1; invIm[c] = 0; continue; }
      invRe[c] = mr / m2; invIm[c] = -mi / m2;
    }
    for (let j = 0; j < n; j++) {
      const c = this.#chain(j), r = aligned.re[j], i = aligned.im[j];
      aligned.re[j] = r * invRe[c] - i * invIm[c];
      aligned.im[j] = r * invIm[c] + i * invRe[c];
    }
  }

  /** The static gain of each chain now (dB and degrees), for diagnostics; null before any packet. */
  gains(): { db: number; deg: number }[] | null {
    const count = this.#recent.length;
    if (!count) return null;
    return Array.from(this.#sumRe, (sr, c) => {
      const mr = sr / count, mi = this.#sumIm[c] / count;
      return { db: 10 * Math.log10(mr * mr + mi * mi), deg: (Math.atan2(mi, mr) * 180) / Math.PI };
    });
  }
}
