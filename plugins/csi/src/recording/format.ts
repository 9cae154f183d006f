import { open, type FileHandle } from 'node:fs/promises';
import type { CsiFrame, GroundTruthFrame, Provenance } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { FrameDecoder } from '../readers/decoder.js';

/** First 8 bytes of a wiflow recording (`.wfr`): 0x89 'W' 'F' 'R' CR LF 0x1A LF. */
export const WIFLOW_RECORDING_MAGIC = [0x89, 0x57, 0x46, 0x52, 0x0d, 0x0a, 0x1a, 0x0a] as const;
/** Recording format version written by this package. */
export const WIFLOW_RECORDING_VERSION = 1;
/** Record types. */
export const RecordType = { frame: 1, truth: 2, subcarriers: 3 } as const;

const FLAG_SCALED = 1;
const FLAG_RSSI = 2;
const FLAG_NOISE = 4;
const FLAG_AGC = 8;
const FLAG_SEQUENCE = 16;
const FLAG_EXTRA = 32;
const FLAG_INT16 = 64;
const PROVENANCE: Provenance[] = ['live', 'replay', 'simulated'];
const MAX_RECORD = 16 * 1024 * 1024;

/** Metadata in a recording's header. */
export interface RecordingMetadata {
  /** ISO time the recording was created. */
  created?: string;
  /** What produced it: a device, a file, the simulator. */
  source?: string;
  [key: string]: unknown;
}

function isInt16Exact(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== Math.trunc(v) || v < -32768 || v > 32767 || (v === 0 && 1 / v < 0)) return false;
  }
  return true;
}

/** Encodes frames and truth into records (reusing one growable buffer). */
export class RecordingEncoder {
  #buf = Buffer.allocUnsafe(64 * 1024);
  #at = 0;
  #setsByArray = new WeakMap<Int16Array, number>();
  #setsByKey = new Map<string, number>();

