import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { CsiFrame } from '@wiflow/core';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';

/** Complex values of one packet of a link, row-major [tx][rx][subcarrier]. */
export interface ComplexPacket {
  re: ArrayLike<number>;
  im: ArrayLike<number>;
}

/** A packet aligned to a reference: values and the timing slope that was removed (rad per subcarrier index). */
export interface AlignedPacket {
  re: Float64Array;
  im: Float64Array;
  slope: number;
  /**
   * With `nrx` > 1: the least-squares residual after one common gain over the residual after
   * one gain per receive chain (1 when the chains keep their phases, large when a chain's
   * phase jumped since the reference); null without `nrx`.
   */
  chainMismatch: number | null;
  /** The complex gain each receive chain was divided by (all equal with a common gain); one entry without `nrx`. */
  gains: { re: Float64Array; im: Float64Array };
}

/**
 * How the complex gain of a packet is fitted: one for the whole packet (radios whose receive
 * chains share one phase from packet to packet), or one per receive chain (the Intel 5300 at
 * 40 MHz: each chain's phase jumps by multiples of about 90° from packet to packet, measured
 * on real captures, so only the chain's own static channel can set it).
 */
export const GainModelSchema = z.enum(['common', 'per-rx-chain']);

/** How the complex gain of a packet is fitted. */
export type GainModel = z.output<typeof GainModelSchema>;

/** Options of `alignPacket`. */
export interface AlignOptions {
  /** Receive chains per transmit stream (row-major [tx][rx][subcarrier]); needed for `per-rx-chain` and `chainMismatch`. */
  nrx?: number;
  /** Default 'common'. */
  gain?: GainModel;
}

/** Widest subcarrier step used for the timing-slope estimate (wider steps alias the slope of ordinary timing offsets). */
const MAX_PAIR_GAP = 8;

/**
 * Align one packet to a reference of the same link: remove the per-packet timing offset (a
 * phase slope over subcarriers) and the complex gain (random phase, AGC), shared by every
 * antenna pair of the packet (`gain: 'common'`) or by the pairs of one receive chain
 * (`'per-rx-chain'`). The slope starts from the adjacent-subcarrier phase ratios and is
 * refined by maximising Σ_groups |Σ conj(H0)·H·e^{jρm}|² (the least-squares fit of
 * H ≈ c·e^{−jρm}·H0), then the gains c are fitted by least squares. What is left after
 * subtracting the reference is the change: the people.
 */
