import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { DecoderOptions, FrameDecoder } from './decoder.js';
import { INTEL_HT20_GROUPED, INTEL_HT40_GROUPED } from './subcarriers.js';

/** Record code of a beamforming (CSI) record in the Linux 802.11n CSI Tool log. */
export const INTEL_BFEE_CODE = 0xbb;
const TRIANGLE = [0, 1, 3, 6];

/** Bytes of bit-packed CSI for 30 groups and `nrx × ntx` streams (the tool's `calc_len`). */
export function intelPayloadLength(nrx: number, ntx: number): number {
  return (30 * (nrx * ntx * 16 + 3) + 7) >> 3;
}

/** Antenna permutation of `antenna_sel` (1-based, as `read_bfee` gives it). */
export function intelPermutation(antennaSel: number): [number, number, number] {
  return [(antennaSel & 3) + 1, ((antennaSel >> 2) & 3) + 1, ((antennaSel >> 4) & 3) + 1];
}

/**
 * Unpack the 30-group bit-packed CSI at `payload[pos..]` into [tx][rx][30] arrays. The receive
 * chains are permuted as `read_bf_file` does (only when the permutation is a valid one, which
 * MATLAB checks by its sum); pass `perm = null` for no permutation.
 */
export function unpackIntel5300(payload: Uint8Array, pos: number, nrx: number, ntx: number, perm: readonly number[] | null, re: Float32Array, im: Float32Array): void {
  const streams = nrx * ntx;
  const valid = perm !== null && nrx > 1 && perm[0] + perm[1] + perm[2] === TRIANGLE[nrx];
  // A true permutation of 1..Nrx maps each chain straight to its place; anything else takes MATLAB's exact path.
  const direct = valid && isPermutation(perm, nrx);
  const rxMap = RX_IDENTITY[nrx];
  const map = direct ? [perm[0] - 1, perm[1] - 1, perm[2] - 1] : rxMap;
  let index = 0;
  for (let group = 0; group < 30; group++) {
    index += 3;
    const remainder = index & 7;
    for (let j = 0; j < streams; j++) {
      const at = pos + (index >> 3);
      const b1 = payload[at + 1];
      const tx = j % ntx;
      const out = (tx * nrx + map[(j - tx) / ntx]) * 30 + group;
      re[out] = ((payload[at] >> remainder) | (b1 << (8 - remainder))) << 24 >> 24;
      im[out] = ((b1 >> remainder) | (payload[at + 2] << (8 - remainder))) << 24 >> 24;
      index += 16;
    }
  }
  if (valid && !direct) permuteChains(re, im, nrx, ntx, perm);
}

const RX_IDENTITY = [[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2]];

function isPermutation(perm: readonly number[], nrx: number): boolean {
  let seen = 0;
  for (let i = 0; i < nrx; i++) {
    if (perm[i] < 1 || perm[i] > nrx) return false;
    seen |= 1 << perm[i];
  }
  return seen === ((1 << (nrx + 1)) - 2);
}

/** MATLAB's `csi(:, perm(1:Nrx), :) = csi(:, 1:Nrx, :)`, assignments in order. */
function permuteChains(re: Float32Array, im: Float32Array, nrx: number, ntx: number, perm: readonly number[]): void {
  const sourceRe = re.slice();
  const sourceIm = im.slice();
  for (let tx = 0; tx < ntx; tx++) {
    for (let rx = 0; rx < nrx; rx++) {
      const from = (tx * nrx + rx) * 30;
      const to = (tx * nrx + perm[rx] - 1) * 30;
      if (to + 30 > re.length) continue;
      re.set(sourceRe.subarray(from, from + 30), to);
      im.set(sourceIm.subarray(from, from + 30), to);
    }
  }
}

/** dB to power ratio. */
function dbinv(x: number): number {
  return Math.pow(10, x / 10);
}

/** Total received power in dBm of a record (`get_total_rss`). */
export function intelTotalRss(rssiA: number, rssiB: number, rssiC: number, agc: number): number {
  let magnitude = 0;
  if (rssiA !== 0) magnitude += dbinv(rssiA);
  if (rssiB !== 0) magnitude += dbinv(rssiB);
  if (rssiC !== 0) magnitude += dbinv(rssiC);
  return 10 * Math.log10(magnitude) - 44 - agc;
}

/** CSI scaled to √SNR exactly as the tool's `get_scaled_csi` does. */
export function intelScaledCsi(csi: { re: Float32Array; im: Float32Array }, nrx: number, ntx: number, rssi: [number, number, number], noise: number, agc: number, into?: { re: Float32Array; im: Float32Array }): { re: Float32Array; im: Float32Array } {
  const n = csi.re.length;
  let power = 0;
  for (let i = 0; i < n; i++) power += csi.re[i] * csi.re[i] + csi.im[i] * csi.im[i];
  const rssiPower = dbinv(intelTotalRss(rssi[0], rssi[1], rssi[2], agc));
  const scale = rssiPower / (power / 30);
  const noiseDb = noise === -127 ? -92 : noise;
  const totalNoise = dbinv(noiseDb) + scale * (nrx * ntx);
  let factor = Math.sqrt(scale / totalNoise);
  if (ntx === 2) factor *= Math.SQRT2;
  else if (ntx === 3) factor *= Math.sqrt(dbinv(4.5));
  const re = into?.re ?? new Float32Array(n);
  const im = into?.im ?? new Float32Array(n);
  for (let i = 0; i < n; i++) {
    re[i] = csi.re[i] * factor;
    im[i] = csi.im[i] * factor;
  }
  return { re, im };
}

