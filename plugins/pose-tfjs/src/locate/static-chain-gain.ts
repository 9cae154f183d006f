import { alignPacket, type ComplexPacket } from './reference.js';

/**
 * One complex gain per receive chain, held static over a long window, for a link whose packets
 * are aligned with one common gain. A re-plugged receiver (or a per-chain AGC step) turns each
 * of its chains by a fixed phase and gain since the reference; the common gain cannot absorb
 * that (and it biases the timing-slope fit too), and the difference reads as a body
 * (drift2-protocol.md). A gain fitted on every packet would also eat the body's own change
 * (0.13 m of floor error on clean rooms, drift-protocol.md candidate A); held over `windowS`
 * seconds it takes only what stays: a moving body's part of it averages out.
 *
 * Each packet is aligned with one gain per chain (its slope then fits whatever the chains did);
 * its chain gains divided by their power-weighted mean (the common part, which the common gain
 * takes anyway) are averaged over the packets of the last `windowS` seconds (all packets so far
 * until the window is full: a re-plug is there from the first packet). The packet is then
 * scaled back to one common gain times the held chain gains. With `minDeviation` > 0 the held
 * gains are used only while some chain's is more than that far from 1: a re-plug's new phases
 * are drawn anywhere on the circle, a body moves a chain's gain by a few hundredths, so clean
 * rooms are aligned exactly as without it.
 */
export class StaticChainGain {
  readonly #chains: number;
  /** Σ|h0|² per chain. */
  readonly #power: Float64Array;
  readonly #totalPower: number;
  readonly #recent: { time: number; re: Float64Array; im: Float64Array }[] = [];
  readonly #sumRe: Float64Array;
  readonly #sumIm: Float64Array;

  constructor(readonly h0: ComplexPacket, readonly subcarriers: ArrayLike<number>, readonly nrx: number, readonly windowS: number, readonly minDeviation = 0) {
    this.#chains = Math.max(1, nrx);
    this.#power = new Float64Array(this.#chains);
    this.#sumRe = new Float64Array(this.#chains);
    this.#sumIm = new Float64Array(this.#chains);
    for (let j = 0; j < h0.re.length; j++) this.#power[this.#chain(j)] += h0.re[j] ** 2 + h0.im[j] ** 2;
    this.#totalPower = this.#power.reduce((a, b) => a + b, 0);
  }

  #chain(j: number): number {
    return Math.floor(j / this.subcarriers.length) % this.#chains;
  }

  /**
   * Align one packet (time in ms) to the reference with the held chain gains; null while they
   * are inside the dead band (or with one chain): then align it as the reference chose. A packet
   * from before the last one (a restarted stream) starts the window again.
   */
  align(csi: ComplexPacket, time: number): { re: Float64Array; im: Float64Array } | null {
    if (this.#chains < 2) return null;
    const packet = alignPacket(csi, this.h0, this.subcarriers, { nrx: this.nrx, gain: 'per-rx-chain' });
    const { re: cr, im: ci } = packet.gains;
    // The common part: what one gain over the whole packet would have been.
    let mr = 0, mi = 0;
    for (let c = 0; c < this.#chains; c++) { mr += (this.#power[c] * cr[c]) / this.#totalPower; mi += (this.#power[c] * ci[c]) / this.#totalPower; }
    const m2 = mr * mr + mi * mi;
    if (!(m2 > 0)) return null;
    const gr = new Float64Array(this.#chains), gi = new Float64Array(this.#chains);
    for (let c = 0; c < this.#chains; c++) { gr[c] = (cr[c] * mr + ci[c] * mi) / m2; gi[c] = (ci[c] * mr - cr[c] * mi) / m2; }
    this.#remember(gr, gi, time);
    const held = this.gains();
    if (!held) return null;
    // Undo the packet's own chain gain c_r, apply the common one m times the held chain gain ḡ_r.
    const fr = new Float64Array(this.#chains), fi = new Float64Array(this.#chains);
    for (let c = 0; c < this.#chains; c++) {
      const dr = mr * held.re[c] - mi * held.im[c], di = mr * held.im[c] + mi * held.re[c], d2 = dr * dr + di * di;
      fr[c] = (cr[c] * dr + ci[c] * di) / d2; fi[c] = (ci[c] * dr - cr[c] * di) / d2;
    }
    for (let j = 0; j < packet.re.length; j++) {
      const c = this.#chain(j), r = packet.re[j], i = packet.im[j];
      packet.re[j] = r * fr[c] - i * fi[c];
      packet.im[j] = r * fi[c] + i * fr[c];
    }
    return { re: packet.re, im: packet.im };
  }

  #remember(gr: Float64Array, gi: Float64Array, time: number): void {
    const last = this.#recent[this.#recent.length - 1];
    if (last && time < last.time) { this.#recent.length = 0; this.#sumRe.fill(0); this.#sumIm.fill(0); }
    this.#recent.push({ time, re: gr, im: gi });
    for (let c = 0; c < this.#chains; c++) { this.#sumRe[c] += gr[c]; this.#sumIm[c] += gi[c]; }
    while (this.#recent.length > 1 && time - this.#recent[0].time > this.windowS * 1000) {
      const old = this.#recent.shift()!;
      for (let c = 0; c < this.#chains; c++) { this.#sumRe[c] -= old.re[c]; this.#sumIm[c] -= old.im[c]; }
    }
  }

  /** The held gain of each chain relative to the common one; null before any packet or inside the dead band. */
  gains(): { re: Float64Array; im: Float64Array } | null {
    const count = this.#recent.length;
    if (!count) return null;
    const re = this.#sumRe.map((v) => v / count), im = this.#sumIm.map((v) => v / count);
    let deviation = 0;
    for (let c = 0; c < this.#chains; c++) deviation = Math.max(deviation, Math.hypot(re[c] - 1, im[c]));
    return deviation > this.minDeviation ? { re, im } : null;
  }
}