export function alignPacket(H: ComplexPacket, H0: ComplexPacket, subcarriers: ArrayLike<number>, options: AlignOptions = {}): AlignedPacket {
  const nsc = subcarriers.length;
  const n = H0.re.length;
  const nrx = options.nrx ?? 1;
  const perChain = options.gain === 'per-rx-chain' && nrx > 1;
  let sr = 0, si = 0;
  for (let s = 0; s < n / nsc; s++) {
    for (let k = 0; k + 1 < nsc; k++) {
      // Grouped grids step by 2 (Intel 5300 HT20), 4 (Intel 5300 HT40, the DC gap of HT40/VHT80)
      // or more; a pair `gap` apart turns by gap·ρ, so its angle over gap is ρ (unambiguous
      // while |gap·ρ| < π: timing offsets under 400 ns at gap 4). Null subcarriers reported as
      // zeros add nothing. Both values of a pair come from one antenna pair, so a chain's own
      // phase cancels here.
      const gap = subcarriers[k + 1] - subcarriers[k];
      if (!(gap >= 1 && gap <= MAX_PAIR_GAP)) continue;
      const a = s * nsc + k, b = a + 1;
      const r1r = H.re[b] * H0.re[b] + H.im[b] * H0.im[b], r1i = H.im[b] * H0.re[b] - H.re[b] * H0.im[b];
      const r0r = H.re[a] * H0.re[a] + H.im[a] * H0.im[a], r0i = H.im[a] * H0.re[a] - H.re[a] * H0.im[a];
      let pr = r1r * r0r + r1i * r0i, pi = r1i * r0r - r1r * r0i;
      if (gap !== 1) {
        const m = Math.hypot(pr, pi), angle = Math.atan2(pi, pr) / gap;
        pr = m * Math.cos(angle); pi = m * Math.sin(angle);
      }
      sr += pr; si += pi;
    }
  }
  let rho = Math.atan2(si, sr);
  // Least-squares refinement (golden section around the ratio estimate).
  const zr = new Float64Array(n), zi = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    zr[j] = H0.re[j] * H.re[j] + H0.im[j] * H.im[j];
    zi[j] = H0.re[j] * H.im[j] - H0.im[j] * H.re[j];
  }
  // Gain group of value j: 0 for a common gain, else its receive chain.
  const groups = perChain ? nrx : 1;
  const groupOf = (j: number) => (perChain ? Math.floor(j / nsc) % nrx : 0);
  const cos = new Float64Array(nsc), sin = new Float64Array(nsc);
  const ga = new Float64Array(groups), gb = new Float64Array(groups);
  const fit = (r: number) => {
    for (let k = 0; k < nsc; k++) { cos[k] = Math.cos(r * subcarriers[k]); sin[k] = Math.sin(r * subcarriers[k]); }
    ga.fill(0); gb.fill(0);
    for (let j = 0; j < n; j++) {
      const k = j % nsc, g = groupOf(j);
      ga[g] += zr[j] * cos[k] + zi[j] * sin[k];
      gb[g] += zi[j] * cos[k] - zr[j] * sin[k];
    }
    let total = 0;
    for (let g = 0; g < groups; g++) total += ga[g] * ga[g] + gb[g] * gb[g];
    return total;
  };
  const golden = (Math.sqrt(5) - 1) / 2;
  let lo = rho - 0.03, hi = rho + 0.03;
  let x1 = hi - golden * (hi - lo), x2 = lo + golden * (hi - lo), f1 = fit(x1), f2 = fit(x2);
  for (let it = 0; it < 30; it++) {
    if (f1 > f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - golden * (hi - lo); f1 = fit(x1); }
    else { lo = x1; x1 = x2; f1 = f2; x2 = lo + golden * (hi - lo); f2 = fit(x2); }
  }
  rho = (lo + hi) / 2;
  const re = new Float64Array(n), im = new Float64Array(n);
  for (let k = 0; k < nsc; k++) { cos[k] = Math.cos(-rho * subcarriers[k]); sin[k] = Math.sin(-rho * subcarriers[k]); }
  for (let j = 0; j < n; j++) {
    const k = j % nsc;
    re[j] = H.re[j] * cos[k] - H.im[j] * sin[k];
    im[j] = H.re[j] * sin[k] + H.im[j] * cos[k];
  }
  // Per receive chain: Σ conj(H0)·H, Σ|H0|², Σ|H|² (the gains and residuals of both models from one pass).
  const chains = Math.max(1, nrx);
  const cr = new Float64Array(chains), ci = new Float64Array(chains), cd = new Float64Array(chains), cp = new Float64Array(chains);
  // The whole packet's sums too, in value order (the common gain exactly as before chains were kept).
  let nr = 0, ni = 0, d = 0;
  for (let j = 0; j < n; j++) {
    const c = Math.floor(j / nsc) % chains;
    const xr = re[j] * H0.re[j] + im[j] * H0.im[j], xi = im[j] * H0.re[j] - re[j] * H0.im[j], p0 = H0.re[j] * H0.re[j] + H0.im[j] * H0.im[j];
    cr[c] += xr; ci[c] += xi; cd[c] += p0;
    nr += xr; ni += xi; d += p0;
    cp[c] += re[j] * re[j] + im[j] * im[j];
  }
  let chainMismatch: number | null = null;
  if (options.nrx !== undefined && nrx > 1) {
    let tr = 0, ti = 0, td = 0, tp = 0, chainResidual = 0;
    for (let c = 0; c < chains; c++) {
      tr += cr[c]; ti += ci[c]; td += cd[c]; tp += cp[c];
      if (cd[c] > 0) chainResidual += cp[c] - (cr[c] * cr[c] + ci[c] * ci[c]) / cd[c];
    }
    const commonResidual = td > 0 ? tp - (tr * tr + ti * ti) / td : tp;
    chainMismatch = chainResidual > 0 ? commonResidual / chainResidual : commonResidual > 0 ? Infinity : 1;
  }
  // The gains: one over every chain, or each chain's own.
  const gainR = new Float64Array(chains), gainI = new Float64Array(chains);
  if (perChain) {
    for (let c = 0; c < chains; c++) { gainR[c] = cr[c] / cd[c]; gainI[c] = ci[c] / cd[c]; }
  } else {
    gainR.fill(nr / d); gainI.fill(ni / d);
  }
  for (let j = 0; j < n; j++) {
    const c = Math.floor(j / nsc) % chains;
    const gr = gainR[c], gi = gainI[c], g2 = gr * gr + gi * gi;
    if (!(g2 > 0) || !Number.isFinite(g2)) continue;
    const r = re[j], i = im[j];
    re[j] = (r * gr + i * gi) / g2;
    im[j] = (i * gr - r * gi) / g2;
  }
  return { re, im, slope: rho, chainMismatch, gains: { re: gainR, im: gainI } };
}

