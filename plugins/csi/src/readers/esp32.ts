import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { DecoderOptions, FrameDecoder } from './decoder.js';
import type { Esp32CsvLayout } from './detect.js';

const MAX_LINE = 65536;
const MAX_FIELDS = 32;
const MAX_VALUES = 1536;
const CSI_DATA = Buffer.from('CSI_DATA');

/** Centre frequency (Hz) of a 2.4 GHz or 5 GHz WiFi channel number. */
export function wifiChannelFrequencyHz(channel: number): number | null {
  if (channel >= 1 && channel <= 13) return (2407 + 5 * channel) * 1e6;
  if (channel === 14) return 2484e6;
  if (channel >= 32 && channel <= 196) return (5000 + 5 * channel) * 1e6;
  return null;
}

/** Where each kept subcarrier's (imag, real) byte pair sits in the data, in ascending index order. */
interface Esp32Layout {
  subcarriers: Int16Array;
  /** Byte offset of each kept subcarrier's pair, per transmit stream: [tx][sc]. */
  offsets: Int32Array;
  ntx: number;
  bandwidthHz: number;
  fields: string;
}

/** Kept entries of one training field: byte offset of its first entry, entry count and index mapping. */
function fieldEntries(byteStart: number, entries: number, order: 'fft' | 'centred', validMin: number, validMax: number, skipBelowByte: number): { index: number; offset: number }[] {
  const kept: { index: number; offset: number }[] = [];
  for (let e = 0; e < entries; e++) {
    const index = order === 'fft' ? (e < entries / 2 ? e : e - entries) : e - entries / 2;
    const offset = byteStart + 2 * e;
    const a = Math.abs(index);
    if (a < validMin || a > validMax || offset < skipBelowByte) continue;
    kept.push({ index, offset });
  }
  return kept.sort((x, y) => x.index - y.index);
}

/**
 * Line parser for ESP32 CSI CSV lines (ESP32-CSI-Tool, esp-csi, esp-csi C5/C6), shared by the
 * file reader and the UDP / serial receivers. Layout per line comes from its field count.
 */
export class Esp32LineParser {
  #options: DecoderOptions;
  #fields = new Int32Array(MAX_FIELDS + 1);
  #values = new Int16Array(MAX_VALUES);
  #layouts = new Map<number, Esp32Layout>();
  #lastLocal = -1;
  #wraps = 0;
  #firstTimestamp = -1;
  /** Lines that were not CSI data (log output, headers), passed over. */
  otherLines = 0;

  constructor(options: DecoderOptions) {
    this.#options = options;
  }

  /** Parse `buf[start, end)` (one line without its newline); null when it is not a CSI line. */
  parse(buf: Uint8Array, start: number, end: number): CsiFrame | null {
    while (end > start && (buf[end - 1] === 13 || buf[end - 1] === 32)) end--;
    while (start < end && buf[start] === 32) start++;
    if (end - start < CSI_DATA.length || !startsWith(buf, start, CSI_DATA)) {
      if (end > start) this.otherLines++;
      return null;
    }
    const fields = this.#fields;
    let count = 0;
    fields[count++] = start;
    let bracket = -1;
    for (let i = start; i < end; i++) {
      const b = buf[i];
      if (b === 91) { bracket = i; break; }
      if (b === 44) {
        if (count > MAX_FIELDS) throw new DecodeFault('malformed', i, `CSI line has more than ${MAX_FIELDS} fields`);
        fields[count++] = i + 1;
      }
    }
    if (bracket < 0) throw new DecodeFault('malformed', start, 'CSI line has no [ ... ] data field');
    const columnsBefore = count - 1;
    let layout: Esp32CsvLayout;
    if (columnsBefore === 25) layout = 'csi-tool';
    else if (columnsBefore === 24) layout = 'esp-csi';
    else if (columnsBefore === 14) layout = 'esp-csi-short';
    else throw new DecodeFault('malformed', start, `CSI line has ${columnsBefore} fields before its data (expected 25, 24 or 14)`);
    fields[count] = bracket + 1;
    const values = this.#values;
    let n = 0;
    let i = bracket + 1;
    let closed = false;
    while (i < end) {
      const b = buf[i];
      if (b === 93) { closed = true; break; }
      if (b === 32 || b === 44 || b === 9) { i++; continue; }
      let sign = 1;
      if (b === 45) { sign = -1; i++; }
      let v = 0;
      let digits = 0;
      while (i < end && buf[i] >= 48 && buf[i] <= 57 && digits < 4) { v = v * 10 + buf[i] - 48; i++; digits++; }
      if (digits === 0) throw new DecodeFault('malformed', i, `unexpected byte 0x${(buf[i] ?? 0).toString(16)} in CSI data`);
      v *= sign;
      if (v < -128 || v > 127) throw new DecodeFault('malformed', i, `CSI value ${v} outside int8`);
      if (n >= MAX_VALUES) throw new DecodeFault('malformed', i, `more than ${MAX_VALUES} CSI values`);
      values[n++] = v;
    }
    if (!closed) throw new DecodeFault('malformed', end, 'CSI data field is not closed with ]');
    if (n < 2 || n % 2 !== 0) throw new DecodeFault('malformed', bracket, `CSI data has ${n} values, expected an even count of (imaginary, real) pairs`);
    return this.#frame(buf, layout, n, start);
  }

