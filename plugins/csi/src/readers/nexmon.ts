import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import { NEXMON_CHIPS, type DecoderOptions, type NexmonEncoding } from './decoder.js';
import { fftBinToIndex, isOccupiedTone } from './subcarriers.js';

/** UDP port the Nexmon CSI firmware sends to. */
export const NEXMON_UDP_PORT = 5500;
/** Bytes before the CSI in a Nexmon payload. */
export const NEXMON_HEADER_BYTES = 18;

const CHIP_IDS: Record<number, NexmonEncoding> = { 0x4339: 'int16', 0x4345: 'int16', 0x4358: 'float-9-5', 0x4366: 'float-12-6' };

/** Decoded chanspec fields. */
export interface Chanspec {
  channel: number;
  bandwidthHz: number | null;
  band: '2.4GHz' | '5GHz';
  centerFrequencyHz: number | null;
}

/** Decode a Broadcom chanspec: channel in the low byte, bandwidth bits 0x3800, band bits 0xC000. */
export function decodeChanspec(chanspec: number): Chanspec {
  const channel = chanspec & 0xff;
  const bw = chanspec & 0x3800;
  const bandwidthHz = bw === 0x1000 ? 20e6 : bw === 0x1800 ? 40e6 : bw === 0x2000 ? 80e6 : bw === 0x2800 ? 160e6 : null;
  const band = (chanspec & 0xc000) === 0xc000 ? '5GHz' : '2.4GHz';
  let centerFrequencyHz: number | null = null;
  if (band === '5GHz' && channel > 0) centerFrequencyHz = (5000 + 5 * channel) * 1e6;
  else if (channel >= 1 && channel <= 13) centerFrequencyHz = (2407 + 5 * channel) * 1e6;
  else if (channel === 14) centerFrequencyHz = 2484e6;
  return { channel, bandwidthHz, band, centerFrequencyHz };
}

/**
 * Unpack one packet of packed-float CSI words (bcm4358: nman 9, nexp 5; bcm4366c0: nman 12,
 * nexp 6) with the firmware tools' per-packet auto-scaling to 10 bits, into re/im.
 */
export function unpackNexmonFloat(data: Uint8Array, pos: number, nfft: number, nman: number, nexp: number, re: Float32Array, im: Float32Array, bins?: Int32Array): void {
  const manMask = (1 << (nman - 1)) - 1;
  const expMask = (1 << nexp) - 1;
  const expSign = 1 << (nexp - 1);
  const expRange = 1 << nexp;
  const manShift = nexp + nman;
  const signRe = nexp + 2 * nman - 1;
  const signIm = nexp + nman - 1;
  const words = wordsOf(data, pos, nfft);
  const exponents = exponentScratch.length >= nfft ? exponentScratch : new Int32Array(nfft);
  let maxbit = -expSign;
  for (let k = 0; k < nfft; k++) {
    const h = words[k];
    let e = h & expMask;
    if (e >= expSign) e -= expRange;
    exponents[k] = e;
    const v = ((h >>> manShift) & manMask) | ((h >>> nexp) & manMask);
    if (v !== 0) {
      const bit = e + (31 - Math.clz32(v));
      if (bit > maxbit) maxbit = bit;
    }
  }
  const shift = 10 - maxbit;
  // The scaling looks at every bin; the output only needs the requested ones.
  const count = bins ? bins.length : nfft;
  for (let out = 0; out < count; out++) {
    const k = bins ? bins[out] : out;
    const h = words[k];
    const e = exponents[k] + shift;
    let vi = (h >>> manShift) & manMask;
    let vq = (h >>> nexp) & manMask;
    if (e <= -nman) {
      vi = 0;
      vq = 0;
    } else if (e < 0) {
      vi >>>= -e;
      vq >>>= -e;
    } else if (e < 31 - nman) {
      vi <<= e;
      vq <<= e;
    } else {
      vi *= 2 ** e;
      vq *= 2 ** e;
    }
    re[out] = (h >>> signRe) & 1 ? 0 - vi : vi;
    im[out] = (h >>> signIm) & 1 ? 0 - vq : vq;
  }
}