/** The empty-room reference of one link. */
export const LinkReferenceSchema = z.object({
  tx: z.string().min(1),
  rx: z.string().min(1),
  centerFrequencyHz: z.number().positive(),
  /** Channel bandwidth of the recording in Hz; null (or absent, in files written before it was kept) when the source did not report it. */
  bandwidthHz: z.number().positive().nullable().default(null),
  subcarriers: z.array(z.number().int()).min(2),
  ntx: z.number().int().positive(),
  nrx: z.number().int().positive(),
  /** Packets averaged. */
  packets: z.number().int().positive(),
  re: z.array(z.number().finite()),
  im: z.array(z.number().finite()),
  /** Mean power per value of the aligned empty-room packets around their mean: the floor of any change (noise, quantisation, alignment). */
  noisePower: z.number().positive(),
  /** How packets of this link are aligned to it (see `GainModelSchema`); chosen from the empty room's packets, 'common' in files written before it was kept. */
  gain: GainModelSchema.default('common'),
}).refine((l) => l.re.length === l.ntx * l.nrx * l.subcarriers.length && l.im.length === l.re.length, { message: 're and im must hold ntx × nrx × subcarriers values' });

/**
 * An empty-room reference (`wiflow-empty-room/1`): per link the mean channel of a capture
 * of the room with nobody in it, every packet aligned to the first and the mean timing slope
 * removed (timing offsets are zero-mean). Recorded once at installation, and again after
 * the furniture or the radios move.
 */
export const EmptyRoomReferenceSchema = z.object({
  format: z.literal('wiflow-empty-room/1'),
  environmentId: z.string().min(1),
  /** Where it came from: a capture file, or the simulator's empty room. */
  source: z.string().default(''),
  links: z.array(LinkReferenceSchema).min(1),
});

/** An empty-room reference. */
export type EmptyRoomReference = z.output<typeof EmptyRoomReferenceSchema>;
/** One link of it. */
export type LinkReference = z.output<typeof LinkReferenceSchema>;

/** Empty-room packets per link kept to measure the noise floor. */
const MAX_NOISE_PACKETS = 200;

/** Empty-room packets that choose a link's gain model (`chooseGainModel`). */
const GAIN_DECISION_PACKETS = 10;

/**
 * Median `chainMismatch` above which the receive chains are taken to change their phases from
 * packet to packet. An empty room's packets fit one common gain about as well as one per
 * chain (ratio near 1: noise only); on the Intel 5300 at 40 MHz the ratio is tens.
 */
const CHAIN_MISMATCH_LIMIT = 2;

/**
 * Whether a link's receive chains keep their phases from packet to packet, from the first
 * packets of an empty room (each aligned to the first with one common gain).
 */
export function chooseGainModel(packets: readonly ComplexPacket[], subcarriers: ArrayLike<number>, nrx: number): GainModel {
  if (nrx < 2 || packets.length < 2) return 'common';
  const ratios = packets.slice(1).map((p) => alignPacket(p, packets[0], subcarriers, { nrx }).chainMismatch ?? 1).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)] > CHAIN_MISMATCH_LIMIT ? 'per-rx-chain' : 'common';
}

interface LinkAccumulator {
  tx: string;
  rx: string;
  centerFrequencyHz: number | null;
  bandwidthHz: number | null;
  subcarriers: Int16Array;
  ntx: number;
  nrx: number;
  first: { re: Float64Array; im: Float64Array };
  sumRe: Float64Array;
  sumIm: Float64Array;
  /** Aligned packets, kept for the noise floor. */
  aligned: { re: Float64Array; im: Float64Array }[];
  slopeSum: number;
  packets: number;
  /** Null until `GAIN_DECISION_PACKETS` packets have come (they wait in `pending`). */
  gain: GainModel | null;
  pending: { re: Float64Array; im: Float64Array }[];
}

/** Builds an empty-room reference from the frames of an empty room (any CSI source). */
export class ReferenceRecorder {
  readonly #links = new Map<string, LinkAccumulator>();

  constructor(readonly environmentId: string, readonly source = '') {}

  /** Add one frame; frames of a link must keep one antenna and subcarrier layout. */
  push(frame: CsiFrame): void {
    const key = `${frame.link.tx}->${frame.link.rx}`;
    const n = frame.ntx * frame.nrx * frame.nsc;
    if (frame.csi.re.length !== n) throw PoseErrors.windowInvalid(`frame of link ${key} holds ${frame.csi.re.length} values for ${frame.ntx}×${frame.nrx}×${frame.nsc}`);
    let acc = this.#links.get(key);
    if (!acc) {
      acc = {
        tx: frame.link.tx, rx: frame.link.rx, centerFrequencyHz: frame.centerFrequencyHz, bandwidthHz: frame.bandwidthHz, subcarriers: Int16Array.from(frame.subcarriers), ntx: frame.ntx, nrx: frame.nrx,
        first: { re: Float64Array.from(frame.csi.re), im: Float64Array.from(frame.csi.im) },
        sumRe: new Float64Array(n), sumIm: new Float64Array(n), aligned: [], slopeSum: 0, packets: 0, gain: null, pending: [],
      };
      this.#links.set(key, acc);
    } else if (acc.ntx !== frame.ntx || acc.nrx !== frame.nrx || acc.subcarriers.length !== frame.nsc) {
      throw PoseErrors.windowInvalid(`link ${key} changed its layout from ${acc.ntx}×${acc.nrx}×${acc.subcarriers.length} to ${frame.ntx}×${frame.nrx}×${frame.nsc} while recording the empty room`);
    }
    const packet = { re: Float64Array.from(frame.csi.re), im: Float64Array.from(frame.csi.im) };
    if (acc.gain === null) {
      acc.pending.push(packet);
      if (acc.pending.length >= GAIN_DECISION_PACKETS) this.#decide(acc);
      return;
    }
    this.#add(acc, packet);
  }

