// The fuzz tests' corpus: the public sample captures (CSIKit, ESP32-CSI-Tool; test-fixtures/README.md)
// and variants built from them, one per format the readers know.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decodeCapture, encodeRecording, type CaptureFormat } from '../index.js';
import type { CsiFrame } from '@wiflow/core';
import { DETECT_HEAD_BYTES } from './detect.js';
import { pcapngBlock, pcapngPreamble } from './pcapng.test-support.js';
import { createDecoder } from './registry.js';

const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);

/** One capture of the corpus: a name, its bytes, and the format it is in. */
export interface FuzzSeed {
  name: string;
  bytes: Buffer;
}

/** Every format's seed capture, small enough that a decode takes about a millisecond. */
export function fuzzCorpus(): FuzzSeed[] {
  const intel = readFileSync(file('intel/log.all_csi.6.7.6.dat'));
  return [
    { name: 'intel', bytes: intel },
    { name: 'atheros', bytes: readFileSync(file('atheros/example_bigEndian.dat')) },
    { name: 'esp32', bytes: readFileSync(file('esp32/example_data.csv')) },
    { name: 'nexmon-4358', bytes: readFileSync(file('nexmon/example_4358.pcap')) },
    // The first ~20 packets: the same structure at a fraction of the cost per mutation.
    { name: 'nexmon-4366c0', bytes: firstRecords(readFileSync(file('nexmon/example_4366c0.pcap')), 24, (b, p) => 16 + b.readUInt32LE(p + 8), 20) },
    { name: 'picoscenes', bytes: firstRecords(readFileSync(file('picoscenes/picoscenes_iwl5300_example.csi')), 0, (b, p) => 4 + b.readUInt32LE(p), 20) },
    { name: 'wiflow', bytes: encodeRecording(decodeCapture(intel).frames.slice(0, 10)) },
    { name: 'nexmon-pcapng', bytes: pcapToPcapng(readFileSync(file('nexmon/example_4358.pcap'))) },
    { name: 'esp-csi', bytes: toEspCsi(readFileSync(file('esp32/example_data.csv'), 'latin1')) },
  ];
}

/** The format each seed is in. */
export function forced(name: string): CaptureFormat {
  const formats: Record<string, CaptureFormat> = { intel: 'intel5300', atheros: 'atheros', esp32: 'esp32-csi-tool', 'nexmon-4358': 'nexmon-pcap', 'nexmon-4366c0': 'nexmon-pcap', picoscenes: 'picoscenes', wiflow: 'wiflow', 'nexmon-pcapng': 'nexmon-pcapng', 'esp-csi': 'esp-csi' };
  return formats[name];
}

/** Where each record (and the file header) of a clean capture starts, as its decoder consumes them, plus the end. */
export function recordStarts(bytes: Buffer, format: CaptureFormat): number[] {
  const decoder = createDecoder(format, bytes.subarray(0, DETECT_HEAD_BYTES), { sourceId: 'seed', receiverId: 'seed', baseTime: 0, provenance: 'replay', chip: 'auto', nullSubcarriers: 'drop', esp32Field: 'auto', esp32FirstWordInvalid: true });
  const starts = [0];
  const out: CsiFrame[] = [];
  for (let pos = 0; pos < bytes.length; ) {
    const consumed = decoder.decode(bytes, pos, bytes.length, true, out);
    if (consumed <= 0) break;
    pos += consumed;
    starts.push(pos);
  }
  return starts;
}

/** The header and the first `count` records of a capture (cut at a record boundary). */
function firstRecords(bytes: Buffer, header: number, length: (bytes: Buffer, at: number) => number, count: number): Buffer {
  let end = header;
  for (let i = 0; i < count && end < bytes.length; i++) end += length(bytes, end);
  return bytes.subarray(0, end);
}

/** The packets of a little-endian pcap as a pcapng (section header, one interface, enhanced packet blocks). */
function pcapToPcapng(pcap: Buffer): Buffer {
  const parts = pcapngPreamble();
  for (let p = 24; p + 16 <= pcap.length; ) {
    const length = pcap.readUInt32LE(p + 8);
    const epb = Buffer.alloc(20);
    epb.writeUInt32LE(pcap.readUInt32LE(p), 8);
    epb.writeUInt32LE(length, 12);
    epb.writeUInt32LE(length, 16);
    parts.push(pcapngBlock(6, Buffer.concat([epb, pcap.subarray(p + 16, p + 16 + length)])));
    p += 16 + length;
  }
  return Buffer.concat(parts);
}

/** ESP32-CSI-Tool rows rewritten as esp-csi csv_recv rows (quoted, comma-separated data). */
function toEspCsi(text: string): Buffer {
  const rows = text.split('\n').filter((l) => l.startsWith('CSI_DATA')).map((line, i) => {
    const c = line.split(',');
    const values = line.slice(line.indexOf('[') + 1, line.indexOf(']')).trim().split(/\s+/);
    return ['CSI_DATA', String(i), ...c.slice(2, 22), c[24], '1', `"[${values.join(',')}]"`].join(',');
  });
  return Buffer.from(['type,id,mac,rssi,rate,sig_mode,mcs,bandwidth,smoothing,not_sounding,aggregation,stbc,fec_coding,sgi,noise_floor,ampdu_cnt,channel,secondary_channel,local_timestamp,ant,sig_len,rx_state,len,first_word,data', ...rows].join('\n'));
}
