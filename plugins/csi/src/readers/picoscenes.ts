import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { DecoderOptions, FrameDecoder } from './decoder.js';
import { unpackAtheros } from './atheros.js';
import { intelPermutation, unpackIntel5300 } from './intel5300.js';
import { HT20_TONES, HT40_TONES, INTEL_HT20_GROUPED, INTEL_HT40_GROUPED } from './subcarriers.js';

/** Magic number of a PicoScenes frame (bytes 4..7, little-endian). */
export const PICOSCENES_MAGIC = 0x20150315;
const MAX_FRAME = 4 * 1024 * 1024;

/** PicoScenes device type codes. */
export const PICOSCENES_DEVICES: Record<number, string> = { 0x5300: 'iwl5300', 0x9300: 'qca9300', 0x2000: 'iwlmvm-ax200', 0x2100: 'iwlmvm-ax210', 0x1234: 'usrp' };

interface RxSBasic {
  timestamp: number;
  channelFreqMHz: number;
  cbwMHz: number;
  mcs: number;
  noiseFloor: number;
  rssi: number;
  chainRssi: number[];
}

/** Reads PicoScenes `.csi` files: Intel 5300 and QCA9300 device types (others raise an 'unsupported' error per frame). */
export class PicoScenesDecoder implements FrameDecoder {
  readonly format = 'picoscenes' as const;
  need = 4;
  #options: DecoderOptions;
  #firstTimestamp = -1;

  constructor(options: DecoderOptions) {
    this.#options = options;
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    if (end - pos < 4) return this.#more(4, eof, pos);
    const length = buf.readUInt32LE(pos);
    if (length > MAX_FRAME) throw new DecodeFault('recordTooLarge', pos, `frame claims ${length} bytes`);
    const total = 4 + length;
    if (end - pos < total) return this.#more(total, eof, pos);
    if (length < 7) throw new DecodeFault('malformed', pos, `frame length ${length} is shorter than its header`, pos + total);
    const magic = buf.readUInt32LE(pos + 4);
    if (magic !== PICOSCENES_MAGIC) throw new DecodeFault('malformed', pos + 4, `frame magic 0x${magic.toString(16)} is not 0x20150315`, pos + total);
    const segments = buf[pos + 10];
    const frameEnd = pos + total;
    let at = pos + 11;
    let basic: RxSBasic | null = null;
    let csi: { at: number; end: number; version: number } | null = null;
    for (let s = 0; s < segments; s++) {
      if (at + 5 > frameEnd) throw new DecodeFault('malformed', at, `segment ${s} header overruns the frame`, frameEnd);
      const segmentLength = buf.readUInt32LE(at);
      const nameLength = buf[at + 4];
      const segmentEnd = at + 4 + segmentLength;
      if (segmentEnd > frameEnd || 1 + nameLength + 2 > segmentLength) throw new DecodeFault('malformed', at, `segment ${s} of ${segmentLength} bytes overruns the frame`, frameEnd);
      const name = buf.toString('latin1', at + 5, at + 5 + nameLength);
      const version = buf.readUInt16LE(at + 5 + nameLength);
      const body = at + 7 + nameLength;
      if (name === 'RxSBasic') basic = this.#basic(buf, body, segmentEnd, version);
      else if (name === 'CSI') csi = { at: body, end: segmentEnd, version };
      at = segmentEnd;
    }
    if (csi) out.push(this.#frame(buf, csi.at, csi.end, csi.version, basic, frameEnd));
    return total;
  }

  #basic(buf: Buffer, at: number, end: number, version: number): RxSBasic | null {
    const need = version === 1 ? 26 : version === 2 ? 28 : 32;
    if (end - at < need) throw new DecodeFault('malformed', at, `RxSBasic v${version} body of ${end - at} bytes is too short`);
    if (version > 3) return null;
    const timestamp = Number(buf.readBigUInt64LE(at + 2));
    if (version === 3) {
      return { timestamp, channelFreqMHz: buf.readUInt16LE(at + 12), cbwMHz: buf.readUInt16LE(at + 14), mcs: buf[at + 21], noiseFloor: buf.readInt8(at + 27), rssi: buf.readInt8(at + 28), chainRssi: [buf.readInt8(at + 29), buf.readInt8(at + 30), buf.readInt8(at + 31)] };
    }
    const tail = version === 1 ? at + 21 : at + 23;
    return { timestamp, channelFreqMHz: buf.readUInt16LE(at + 10), cbwMHz: buf.readUInt16LE(at + 13), mcs: buf[at + 17], noiseFloor: buf.readInt8(tail), rssi: buf.readInt8(tail + 1), chainRssi: [buf.readInt8(tail + 2), buf.readInt8(tail + 3), buf.readInt8(tail + 4)] };
  }