const exponentScratch = new Int32Array(4096);

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const wordBytes = new Uint8Array(4 * 4096);
const wordView = new Uint32Array(wordBytes.buffer);

/** The packet's little-endian u32 words, copied into an aligned scratch view (one memcpy instead of four loads a word). */
function wordsOf(data: Uint8Array, pos: number, nfft: number): Uint32Array {
  if (LITTLE_ENDIAN_HOST && nfft <= wordView.length) {
    wordBytes.set(data.subarray(pos, pos + 4 * nfft));
    return wordView;
  }
  const words = nfft <= wordView.length ? wordView : new Uint32Array(nfft);
  for (let k = 0; k < nfft; k++) {
    const at = pos + 4 * k;
    words[k] = (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24)) >>> 0;
  }
  return words;
}

/** Unpack interleaved little-endian int16 (real, imaginary) CSI (bcm4339, bcm43455c0). */
export function unpackNexmonInt16(data: Uint8Array, pos: number, nfft: number, re: Float32Array, im: Float32Array, bins?: Int32Array): void {
  const count = bins ? bins.length : nfft;
  for (let out = 0; out < count; out++) {
    const at = pos + 4 * (bins ? bins[out] : out);
    re[out] = ((data[at] | (data[at + 1] << 8)) << 16) >> 16;
    im[out] = ((data[at + 2] | (data[at + 3] << 8)) << 16) >> 16;
  }
}

function decodeWith(encoding: NexmonEncoding, data: Uint8Array, pos: number, nfft: number, re: Float32Array, im: Float32Array, bins?: Int32Array): void {
  if (encoding === 'int16') unpackNexmonInt16(data, pos, nfft, re, im, bins);
  else if (encoding === 'float-9-5') unpackNexmonFloat(data, pos, nfft, 9, 5, re, im, bins);
  else unpackNexmonFloat(data, pos, nfft, 12, 6, re, im, bins);
}

/** Roughness of a decode: mean squared step between neighbouring occupied bins over mean power (lower is smoother). */
function roughness(re: Float32Array, im: Float32Array, nfft: number): number {
  let step = 0;
  let power = 0;
  let count = 0;
  for (let k = 0; k < nfft - 1; k++) {
    const a = fftBinToIndex(k, nfft);
    const b = fftBinToIndex(k + 1, nfft);
    if (b !== a + 1 || !isOccupiedTone(a, nfft) || !isOccupiedTone(b, nfft)) continue;
    const dr = re[k + 1] - re[k];
    const di = im[k + 1] - im[k];
    step += dr * dr + di * di;
    power += re[k] * re[k] + im[k] * im[k];
    count++;
  }
  return count === 0 || power === 0 ? Number.POSITIVE_INFINITY : step / power;
}

/** Pick the CSI encoding of a packet whose chip id is not trusted: the smoothest decode across neighbouring tones wins. */
export function guessNexmonEncoding(data: Uint8Array, pos: number, nfft: number): NexmonEncoding {
  const re = new Float32Array(nfft);
  const im = new Float32Array(nfft);
  let best: NexmonEncoding = 'int16';
  let bestScore = Number.POSITIVE_INFINITY;
  for (const encoding of ['int16', 'float-9-5', 'float-12-6'] as const) {
    decodeWith(encoding, data, pos, nfft, re, im);
    const score = roughness(re, im, nfft);
    if (score < bestScore) {
      bestScore = score;
      best = encoding;
    }
  }
  return best;
}