  /** Id of a subcarrier set, writing its definition record the first time it is seen. */
  #subcarrierSet(subcarriers: Int16Array): number {
    const known = this.#setsByArray.get(subcarriers);
    if (known !== undefined) return known;
    const key = subcarriers.join(',');
    let id = this.#setsByKey.get(key);
    if (id === undefined) {
      id = this.#setsByKey.size;
      if (id > 0xffff) throw new DecodeFault('malformed', 0, 'more than 65536 distinct subcarrier sets in one recording');
      this.#setsByKey.set(key, id);
      this.#reserve(9 + 2 * subcarriers.length);
      const b = this.#buf;
      b[this.#at] = RecordType.subcarriers;
      b.writeUInt32LE(4 + 2 * subcarriers.length, this.#at + 1);
      b.writeUInt16LE(id, this.#at + 5);
      b.writeUInt16LE(subcarriers.length, this.#at + 7);
      let p = this.#at + 9;
      for (let i = 0; i < subcarriers.length; i++, p += 2) b.writeInt16LE(subcarriers[i], p);
      this.#at = p;
    }
    this.#setsByArray.set(subcarriers, id);
    return id;
  }

  /** Bytes encoded and not yet taken. */
  get length(): number {
    return this.#at;
  }

  /** Take the encoded bytes (a copy) and reset. */
  take(): Buffer {
    const out = Buffer.from(this.#buf.subarray(0, this.#at));
    this.#at = 0;
    return out;
  }

  #reserve(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + n));
    this.#buf.copy(bigger, 0, 0, this.#at);
    this.#buf = bigger;
  }

  /** The file header: magic, version, flags, metadata JSON. */
  header(metadata: RecordingMetadata): void {
    const json = Buffer.from(JSON.stringify(metadata), 'utf8');
    this.#reserve(16 + json.length);
    for (let i = 0; i < 8; i++) this.#buf[this.#at + i] = WIFLOW_RECORDING_MAGIC[i];
    this.#buf.writeUInt16LE(WIFLOW_RECORDING_VERSION, this.#at + 8);
    this.#buf.writeUInt16LE(0, this.#at + 10);
    this.#buf.writeUInt32LE(json.length, this.#at + 12);
    json.copy(this.#buf, this.#at + 16);
    this.#at += 16 + json.length;
  }

  /** A ground-truth record; it attaches to the next frame record. */
  truth(truth: GroundTruthFrame): void {
    const json = Buffer.from(JSON.stringify(truth), 'utf8');
    this.#reserve(5 + json.length);
    this.#buf[this.#at] = RecordType.truth;
    this.#buf.writeUInt32LE(json.length, this.#at + 1);
    json.copy(this.#buf, this.#at + 5);
    this.#at += 5 + json.length;
  }

  /** A frame record (preceded by a truth record when the frame carries truth). */
  frame(frame: CsiFrame): void {
    if (frame.truth) this.truth(frame.truth);
    const setId = this.#subcarrierSet(frame.subcarriers);
    const n = frame.ntx * frame.nrx * frame.nsc;
    if (frame.csi.re.length !== n || frame.csi.im.length !== n || frame.subcarriers.length !== frame.nsc) {
      throw new DecodeFault('malformed', 0, `frame arrays do not match ntx × nrx × nsc = ${n}`);
    }
    const strings = [frame.format, frame.sourceId, frame.link.tx, frame.link.rx].map((s) => Buffer.from(s, 'utf8'));
    const extra = frame.extra ? Buffer.from(JSON.stringify(frame.extra), 'utf8') : null;
    const int16 = isInt16Exact(frame.csi.re) && isInt16Exact(frame.csi.im);
    let flags = int16 ? FLAG_INT16 : 0;
    if (frame.scaled) flags |= FLAG_SCALED;
    if (frame.rssi) flags |= FLAG_RSSI;
    if (frame.noiseDbm !== undefined) flags |= FLAG_NOISE;
    if (frame.agc !== undefined) flags |= FLAG_AGC;
    if (frame.sequence !== undefined) flags |= FLAG_SEQUENCE;
    if (extra) flags |= FLAG_EXTRA;
    const rssiCount = frame.rssi ? Math.min(255, frame.rssi.length) : 0;
    const size = 38 + strings.reduce((s, b) => s + 2 + b.length, 0) + 2 + n * (int16 ? 4 : 8) + (frame.scaled ? 8 * n : 0) + (frame.rssi ? 1 + 4 * rssiCount : 0) + (frame.noiseDbm !== undefined ? 4 : 0) + (frame.agc !== undefined ? 4 : 0) + (frame.sequence !== undefined ? 8 : 0) + (extra ? 4 + extra.length : 0);
    this.#reserve(5 + size);
    const b = this.#buf;
    let p = this.#at;
    b[p] = RecordType.frame;
    b.writeUInt32LE(size, p + 1);
    p += 5;
    b.writeDoubleLE(frame.timestamp, p);
    b.writeDoubleLE(frame.time, p + 8);
    b.writeDoubleLE(frame.centerFrequencyHz ?? Number.NaN, p + 16);
    b.writeDoubleLE(frame.bandwidthHz ?? Number.NaN, p + 24);
    b[p + 32] = frame.ntx;
    b[p + 33] = frame.nrx;
    b.writeUInt16LE(frame.nsc, p + 34);
    b[p + 36] = flags;
    b[p + 37] = Math.max(0, PROVENANCE.indexOf(frame.provenance));
    p += 38;
    for (const s of strings) {
      b.writeUInt16LE(s.length, p);
      s.copy(b, p + 2);
      p += 2 + s.length;
    }
    b.writeUInt16LE(setId, p);
    p += 2;
    if (int16) {
      for (let i = 0; i < n; i++, p += 2) b.writeInt16LE(frame.csi.re[i], p);
      for (let i = 0; i < n; i++, p += 2) b.writeInt16LE(frame.csi.im[i], p);
    } else {
      p = writeFloats(b, p, frame.csi.re);
      p = writeFloats(b, p, frame.csi.im);
    }
    if (frame.scaled) {
      p = writeFloats(b, p, frame.scaled.re);
      p = writeFloats(b, p, frame.scaled.im);
    }
    if (frame.rssi) {
      b[p++] = rssiCount;
      for (let i = 0; i < rssiCount; i++, p += 4) b.writeFloatLE(frame.rssi[i], p);
    }
    if (frame.noiseDbm !== undefined) { b.writeFloatLE(frame.noiseDbm, p); p += 4; }
    if (frame.agc !== undefined) { b.writeFloatLE(frame.agc, p); p += 4; }
    if (frame.sequence !== undefined) { b.writeDoubleLE(frame.sequence, p); p += 8; }
    if (extra) {
      b.writeUInt32LE(extra.length, p);
      extra.copy(b, p + 4);
      p += 4 + extra.length;
    }
    this.#at = p;
  }
}

function writeFloats(b: Buffer, p: number, values: Float32Array): number {
  for (let i = 0; i < values.length; i++, p += 4) b.writeFloatLE(values[i], p);
  return p;
}

/** Encode a whole recording in memory. */
export function encodeRecording(frames: Iterable<CsiFrame>, metadata: RecordingMetadata = {}): Buffer {
  const encoder = new RecordingEncoder();
  encoder.header({ created: new Date().toISOString(), ...metadata });
  for (const frame of frames) encoder.frame(frame);
  return encoder.take();
}

/** Writes a recording file incrementally (buffered; call `close` to flush). */
export class RecordingWriter {
  #encoder = new RecordingEncoder();
  #handle: FileHandle;
  #pending: Promise<void> = Promise.resolve();
  /** Frames written. */
  frames = 0;
  /** Bytes written to the file so far. */
  bytes = 0;

  private constructor(handle: FileHandle, metadata: RecordingMetadata) {
    this.#handle = handle;
    this.#encoder.header({ created: new Date().toISOString(), ...metadata });
  }

  /** Create (or truncate) a recording file. */
  static async create(path: string, metadata: RecordingMetadata = {}): Promise<RecordingWriter> {
    return new RecordingWriter(await open(path, 'w'), metadata);
  }

  /** Append a frame (and its truth, when it has one); flushes every 256 KiB. */
  async write(frame: CsiFrame): Promise<void> {
    this.#encoder.frame(frame);
    this.frames++;
    if (this.#encoder.length >= 256 * 1024) await this.flush();
  }

  /** Append a standalone ground-truth record (it attaches to the next frame). */
  async writeTruth(truth: GroundTruthFrame): Promise<void> {
    this.#encoder.truth(truth);
    if (this.#encoder.length >= 256 * 1024) await this.flush();
  }

  /** Write buffered records to the file. */
  async flush(): Promise<void> {
    const bytes = this.#encoder.take();
    this.#pending = this.#pending.then(async () => {
      if (bytes.length) await this.#handle.write(bytes);
      this.bytes += bytes.length;
    });
    await this.#pending;
  }

  /** Flush and close the file. */
  async close(): Promise<void> {
    await this.flush();
    await this.#handle.close();
  }
}

/** Reads wiflow recordings; truth records attach to the frame that follows them. */
export class RecordingDecoder implements FrameDecoder {
  readonly format = 'wiflow' as const;
  need = 16;
  /** The recording's header metadata, once read. */
  metadata: RecordingMetadata | null = null;
  #truth: GroundTruthFrame | undefined;
  #sets = new Map<number, Int16Array>();
  #onTruth: ((truth: GroundTruthFrame) => void) | undefined;

  constructor(onTruth?: (truth: GroundTruthFrame) => void) {
    this.#onTruth = onTruth;
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    if (!this.metadata) {
      if (end - pos < 16) return this.#more(16, eof, pos, 'recording header');
      for (let i = 0; i < 8; i++) if (buf[pos + i] !== WIFLOW_RECORDING_MAGIC[i]) throw new DecodeFault('malformed', pos + i, 'not a wiflow recording (bad magic)');
      const version = buf.readUInt16LE(pos + 8);
      if (version !== WIFLOW_RECORDING_VERSION) throw new DecodeFault('unsupported', pos + 8, `recording version ${version} (this reader knows ${WIFLOW_RECORDING_VERSION})`);
      const jsonLength = buf.readUInt32LE(pos + 12);
      if (jsonLength > MAX_RECORD) throw new DecodeFault('recordTooLarge', pos + 12, `header metadata claims ${jsonLength} bytes`);
      if (end - pos < 16 + jsonLength) return this.#more(16 + jsonLength, eof, pos, 'recording header');
      this.metadata = parseJson(buf, pos + 16, jsonLength, 'header metadata') as RecordingMetadata;
      return 16 + jsonLength;
    }
    if (end - pos < 5) return this.#more(5, eof, pos, 'record header');
    const type = buf[pos];
    const length = buf.readUInt32LE(pos + 1);
    if (length > MAX_RECORD) throw new DecodeFault('recordTooLarge', pos + 1, `record claims ${length} bytes`);
    const total = 5 + length;
    if (end - pos < total) return this.#more(total, eof, pos, 'record');
    if (type === RecordType.truth) {
      const truth = parseJson(buf, pos + 5, length, 'truth record', pos + total) as GroundTruthFrame;
      this.#truth = truth;
      this.#onTruth?.(truth);
    } else if (type === RecordType.subcarriers) {
      if (length < 4) throw new DecodeFault('malformed', pos + 5, 'subcarrier set record too short', pos + total);
      const count = buf.readUInt16LE(pos + 7);
      if (length !== 4 + 2 * count) throw new DecodeFault('malformed', pos + 7, `subcarrier set of ${count} indices in a ${length}-byte record`, pos + total);
      const set = new Int16Array(count);
      for (let i = 0; i < count; i++) set[i] = buf.readInt16LE(pos + 9 + 2 * i);
      this.#sets.set(buf.readUInt16LE(pos + 5), set);
    } else if (type === RecordType.frame) {
      out.push(this.#frame(buf, pos + 5, pos + total));
    } else {
      throw new DecodeFault('malformed', pos, `unknown record type ${type}`, pos + total);
    }
    return total;
  }

  #stringBytes: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)];
  #strings = ['', '', '', ''];

  /** String field `slot`, decoded only when its bytes differ from the previous frame's. */
  #string(slot: number, buf: Buffer, at: number, length: number): string {
    const last = this.#stringBytes[slot];
    if (last.length === length) {
      let same = true;
      for (let i = 0; i < length && same; i++) same = last[i] === buf[at + i];
      if (same) return this.#strings[slot];
    }
    this.#stringBytes[slot] = Buffer.from(buf.subarray(at, at + length));
    this.#strings[slot] = buf.toString('utf8', at, at + length);
    return this.#strings[slot];
  }

  #frame(buf: Buffer, start: number, end: number): CsiFrame {
    let p = start;
    const need = (n: number) => {
      if (p + n > end) throw new DecodeFault('malformed', p, 'frame record ends early', end);
    };
    need(38);
    const timestamp = buf.readDoubleLE(p);
    const time = buf.readDoubleLE(p + 8);
    const centre = buf.readDoubleLE(p + 16);
    const bandwidth = buf.readDoubleLE(p + 24);
    const ntx = buf[p + 32];
    const nrx = buf[p + 33];
    const nsc = buf.readUInt16LE(p + 34);
    const flags = buf[p + 36];
    const provenance = PROVENANCE[buf[p + 37]];
    if (!provenance) throw new DecodeFault('malformed', p + 37, `unknown provenance code ${buf[p + 37]}`, end);
    p += 38;
    const strings: string[] = [];
    for (let i = 0; i < 4; i++) {
      need(2);
      const length = buf[p] | (buf[p + 1] << 8);
      need(2 + length);
      strings.push(this.#string(i, buf, p + 2, length));
      p += 2 + length;
    }
    const n = ntx * nrx * nsc;
    need(2);
    const subcarriers = this.#sets.get(buf.readUInt16LE(p));
    if (!subcarriers || subcarriers.length !== nsc) throw new DecodeFault('malformed', p, `frame refers to subcarrier set ${buf.readUInt16LE(p)}, which is undefined or not ${nsc} long`, end);
    p += 2;
    // Check that the record holds the claimed values before allocating them: the counts are
    // the record's own bytes, so a lie must cost no more than the record does.
    need((flags & FLAG_INT16 ? 4 : 8) * n + (flags & FLAG_SCALED ? 8 * n : 0));
    const both = new Float32Array(2 * n);
    const re = both.subarray(0, n);
    const im = both.subarray(n);
    if (flags & FLAG_INT16) {
      for (let i = 0; i < n; i++, p += 2) re[i] = ((buf[p] | (buf[p + 1] << 8)) << 16) >> 16;
      for (let i = 0; i < n; i++, p += 2) im[i] = ((buf[p] | (buf[p + 1] << 8)) << 16) >> 16;
    } else {
      for (let i = 0; i < n; i++, p += 4) re[i] = buf.readFloatLE(p);
      for (let i = 0; i < n; i++, p += 4) im[i] = buf.readFloatLE(p);
    }
    const frame: CsiFrame = {
      timestamp,
      time,
      sourceId: strings[1],
      link: { tx: strings[2], rx: strings[3] },
      centerFrequencyHz: Number.isNaN(centre) ? null : centre,
      bandwidthHz: Number.isNaN(bandwidth) ? null : bandwidth,
      subcarriers,
      ntx,
      nrx,
      nsc,
      csi: { re, im },
      format: strings[0],
      provenance,
    };
    if (flags & FLAG_SCALED) {
      const sre = new Float32Array(n);
      const sim = new Float32Array(n);
      for (let i = 0; i < n; i++, p += 4) sre[i] = buf.readFloatLE(p);
      for (let i = 0; i < n; i++, p += 4) sim[i] = buf.readFloatLE(p);
      frame.scaled = { re: sre, im: sim };
    }
    if (flags & FLAG_RSSI) {
      need(1);
      const count = buf[p++];
      need(4 * count);
      frame.rssi = [];
      for (let i = 0; i < count; i++, p += 4) frame.rssi.push(buf.readFloatLE(p));
    }
    if (flags & FLAG_NOISE) { need(4); frame.noiseDbm = buf.readFloatLE(p); p += 4; }
    if (flags & FLAG_AGC) { need(4); frame.agc = buf.readFloatLE(p); p += 4; }
    if (flags & FLAG_SEQUENCE) { need(8); frame.sequence = buf.readDoubleLE(p); p += 8; }
    if (flags & FLAG_EXTRA) {
      need(4);
      const length = buf.readUInt32LE(p);
      need(4 + length);
      frame.extra = parseJson(buf, p + 4, length, 'frame extra', end) as Record<string, unknown>;
      p += 4 + length;
    }
    if (p !== end) throw new DecodeFault('malformed', p, `frame record has ${end - p} unexplained bytes`, end);
    if (this.#truth) {
      frame.truth = this.#truth;
      this.#truth = undefined;
    }
    return frame;
  }

  #more(total: number, eof: boolean, pos: number, what: string): number {
    if (eof) throw new DecodeFault('truncated', pos, `${what} cut short (needs ${total} bytes)`);
    this.need = total;
    return 0;
  }
}

function parseJson(buf: Buffer, at: number, length: number, what: string, resumeAt?: number): unknown {
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', at, at + length));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value;
  } catch (error) {
    throw new DecodeFault('malformed', at, `${what} is not a JSON object (${(error as Error).message})`, resumeAt);
  }
}
