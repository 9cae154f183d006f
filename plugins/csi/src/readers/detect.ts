import type { CaptureFormat } from './decoder.js';
import { INTEL_BFEE_CODE, intelPayloadLength } from './intel5300.js';
import { WIFLOW_RECORDING_MAGIC } from '../recording/format.js';

/** How many leading bytes `detectFormat` looks at (give it at least this many when the file has them). */
export const DETECT_HEAD_BYTES = 65536;

/** Atheros header layout found by detection: where records start and the byte orders. */
export interface AtherosLayout {
  /** 1 when the file starts with the 0xFF big-endian marker byte. */
  start: number;
  /** Byte order of the 25-byte record header. */
  littleEndian: boolean;
  /** Byte order of the u16 record length. */
  lengthLittleEndian: boolean;
}

/** Atheros record header fields. */
export interface AtherosHeader {
  fieldLength: number;
  /** Device timestamp (µs; exact below 2^53). */
  timestamp: number;
  csiLength: number;
  channel: number;
  errInfo: number;
  noiseFloor: number;
  rate: number;
  bandwidth: number;
  numTones: number;
  nr: number;
  nc: number;
  rssi: number;
  rssi0: number;
  rssi1: number;
  rssi2: number;
  payloadLength: number;
}

/** Read an Atheros record header at `pos` (needs 27 bytes); null when they are not there. */
export function readAtherosHeader(buf: Uint8Array, pos: number, end: number, layout: AtherosLayout): AtherosHeader | null {
  if (end - pos < 27) return null;
  const le = layout.littleEndian;
  const u16 = (at: number, little: boolean) => (little ? buf[at] | (buf[at + 1] << 8) : (buf[at] << 8) | buf[at + 1]);
  const u32 = (at: number) => (le ? (buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24)) >>> 0 : ((buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) >>> 0);
  const h = pos + 2;
  const timestamp = le ? u32(h + 4) * 4294967296 + u32(h) : u32(h) * 4294967296 + u32(h + 4);
  return {
    fieldLength: u16(pos, layout.lengthLittleEndian),
    timestamp,
    csiLength: u16(h + 8, le),
    channel: u16(h + 10, le),
    errInfo: buf[h + 12],
    noiseFloor: buf[h + 13],
    rate: buf[h + 14],
    bandwidth: buf[h + 15],
    numTones: buf[h + 16],
    nr: buf[h + 17],
    nc: buf[h + 18],
    rssi: buf[h + 19],
    rssi0: buf[h + 20],
    rssi1: buf[h + 21],
    rssi2: buf[h + 22],
    payloadLength: u16(h + 23, le),
  };
}

/** Whether an Atheros header is self-consistent (lengths add up, counts in range). */
export function atherosHeaderConsistent(header: AtherosHeader): boolean {
  const { nr, nc, numTones, csiLength, fieldLength, payloadLength } = header;
  if (nr < 1 || nr > 3 || nc < 1 || nc > 3) return false;
  if (numTones !== 56 && numTones !== 114) return false;
  if (csiLength !== 0 && csiLength !== Math.ceil((nr * nc * numTones * 20) / 8)) return false;
  return fieldLength === 25 + csiLength + payloadLength;
}

/** Find the Atheros layout that makes the first record consistent; null when none does. */
export function detectAtherosLayout(head: Uint8Array): AtherosLayout | null {
  const candidates: AtherosLayout[] = [];
  if (head[0] === 0xff) candidates.push({ start: 1, littleEndian: false, lengthLittleEndian: false });
  candidates.push(
    { start: 0, littleEndian: true, lengthLittleEndian: true },
    { start: 0, littleEndian: true, lengthLittleEndian: false },
    { start: 0, littleEndian: false, lengthLittleEndian: false },
  );
  for (const layout of candidates) {
    const header = readAtherosHeader(head, layout.start, head.length, layout);
    if (header && atherosHeaderConsistent(header)) return layout;
  }
  return null;
}