/** Turns Nexmon CSI UDP payloads into frames (used by the pcap readers and the UDP receiver). */
export class NexmonPayloadDecoder {
  #options: DecoderOptions;
  #encoding: NexmonEncoding | null;
  /** How the encoding was chosen: the chip setting, the chip id in the packets, or the content. */
  encodingSource: 'setting' | 'chip-id' | 'content' | null = null;
  #orders = new Map<number, { subcarriers: Int16Array; bins: Int32Array }>();
  #firstTimestamp = -1;
  #macBytes = new Uint8Array(6);
  #mac = '';
  /** Payloads with some bytes after the nfft × 4 CSI bytes (decoded from the first nfft × 4). */
  trailingBytesPackets = 0;
  readonly #confirmations: number;
  #candidate: { encoding: NexmonEncoding; source: 'chip-id' | 'content'; agreeing: number } | null = null;

  /**
   * `confirmations`: with `chip: 'auto'`, how many packets in a row must point to the same
   * encoding (by chip id, else by content) before it is kept; until then each packet is decoded
   * with its own. 1 (files: the first packet decides) or more for a live socket, where one stray
   * datagram that starts with the magic must not decide how every later packet is read.
   */
  constructor(options: DecoderOptions, confirmations = 1) {
    this.#options = options;
    this.#confirmations = Math.max(1, confirmations);
    this.#encoding = options.chip === 'auto' ? null : NEXMON_CHIPS[options.chip];
    if (this.#encoding) this.encodingSource = 'setting';
  }

  /** The encoding in use (null until the first packet when guessing). */
  get encoding(): NexmonEncoding | null {
    return this.#encoding;
  }

  /** Whether a payload starts with the Nexmon CSI magic. */
  static isCsiPayload(data: Uint8Array, pos: number, length: number): boolean {
    return length >= NEXMON_HEADER_BYTES && data[pos] === 0x11 && data[pos + 1] === 0x11;
  }

  /**
   * Decode the payload at `data[pos, pos + length)`. `timestampUs` is the capture time in µs
   * (pcap record time, or receive time for live packets); `time` its wall-clock ms.
   */
  decode(data: Uint8Array, pos: number, length: number, timestampUs: number, time: number): CsiFrame {
    if (length < NEXMON_HEADER_BYTES) throw new DecodeFault('malformed', pos, `Nexmon payload of ${length} bytes is shorter than its ${NEXMON_HEADER_BYTES}-byte header`);
    if (data[pos] !== 0x11 || data[pos + 1] !== 0x11) throw new DecodeFault('malformed', pos, 'Nexmon payload does not start with magic 0x1111');
    const oldFirmware = data[pos + 2] === 0x11 && data[pos + 3] === 0x11;
    const rssi = oldFirmware ? undefined : (data[pos + 2] << 24) >> 24;
    const frameControl = oldFirmware ? undefined : data[pos + 3];
    const mac = this.#macOf(data, pos + 4);
    const sequenceControl = data[pos + 10] | (data[pos + 11] << 8);
    const coreStream = data[pos + 12] | (data[pos + 13] << 8);
    const core = coreStream & 7;
    const spatialStream = (coreStream >> 3) & 7;
    const chanspecValue = data[pos + 14] | (data[pos + 15] << 8);
    const chipId = data[pos + 16] | (data[pos + 17] << 8);
    const chanspec = decodeChanspec(chanspecValue);
    const csiBytes = length - NEXMON_HEADER_BYTES;
    let nfft = chanspec.bandwidthHz ? Math.round((chanspec.bandwidthHz / 20e6) * 64) : 0;
    if (nfft === 0 || csiBytes < nfft * 4) {
      // The chanspec bandwidth is missing or disagrees: fall back to the size of the CSI.
      const fromSize = [512, 256, 128, 64].find((n) => csiBytes >= n * 4) ?? 0;
      if (fromSize === 0) throw new DecodeFault('malformed', pos + NEXMON_HEADER_BYTES, `Nexmon payload carries ${csiBytes} CSI bytes, fewer than 64 bins`);
      nfft = fromSize;
    }
    if (csiBytes > nfft * 4) this.trailingBytesPackets++;
    let encoding = this.#encoding;
    if (!encoding) {
      const fromId = CHIP_IDS[chipId];
      const source = fromId ? 'chip-id' : 'content';
      encoding = fromId ?? guessNexmonEncoding(data, pos + NEXMON_HEADER_BYTES, nfft);
      const candidate = this.#candidate;
      if (candidate && candidate.encoding === encoding && candidate.source === source) candidate.agreeing++;
      else this.#candidate = { encoding, source, agreeing: 1 };
      this.encodingSource = source;
      if (this.#candidate!.agreeing >= this.#confirmations) this.#encoding = encoding;
    }
    const options = this.#options;
    const order = this.#order(nfft, options.nullSubcarriers === 'keep');
    const subcarriers = order.subcarriers;
    const count = order.bins.length;
    const both = new Float32Array(2 * count);
    const re = both.subarray(0, count);
    const im = both.subarray(count);
    decodeWith(encoding, data, pos + NEXMON_HEADER_BYTES, nfft, re, im, options.nullSubcarriers === 'keep' ? undefined : order.bins);
    if (this.#firstTimestamp < 0) this.#firstTimestamp = timestampUs;
    return {
      timestamp: timestampUs,
      time,
      sourceId: options.sourceId,
      link: this.#link(mac, coreStream & 0x3f, spatialStream, core),
      centerFrequencyHz: chanspec.centerFrequencyHz,
      bandwidthHz: chanspec.bandwidthHz ?? (nfft / 64) * 20e6,
      subcarriers,
      ntx: 1,
      nrx: 1,
      nsc: subcarriers.length,
      csi: { re, im },
      rssi: rssi === undefined ? undefined : [rssi],
      sequence: sequenceControl >> 4,
      format: 'nexmon',
      provenance: options.provenance,
      extra: { mac, core, spatialStream, chanspec: chanspecValue, channel: chanspec.channel, chipId, encoding, encodingSource: this.encodingSource, fragment: sequenceControl & 0xf, frameControl, nfft, oldFirmware },
    };
  }

  #links = new Map<number, { tx: string; rx: string }>();
  #linksMac = '';

  /** One link object per (transmitter, stream, core), reused across frames. */
  #link(mac: string, key: number, spatialStream: number, core: number): { tx: string; rx: string } {
    if (mac !== this.#linksMac) {
      this.#links.clear();
      this.#linksMac = mac;
    }
    let link = this.#links.get(key);
    if (!link) this.#links.set(key, (link = { tx: `${mac}/ss${spatialStream}`, rx: `${this.#options.receiverId}/core${core}` }));
    return link;
  }

  #macOf(data: Uint8Array, at: number): string {
    const last = this.#macBytes;
    let same = this.#mac !== '';
    for (let i = 0; i < 6 && same; i++) same = last[i] === data[at + i];
    if (!same) {
      for (let i = 0; i < 6; i++) last[i] = data[at + i];
      this.#mac = macString(data, at);
    }
    return this.#mac;
  }

  #order(nfft: number, keep: boolean): { subcarriers: Int16Array; bins: Int32Array } {
    const key = keep ? -nfft : nfft;
    let order = this.#orders.get(key);
    if (!order) {
      const bins: number[] = [];
      for (let k = 0; k < nfft; k++) if (keep || isOccupiedTone(fftBinToIndex(k, nfft), nfft)) bins.push(k);
      if (!keep) bins.sort((a, b) => fftBinToIndex(a, nfft) - fftBinToIndex(b, nfft));
      order = { subcarriers: Int16Array.from(bins.map((k) => fftBinToIndex(k, nfft))), bins: Int32Array.from(bins) };
      this.#orders.set(key, order);
    }
    return order;
  }
}

function macString(data: Uint8Array, at: number): string {
  let s = '';
  for (let i = 0; i < 6; i++) s += (i ? ':' : '') + (data[at + i] < 16 ? '0' : '') + data[at + i].toString(16);
  return s;
}