  #int(buf: Uint8Array, column: number): number {
    const fields = this.#fields;
    let s = fields[column];
    let e = fields[column + 1] - 1;
    while (s < e && (buf[s] === 32 || buf[s] === 34)) s++;
    while (e > s && (buf[e - 1] === 32 || buf[e - 1] === 34)) e--;
    let sign = 1;
    if (buf[s] === 45) { sign = -1; s++; }
    if (s >= e) throw new DecodeFault('malformed', fields[column], `column ${column + 1} is empty`);
    let v = 0;
    for (let i = s; i < e; i++) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) throw new DecodeFault('malformed', i, `column ${column + 1} is not an integer`);
      v = v * 10 + d;
    }
    return sign * v;
  }

  #macBytes = new Uint8Array(24);
  #macLength = -1;
  #mac = '';

  /** Column 3 (the MAC), decoded once per distinct value. */
  #macText(buf: Uint8Array): string {
    const s = this.#fields[2];
    const length = this.#fields[3] - 1 - s;
    let same = length === this.#macLength && length <= 24;
    for (let i = 0; i < length && same; i++) same = this.#macBytes[i] === buf[s + i];
    if (!same) {
      this.#mac = this.#text(buf, 2);
      this.#macLength = length;
      if (length <= 24) for (let i = 0; i < length; i++) this.#macBytes[i] = buf[s + i];
    }
    return this.#mac;
  }

  #text(buf: Uint8Array, column: number): string {
    const fields = this.#fields;
    return Buffer.from(buf.buffer, buf.byteOffset + fields[column], fields[column + 1] - 1 - fields[column]).toString('latin1').trim();
  }

  #layout(key: number, build: () => Esp32Layout): Esp32Layout {
    let layout = this.#layouts.get(key);
    if (!layout) {
      layout = build();
      this.#layouts.set(key, layout);
    }
    return layout;
  }

  #frame(buf: Uint8Array, csv: Esp32CsvLayout, n: number, lineStart: number): CsiFrame {
    const options = this.#options;
    const short = csv === 'esp-csi-short';
    const rssi = this.#int(buf, 3);
    const rate = this.#int(buf, 4);
    const noise = this.#int(buf, short ? 5 : 14);
    const channel = this.#int(buf, short ? 8 : 16);
    const localTimestamp = this.#int(buf, short ? 9 : 18);
    const mac = this.#macText(buf);
    const sigMode = short ? -1 : this.#int(buf, 5);
    const bandwidth = short ? 0 : this.#int(buf, 7);
    const stbc = short ? 0 : this.#int(buf, 11);
    const secondary = short ? 0 : this.#int(buf, 17);
    const firstWordInvalid = csv === 'csi-tool' ? options.esp32FirstWordInvalid : this.#int(buf, short ? 13 : 23) !== 0;
    const sequence = csv === 'csi-tool' ? undefined : this.#int(buf, 1);
    const bytes = n;
    let layout: Esp32Layout;
    if (short) {
      layout = this.#layout(1_000_000 + bytes * 2 + (firstWordInvalid ? 1 : 0), () => {
        const entries = bytes / 2;
        const [lo, hi] = entries === 64 ? [1, 26] : entries === 128 ? [2, 58] : [1, entries / 2];
        const kept = fieldEntries(0, entries, 'centred', lo, hi, firstWordInvalid ? 4 : 0);
        return { subcarriers: Int16Array.from(kept.map((k) => k.index)), offsets: Int32Array.from(kept.map((k) => k.offset)), ntx: 1, bandwidthHz: entries >= 128 ? 40e6 : 20e6, fields: 'lltf' };
      });
    } else {
      const ht40 = sigMode === 1 && bandwidth === 1;
      const htEntries = ht40 ? 128 : 64;
      const hasHt = sigMode === 1 && bytes >= 128 + 2 * htEntries;
      const hasStbc = hasHt && stbc === 1 && bytes >= 128 + 4 * htEntries;
      const field = options.esp32Field === 'lltf' || (options.esp32Field === 'auto' && !hasHt) ? 'lltf' : 'ht-ltf';
      if (field === 'ht-ltf' && !hasHt) throw new DecodeFault('unsupported', lineStart, `line has no HT-LTF (sig_mode ${sigMode}, ${bytes} bytes)`);
      if (bytes < 128) throw new DecodeFault('malformed', lineStart, `CSI data has ${bytes} values, fewer than the 128 of an LLTF`);
      layout = this.#layout((secondary & 0xff) * 16 + (field === 'lltf' ? 0 : 8) + (ht40 ? 4 : 0) + (hasStbc ? 2 : 0) + (firstWordInvalid ? 1 : 0), () => {
        const order = secondary === 0 ? 'fft' : 'centred';
        const skip = firstWordInvalid ? 4 : 0;
        if (field === 'lltf') {
          const kept = fieldEntries(0, 64, order, 1, 26, skip);
          return { subcarriers: Int16Array.from(kept.map((k) => k.index)), offsets: Int32Array.from(kept.map((k) => k.offset)), ntx: 1, bandwidthHz: 20e6, fields: 'lltf' };
        }
        const [lo, hi] = ht40 ? [2, 58] : [1, 28];
        const htOrder = ht40 ? 'fft' : order;
        const first = fieldEntries(128, htEntries, htOrder, lo, hi, skip);
        const offsets = first.map((k) => k.offset);
        if (hasStbc) for (const k of first) offsets.push(k.offset + 2 * htEntries);
        return { subcarriers: Int16Array.from(first.map((k) => k.index)), offsets: Int32Array.from(offsets), ntx: hasStbc ? 2 : 1, bandwidthHz: ht40 ? 40e6 : 20e6, fields: hasStbc ? 'ht-ltf+stbc-ht-ltf' : 'ht-ltf' };
      });
    }
    const count = layout.offsets.length;
    const both = new Float32Array(2 * count);
    const re = both.subarray(0, count);
    const im = both.subarray(count);
    const values = this.#values;
    const offsets = layout.offsets;
    for (let k = 0; k < count; k++) {
      const at = offsets[k];
      im[k] = values[at];
      re[k] = values[at + 1];
    }
    if (this.#lastLocal >= 0 && localTimestamp < this.#lastLocal && this.#lastLocal - localTimestamp > 2147483648) this.#wraps++;
    this.#lastLocal = localTimestamp;
    const timestamp = this.#wraps * 4294967296 + localTimestamp;
    if (this.#firstTimestamp < 0) this.#firstTimestamp = timestamp;
    let time = options.baseTime + (timestamp - this.#firstTimestamp) / 1000;
    const extra: Record<string, unknown> = { mac, rate, channel, fields: layout.fields, layout: csv, firstWordInvalid, reportedValues: bytes };
    if (csv === 'csi-tool') {
      const realTimeSet = this.#int(buf, 22);
      const realTimestamp = Number(this.#text(buf, 23));
      extra.realTimestamp = realTimestamp;
      extra.realTimeSet = realTimeSet;
      if (realTimeSet === 1 && Number.isFinite(realTimestamp)) time = realTimestamp * 1000;
    }
    if (!short) Object.assign(extra, { sigMode, mcs: this.#int(buf, 6), bandwidth, stbc, secondaryChannel: secondary, ampduCount: this.#int(buf, 15), antenna: this.#int(buf, 19), sigLen: this.#int(buf, 20), rxState: this.#int(buf, 21) });
    else Object.assign(extra, { fftGain: this.#int(buf, 6), agcGain: this.#int(buf, 7), sigLen: this.#int(buf, 10), rxState: this.#int(buf, 11) });
    const primary = wifiChannelFrequencyHz(channel);
    const centre = primary === null ? null : layout.bandwidthHz === 40e6 && !short ? primary + (secondary === 1 ? 10e6 : secondary === 2 ? -10e6 : 0) : primary;
    return {
      timestamp,
      time,
      sourceId: options.sourceId,
      link: { tx: mac, rx: options.receiverId },
      centerFrequencyHz: centre,
      bandwidthHz: layout.bandwidthHz,
      subcarriers: layout.subcarriers,
      ntx: layout.ntx,
      nrx: 1,
      nsc: layout.subcarriers.length,
      csi: { re, im },
      rssi: [rssi],
      noiseDbm: noise,
      agc: short ? this.#int(buf, 7) : undefined,
      sequence,
      format: 'esp32',
      provenance: options.provenance,
      extra,
    };
  }
}

function startsWith(buf: Uint8Array, at: number, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** Reads ESP32-CSI-Tool and esp-csi CSV files line by line; other lines (headers, logs) are passed over. */
export class Esp32CsvDecoder implements FrameDecoder {
  need = 1;
  readonly parser: Esp32LineParser;
  constructor(readonly format: 'esp32-csi-tool' | 'esp-csi', options: DecoderOptions) {
    this.parser = new Esp32LineParser(options);
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    const limit = Math.min(end, pos + MAX_LINE);
    let newline = buf.indexOf(10, pos);
    if (newline < 0 || newline >= end) newline = -1;
    if (newline < 0) {
      if (end - pos >= MAX_LINE) throw new DecodeFault('recordTooLarge', pos, `line longer than ${MAX_LINE} bytes`);
      if (!eof) {
        this.need = end - pos + 1;
        return 0;
      }
      newline = end;
    } else if (newline > limit) {
      throw new DecodeFault('recordTooLarge', pos, `line longer than ${MAX_LINE} bytes`, newline + 1);
    }
    const next = Math.min(end, newline + 1);
    try {
      const frame = this.parser.parse(buf, pos, newline);
      if (frame) out.push(frame);
    } catch (error) {
      if (error instanceof DecodeFault) throw new DecodeFault(error.kind, error.position, error.message, next);
      throw error;
    }
    return next - pos;
  }
}