function looksLikeIntel(head: Uint8Array): boolean {
  let pos = 0;
  let valid = 0;
  let records = 0;
  while (pos + 3 <= head.length && records < 8) {
    const fieldLength = (head[pos] << 8) | head[pos + 1];
    if (fieldLength < 1) return false;
    const code = head[pos + 2];
    if (records === 0 && code !== INTEL_BFEE_CODE) return false;
    if (code === INTEL_BFEE_CODE && pos + 3 + 20 <= head.length) {
      const body = pos + 3;
      const nrx = head[body + 8];
      const ntx = head[body + 9];
      const len = head[body + 16] | (head[body + 17] << 8);
      if (nrx >= 1 && nrx <= 3 && ntx >= 1 && ntx <= 3 && len === intelPayloadLength(nrx, ntx) && 20 + len <= fieldLength - 1) valid++;
    }
    records++;
    pos += 2 + fieldLength;
  }
  return valid > 0 && valid * 2 >= records;
}

/** Text column layouts of the ESP32 CSV formats. */
export type Esp32CsvLayout = 'csi-tool' | 'esp-csi' | 'esp-csi-short';

/** Columns before the CSI data field, by layout. */
export const ESP32_COLUMNS_BEFORE_DATA: Record<Esp32CsvLayout, number> = { 'csi-tool': 25, 'esp-csi': 24, 'esp-csi-short': 14 };

/** Which ESP32 CSV layout a header or data line has; null when it is neither. */
export function esp32LayoutOfLine(line: string): Esp32CsvLayout | null {
  const trimmed = line.trim();
  if (trimmed.startsWith('type,')) {
    const columns = trimmed.split(',');
    if (columns.includes('role') || columns.includes('real_time_set')) return 'csi-tool';
    if (columns[1] === 'seq' || columns.length === 15) return 'esp-csi-short';
    if (columns.includes('first_word') || columns[1] === 'id') return 'esp-csi';
    return null;
  }
  if (!trimmed.startsWith('CSI_DATA')) return null;
  const bracket = trimmed.indexOf('[');
  if (bracket < 0) return null;
  // Commas before the data field = columns before it (the data may be quoted: `,"[...]"`).
  const before = trimmed.slice(0, bracket).split(',').length - 1;
  if (before === 25) return 'csi-tool';
  if (before === 24) return 'esp-csi';
  if (before === 14) return 'esp-csi-short';
  return null;
}

function looksLikeText(head: Uint8Array): boolean {
  const n = Math.min(head.length, 4096);
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b === 9 || b === 10 || b === 13) continue;
    if (b < 32 || b > 126) return false;
  }
  return n > 0;
}

/** The ESP32 layout of a text head: the first header or data line decides. */
export function detectEsp32Layout(head: Uint8Array): Esp32CsvLayout | null {
  if (!looksLikeText(head)) return null;
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, DETECT_HEAD_BYTES)).toString('latin1');
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && i < 50; i++) {
    if (i === lines.length - 1 && head.length >= DETECT_HEAD_BYTES) break;
    const layout = esp32LayoutOfLine(lines[i]);
    if (layout) return layout;
  }
  return null;
}

/**
 * The capture format of some content, judged from its first bytes (pass the first
 * `DETECT_HEAD_BYTES`, or the whole content when shorter). Null when nothing matches.
 */
export function detectFormat(head: Uint8Array): CaptureFormat | null {
  if (head.length >= WIFLOW_RECORDING_MAGIC.length && WIFLOW_RECORDING_MAGIC.every((b, i) => head[i] === b)) return 'wiflow';
  if (head.length >= 11 && head[4] === 0x15 && head[5] === 0x03 && head[6] === 0x15 && head[7] === 0x20) return 'picoscenes';
  if (head.length >= 24) {
    const magic = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
    if (magic === 0xd4c3b2a1 || magic === 0xa1b2c3d4 || magic === 0x4d3cb2a1 || magic === 0xa1b23c4d) return 'nexmon-pcap';
    if (magic === 0x0a0d0d0a) return 'nexmon-pcapng';
  }
  if (looksLikeIntel(head)) return 'intel5300';
  if (detectAtherosLayout(head)) return 'atheros';
  const esp = detectEsp32Layout(head);
  if (esp === 'csi-tool') return 'esp32-csi-tool';
  if (esp) return 'esp-csi';
  return null;
}