/** Reads Linux 802.11n CSI Tool logs: `u16 BE length, u8 code, body` records; code 0xBB is CSI. */
export class Intel5300Decoder implements FrameDecoder {
  readonly format = 'intel5300' as const;
  need = 3;
  #options: DecoderOptions;
  #lastLow = -1;
  #wraps = 0;
  #firstTimestamp = -1;

  constructor(options: DecoderOptions) {
    this.#options = options;
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    const available = end - pos;
    if (available < 3) {
      if (eof && available > 0) throw new DecodeFault('truncated', pos, `record header cut short (${available} of 3 bytes)`);
      this.need = 3;
      return 0;
    }
    const fieldLength = buf.readUInt16BE(pos);
    if (fieldLength === 0) throw new DecodeFault('malformed', pos, 'record length field is 0');
    const total = 2 + fieldLength;
    if (available < total) {
      if (eof) throw new DecodeFault('truncated', pos, `record of ${total} bytes cut short (${available} available)`);
      this.need = total;
      return 0;
    }
    const code = buf[pos + 2];
    if (code !== INTEL_BFEE_CODE) return total;
    const body = pos + 3;
    const bodyLength = fieldLength - 1;
    if (bodyLength < 20) throw new DecodeFault('malformed', body, `beamforming record body of ${bodyLength} bytes is shorter than its 20-byte header`, pos + total);
    const nrx = buf[body + 8];
    const ntx = buf[body + 9];
    if (nrx < 1 || nrx > 3 || ntx < 1 || ntx > 3) throw new DecodeFault('malformed', body + 8, `antenna counts Nrx=${nrx} Ntx=${ntx} outside 1..3`, pos + total);
    const len = buf.readUInt16LE(body + 16);
    const expected = intelPayloadLength(nrx, ntx);
    if (len !== expected) throw new DecodeFault('malformed', body + 16, `beamforming matrix length ${len} does not match ${expected} for Nrx=${nrx} Ntx=${ntx}`, pos + total);
    if (20 + len > bodyLength) throw new DecodeFault('malformed', body + 16, `beamforming matrix of ${len} bytes overruns its ${bodyLength}-byte record`, pos + total);
    out.push(this.#frame(buf, body, nrx, ntx));
    return total;
  }

  #frame(buf: Buffer, body: number, nrx: number, ntx: number): CsiFrame {
    const timestampLow = buf.readUInt32LE(body);
    if (this.#lastLow >= 0 && timestampLow < this.#lastLow) this.#wraps++;
    this.#lastLow = timestampLow;
    const timestamp = this.#wraps * 4294967296 + timestampLow;
    if (this.#firstTimestamp < 0) this.#firstTimestamp = timestamp;
    const bfeeCount = buf.readUInt16LE(body + 4);
    const rssiA = buf[body + 10];
    const rssiB = buf[body + 11];
    const rssiC = buf[body + 12];
    const noise = buf.readInt8(body + 13);
    const agc = buf[body + 14];
    const antennaSel = buf[body + 15];
    const rate = buf.readUInt16LE(body + 18);
    const perm = intelPermutation(antennaSel);
    const n = ntx * nrx * 30;
    // One backing store for the four arrays: small typed arrays each with their own are costly.
    const all = new Float32Array(4 * n);
    const re = all.subarray(0, n);
    const im = all.subarray(n, 2 * n);
    unpackIntel5300(buf, body + 20, nrx, ntx, perm, re, im);
    const ht40 = (rate & 0x800) !== 0;
    const rssi: number[] = [];
    const chains = [rssiA, rssiB, rssiC];
    for (let i = 0; i < nrx; i++) rssi.push(chains[i] === 0 ? Number.NaN : chains[i] - 44 - agc);
    const options = this.#options;
    return {
      timestamp,
      time: options.baseTime + (timestamp - this.#firstTimestamp) / 1000,
      sourceId: options.sourceId,
      link: { tx: 'tx', rx: options.receiverId },
      centerFrequencyHz: null,
      bandwidthHz: ht40 ? 40e6 : 20e6,
      subcarriers: ht40 ? INTEL_HT40_GROUPED : INTEL_HT20_GROUPED,
      ntx,
      nrx,
      nsc: 30,
      csi: { re, im },
      scaled: intelScaledCsi({ re, im }, nrx, ntx, [rssiA, rssiB, rssiC], noise, agc, { re: all.subarray(2 * n, 3 * n), im: all.subarray(3 * n) }),
      rssi,
      noiseDbm: noise === -127 ? undefined : noise,
      agc,
      sequence: bfeeCount,
      format: 'intel5300',
      provenance: options.provenance,
      extra: { timestampLow, bfeeCount, rssiA, rssiB, rssiC, noise, antennaSel, perm, rate, totalRssDbm: intelTotalRss(rssiA, rssiB, rssiC, agc) },
    };
  }
}
