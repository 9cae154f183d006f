import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { DecoderOptions, FrameDecoder } from './decoder.js';
import { atherosHeaderConsistent, detectAtherosLayout, readAtherosHeader, type AtherosLayout } from './detect.js';
import { HT20_TONES, HT40_TONES } from './subcarriers.js';

const BITS = 10;

/**
 * Unpack Atheros 10-bit CSI (the tool's `read_csi`): a bit accumulator fed 16 bits at a time,
 * low byte first; per tone, per nc, per nr: imaginary then real, two's complement. Output is
 * row-major [nc][nr][tone].
 */
export function unpackAtheros(data: Uint8Array, pos: number, nr: number, nc: number, numTones: number, re: Float32Array, im: Float32Array): void {
  let idx = pos;
  let current = data[idx] | (data[idx + 1] << 8);
  idx += 2;
  let bitsLeft = 16;
  const mask = (1 << BITS) - 1;
  for (let k = 0; k < numTones; k++) {
    for (let c = 0; c < nc; c++) {
      for (let r = 0; r < nr; r++) {
        if (bitsLeft < BITS) {
          current |= (data[idx] | (data[idx + 1] << 8)) << bitsLeft;
          idx += 2;
          bitsLeft += 16;
        }
        const imag = current & mask;
        bitsLeft -= BITS;
        current >>>= BITS;
        if (bitsLeft < BITS) {
          current |= (data[idx] | (data[idx + 1] << 8)) << bitsLeft;
          idx += 2;
          bitsLeft += 16;
        }
        const real = current & mask;
        bitsLeft -= BITS;
        current >>>= BITS;
        const out = (c * nr + r) * numTones + k;
        re[out] = real & 0x200 ? real - 1024 : real;
        im[out] = imag & 0x200 ? imag - 1024 : imag;
      }
    }
  }
}

/** Reads Atheros CSI Tool logs in either byte order (with or without the 0xFF big-endian marker). */
export class AtherosDecoder implements FrameDecoder {
  readonly format = 'atheros' as const;
  need = 27;
  readonly layout: AtherosLayout;
  #options: DecoderOptions;
  #started = false;
  #firstTimestamp = -1;

  constructor(head: Uint8Array, options: DecoderOptions) {
    const layout = detectAtherosLayout(head);
    if (!layout) throw new DecodeFault('malformed', 0, 'first Atheros record header is inconsistent in every byte order');
    this.layout = layout;
    this.#options = options;
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    if (!this.#started) {
      if (this.layout.start === 1) {
        if (end - pos < 1) return this.#more(1, eof, pos);
        this.#started = true;
        return 1;
      }
      this.#started = true;
    }
    const header = readAtherosHeader(buf, pos, end, this.layout);
    if (!header) {
      // The tool's reader stops when fewer than a header's bytes remain; tolerate a short tail of zero padding only.
      return this.#more(27, eof, pos);
    }
    const total = 2 + header.fieldLength;
    if (header.fieldLength < 25) throw new DecodeFault('malformed', pos, `record length ${header.fieldLength} is shorter than the 25-byte header`);
    if (end - pos < total) return this.#more(total, eof, pos);
    if (!atherosHeaderConsistent(header)) {
      throw new DecodeFault('malformed', pos, `inconsistent record header (length ${header.fieldLength}, csi_len ${header.csiLength}, payload_len ${header.payloadLength}, tones ${header.numTones}, nr ${header.nr}, nc ${header.nc})`, pos + total);
    }
    if (header.csiLength > 0) out.push(this.#frame(buf, pos + 27, header));
    return total;
  }

  #more(total: number, eof: boolean, pos: number): number {
    if (eof) throw new DecodeFault('truncated', pos, `record cut short (needs ${total} bytes)`);
    this.need = total;
    return 0;
  }

  #frame(buf: Buffer, csiAt: number, header: ReturnType<typeof readAtherosHeader> & object): CsiFrame {
    const { nr, nc, numTones } = header;
    const n = nr * nc * numTones;
    const both = new Float32Array(2 * n);
    const re = both.subarray(0, n);
    const im = both.subarray(n);
    unpackAtheros(buf, csiAt, nr, nc, numTones, re, im);
    const timestamp = header.timestamp;
    if (this.#firstTimestamp < 0) this.#firstTimestamp = timestamp;
    const options = this.#options;
    const rssi = [header.rssi0, header.rssi1, header.rssi2].slice(0, nr);
    return {
      timestamp,
      time: options.baseTime + (timestamp - this.#firstTimestamp) / 1000,
      sourceId: options.sourceId,
      link: { tx: 'tx', rx: options.receiverId },
      centerFrequencyHz: header.channel > 0 ? header.channel * 1e6 : null,
      bandwidthHz: header.bandwidth === 1 ? 40e6 : 20e6,
      subcarriers: numTones === 114 ? HT40_TONES : HT20_TONES,
      ntx: nc,
      nrx: nr,
      nsc: numTones,
      csi: { re, im },
      rssi,
      noiseDbm: header.noiseFloor !== 0 ? header.noiseFloor : undefined,
      format: 'atheros',
      provenance: options.provenance,
      extra: { rate: header.rate, errInfo: header.errInfo, rssiCombined: header.rssi, payloadLength: header.payloadLength, channelMHz: header.channel, byteOrder: this.layout.littleEndian ? 'little' : 'big' },
    };
  }
}