  /** Choose the link's gain model from the packets held back, then add them. */
  #decide(acc: LinkAccumulator): void {
    acc.gain = chooseGainModel(acc.pending, acc.subcarriers, acc.nrx);
    for (const packet of acc.pending.splice(0)) this.#add(acc, packet);
  }

  #add(acc: LinkAccumulator, packet: ComplexPacket): void {
    const aligned = alignPacket(packet, acc.first, acc.subcarriers, { nrx: acc.nrx, gain: acc.gain ?? 'common' });
    for (let j = 0; j < aligned.re.length; j++) { acc.sumRe[j] += aligned.re[j]; acc.sumIm[j] += aligned.im[j]; }
    acc.slopeSum += aligned.slope;
    acc.packets++;
    if (acc.aligned.length < MAX_NOISE_PACKETS) acc.aligned.push({ re: aligned.re, im: aligned.im });
  }

  /** Packets recorded per link. */
  packets(): Record<string, number> {
    return Object.fromEntries([...this.#links].map(([k, v]) => [k, v.packets + v.pending.length]));
  }

  /** The reference; every link needs at least `minPackets` packets and a centre frequency. */
  build(minPackets = 10): EmptyRoomReference {
    if (this.#links.size === 0) throw PoseErrors.datasetInvalid(`empty-room reference of ${this.environmentId}: no frames`);
    const links: LinkReference[] = [];
    for (const acc of this.#links.values()) if (acc.gain === null) this.#decide(acc);
    for (const [key, acc] of this.#links) {
      if (acc.packets < minPackets) throw PoseErrors.datasetInvalid(`empty-room reference of ${this.environmentId}: link ${key} has ${acc.packets} packets, at least ${minPackets} needed`);
      if (!acc.centerFrequencyHz) throw PoseErrors.datasetInvalid(`empty-room reference of ${this.environmentId}: link ${key} reports no centre frequency`);
      // Every packet now carries the first packet's timing slope; timing offsets are zero-mean, so give the mean packet's instead.
      const meanSlope = acc.slopeSum / acc.packets;
      const nsc = acc.subcarriers.length;
      const re: number[] = [], im: number[] = [];
      for (let j = 0; j < acc.sumRe.length; j++) {
        const a = meanSlope * acc.subcarriers[j % nsc];
        const x = acc.sumRe[j] / acc.packets, y = acc.sumIm[j] / acc.packets;
        re.push(x * Math.cos(a) - y * Math.sin(a));
        im.push(x * Math.sin(a) + y * Math.cos(a));
      }
      let noise = 0;
      for (const p of acc.aligned) {
        for (let j = 0; j < p.re.length; j++) noise += (p.re[j] - acc.sumRe[j] / acc.packets) ** 2 + (p.im[j] - acc.sumIm[j] / acc.packets) ** 2;
      }
      const noisePower = Math.max(noise / (acc.aligned.length * acc.sumRe.length), Number.MIN_VALUE);
      links.push({ tx: acc.tx, rx: acc.rx, centerFrequencyHz: acc.centerFrequencyHz, bandwidthHz: acc.bandwidthHz, subcarriers: Array.from(acc.subcarriers), ntx: acc.ntx, nrx: acc.nrx, packets: acc.packets, re, im, noisePower, gain: acc.gain ?? 'common' });
    }
    return { format: 'wiflow-empty-room/1', environmentId: this.environmentId, source: this.source, links };
  }
}

/** Read and validate a reference file. */
export function readReference(file: string): EmptyRoomReference {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw PoseErrors.referenceMissing(`reference file ${file}`, 'it does not exist');
    throw PoseErrors.datasetInvalid(`cannot read the empty-room reference ${file}: ${(error as Error).message}`);
  }
  const parsed = EmptyRoomReferenceSchema.safeParse(raw);
  if (!parsed.success) throw PoseErrors.datasetInvalid(`${file} is not an empty-room reference: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Write a reference file atomically. */
export function writeReference(file: string, reference: EmptyRoomReference): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(reference));
  renameSync(tmp, file);
}