  #frame(buf: Buffer, at: number, end: number, version: number, basic: RxSBasic | null, frameEnd: number): CsiFrame {
    let p = at;
    const need = (n: number) => {
      if (p + n > end) throw new DecodeFault('malformed', p, `CSI segment v${version} ends early`, frameEnd);
    };
    need(2);
    const deviceType = buf.readUInt16LE(p);
    p += 2;
    if (version >= 4) p += 1;
    if (version < 1 || version > 4) throw new DecodeFault('unsupported', at, `CSI segment version ${version}`, frameEnd);
    need(27);
    const packetFormat = buf.readInt8(p);
    const cbw = buf.readUInt16LE(p + 1);
    const carrierFrequency = Number(buf.readBigUInt64LE(p + 3));
    const samplingRate = Number(buf.readBigUInt64LE(p + 11));
    const subcarrierBandwidth = buf.readUInt32LE(p + 19);
    const numTones = buf.readUInt16LE(p + 23);
    const numSts = buf[p + 25];
    const numRx = buf[p + 26];
    p += 27;
    need(2);
    const numEss = buf[p];
    p += 1;
    if (version >= 3) p += 2;
    need(1);
    const antSel = buf[p];
    p += 1;
    let subcarrierOffset = 0;
    if (version >= 2) {
      need(2);
      subcarrierOffset = buf.readInt16LE(p);
      p += 2;
    }
    need(4);
    const bufferLength = buf.readUInt32LE(p);
    p += 4;
    if (p + bufferLength > end) throw new DecodeFault('malformed', p - 4, `CSI buffer of ${bufferLength} bytes overruns its segment`, frameEnd);
    const device = PICOSCENES_DEVICES[deviceType] ?? `0x${deviceType.toString(16)}`;
    let ntx: number;
    let nrx: number;
    let nsc: number;
    let subcarriers: Int16Array;
    let re: Float32Array;
    let im: Float32Array;
    if (deviceType === 0x5300) {
      nrx = numRx;
      const streams = (bufferLength - 12) / 60;
      if (nrx < 1 || nrx > 3 || !Number.isInteger(streams) || streams < nrx || streams % nrx !== 0 || streams / nrx > 3) {
        throw new DecodeFault('malformed', p - 4, `Intel 5300 CSI buffer of ${bufferLength} bytes does not fit ${nrx} receive chains`, frameEnd);
      }
      ntx = streams / nrx;
      nsc = 30;
      re = new Float32Array(ntx * nrx * 30);
      im = new Float32Array(ntx * nrx * 30);
      unpackIntel5300(buf, p, nrx, ntx, intelPermutation(antSel), re, im);
      subcarriers = cbw >= 40 ? INTEL_HT40_GROUPED : INTEL_HT20_GROUPED;
    } else if (deviceType === 0x9300) {
      nrx = numRx;
      ntx = numSts;
      nsc = numTones;
      if (nrx < 1 || nrx > 3 || ntx < 1 || ntx > 3 || (nsc !== 56 && nsc !== 114) || Math.ceil((nrx * ntx * nsc * 20) / 8) > bufferLength) {
        throw new DecodeFault('malformed', p - 4, `QCA9300 CSI of ${bufferLength} bytes does not fit ${nsc} tones × ${ntx} × ${nrx}`, frameEnd);
      }
      re = new Float32Array(ntx * nrx * nsc);
      im = new Float32Array(ntx * nrx * nsc);
      unpackAtheros(buf, p, nrx, ntx, nsc, re, im);
      subcarriers = nsc === 114 ? HT40_TONES : HT20_TONES;
    } else {
      throw new DecodeFault('unsupported', at, `PicoScenes device type ${device} is not decoded (Intel 5300 and QCA9300 are)`, frameEnd);
    }
    const options = this.#options;
    const timestamp = basic ? basic.timestamp : this.#firstTimestamp < 0 ? 0 : this.#firstTimestamp;
    if (this.#firstTimestamp < 0) this.#firstTimestamp = timestamp;
    const rssi = basic ? basic.chainRssi.filter((v) => v !== 0).slice(0, nrx) : undefined;
    return {
      timestamp,
      time: options.baseTime + (timestamp - this.#firstTimestamp) / 1000,
      sourceId: options.sourceId,
      link: { tx: 'tx', rx: options.receiverId },
      centerFrequencyHz: carrierFrequency > 0 ? carrierFrequency : basic ? basic.channelFreqMHz * 1e6 : null,
      bandwidthHz: cbw > 0 ? cbw * 1e6 : null,
      subcarriers,
      ntx,
      nrx,
      nsc,
      csi: { re, im },
      rssi,
      noiseDbm: basic?.noiseFloor,
      format: 'picoscenes',
      provenance: options.provenance,
      extra: { device, packetFormat, samplingRate, subcarrierBandwidth, numEss, antSel, subcarrierOffset, segmentVersion: version, mcs: basic?.mcs, rssiCombined: basic?.rssi },
    };
  }

  #more(total: number, eof: boolean, pos: number): number {
    if (eof) throw new DecodeFault('truncated', pos, `frame cut short (needs ${total} bytes)`);
    this.need = total;
    return 0;
  }
}
