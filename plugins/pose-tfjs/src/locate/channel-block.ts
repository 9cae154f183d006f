import { alignPacket, type AlignOptions, type ComplexPacket } from './reference.js';

/**
 * What one block of packets of a link (about a second) says about the room, measured on the
 * packets aligned to an anchor channel (timing slope and common gain removed, as the locator
 * does):
 * - `dynamicPower`: mean power per value of the packets around the block's mean: the noise
 *   floor when nothing moves, more when something does;
 * - `coherence`: how smooth that dynamic part is over adjacent subcarriers (0 for white noise,
 *   near 1 for a moving body, whose path has one delay). Noise and motion can have the same
 *   power; only motion is smooth over frequency, so this tells them apart whatever the SNR;
 * - `mean`: the block's mean channel, kept to compare with a reference.
 */
export interface ChannelBlock {
  packets: number;
  dynamicPower: number;
  coherence: number;
  mean: { re: Float64Array; im: Float64Array };
  /** Mean per-packet power of the raw packets in dB (before the gain is removed): AGC steps show here. */
  powerDb: number[];
  /** Time of the block's last packet (ms). */
  time: number;
}

/**
 * Collects aligned packets of one link into `ChannelBlock`s of `blockMs` of packet time (at
 * least `minPackets`). With `maxPacketsPerBlock`, only every n-th packet is aligned (n from the
 * last block's count): alignment is the costly part, and a block's statistics are per-packet
 * averages that a sample measures as well.
 */
export class ChannelBlockMeter {
  #re: Float64Array[] = [];
  #im: Float64Array[] = [];
  #powerDb: number[] = [];
  #start: number | null = null;
  #last = 0;
  /** Packets seen in the current block, taken or not, and every how many one is taken. */
  #seen = 0;
  #stride = 1;

  constructor(
    private readonly anchor: ComplexPacket,
    private readonly subcarriers: ArrayLike<number>,
    private readonly blockMs = 1000,
    private readonly minPackets = 5,
    private readonly maxPacketsPerBlock = Infinity,
    /** How packets are aligned to the anchor (the reference's gain model). */
    private readonly alignment: AlignOptions = {},
    /** Another alignment tried first (a `StaticChainGain`'s); where it answers null, `alignment` is used. */
    private readonly align: ((csi: ComplexPacket, time: number) => { re: Float64Array; im: Float64Array } | null) | null = null,
  ) {}

  /** Add a packet; returns the block it closed: the packets of the `blockMs` before it (a block closes when the first packet past its span arrives). */
  push(csi: ComplexPacket, time: number): ChannelBlock | null {
    let closed: ChannelBlock | null = null;
    if (this.#start !== null && time - this.#start >= this.blockMs) {
      if (this.#re.length >= this.minPackets) closed = measureBlock(this.#re, this.#im, this.subcarriers.length, this.#powerDb, this.#last);
      this.#stride = Math.max(1, Math.ceil(this.#seen / this.maxPacketsPerBlock));
      this.#seen = 0;
      this.#start = null;
      this.#re = [];
      this.#im = [];
      this.#powerDb = [];
    }
    this.#start ??= time;
    this.#last = time;
    if (this.#seen++ % this.#stride !== 0) return closed;
    let power = 0;
    for (let j = 0; j < csi.re.length; j++) power += csi.re[j] ** 2 + csi.im[j] ** 2;
    this.#powerDb.push(10 * Math.log10(Math.max(power / csi.re.length, Number.MIN_VALUE)));
    const aligned = this.align?.(csi, time) ?? alignPacket(csi, this.anchor, this.subcarriers, this.alignment);
    this.#re.push(aligned.re);
    this.#im.push(aligned.im);
    return closed;
  }
}

/** The statistics of one block of aligned packets (see `ChannelBlock`). */
export function measureBlock(re: Float64Array[], im: Float64Array[], nsc: number, powerDb: number[], time: number): ChannelBlock {
  const count = re.length, n = re[0].length;
  const meanRe = new Float64Array(n), meanIm = new Float64Array(n);
  for (let t = 0; t < count; t++) for (let j = 0; j < n; j++) { meanRe[j] += re[t][j]; meanIm[j] += im[t][j]; }
  for (let j = 0; j < n; j++) { meanRe[j] /= count; meanIm[j] /= count; }
  let power = 0, smooth = 0;
  for (let t = 0; t < count; t++) {
    let cr = 0, ci = 0;
    for (let j = 0; j < n; j++) {
      const dr = re[t][j] - meanRe[j], di = im[t][j] - meanIm[j];
      power += dr * dr + di * di;
      if ((j + 1) % nsc === 0) continue;
      // D_k · conj(D_{k+1}) summed over the packet: adds up in phase only when D is smooth over k.
      const er = re[t][j + 1] - meanRe[j + 1], ei = im[t][j + 1] - meanIm[j + 1];
      cr += dr * er + di * ei;
      ci += di * er - dr * ei;
    }
    smooth += Math.hypot(cr, ci);
  }
  return {
    packets: count,
    dynamicPower: power / (count * n),
    coherence: power > 0 ? smooth / power : 0,
    mean: { re: meanRe, im: meanIm },
    powerDb: powerDb.slice(),
    time,
  };
}

/** Mean power per value of `a − b` (complex vectors of one length). */
export function changePower(a: { re: ArrayLike<number>; im: ArrayLike<number> }, b: { re: ArrayLike<number>; im: ArrayLike<number> }): number {
  let sum = 0;
  for (let j = 0; j < a.re.length; j++) sum += (a.re[j] - b.re[j]) ** 2 + (a.im[j] - b.im[j]) ** 2;
  return sum / a.re.length;
}
