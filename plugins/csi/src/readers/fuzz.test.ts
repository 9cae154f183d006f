import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { mulberry32 } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { CsiParseError, decodeCapture, encodeRecording, type CaptureFormat } from '../index.js';
import { pcapngBlock, pcapngPreamble } from './pcapng.test-support.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);
const MUTATIONS = 10_000;
const SEED = Number(process.env.WIFLOW_FUZZ_SEED ?? 0x5eed);

type Mutation = 'bitflip' | 'truncate' | 'length-lie' | 'random-bytes' | 'splice' | 'zero-run';
const MUTATION_KINDS: Mutation[] = ['bitflip', 'truncate', 'length-lie', 'random-bytes', 'splice', 'zero-run'];

function mutate(source: Buffer, kind: Mutation, rnd: () => number): Buffer {
  const int = (n: number) => Math.floor(rnd() * n);
  const out = Buffer.from(source);
  switch (kind) {
    case 'bitflip': {
      const flips = 1 + int(8);
      for (let i = 0; i < flips; i++) out[int(out.length)] ^= 1 << int(8);
      return out;
    }
    case 'truncate':
      return out.subarray(0, int(out.length));
    case 'length-lie': {
      // Overwrite a 16- or 32-bit field with an extreme or off-by-some value, where length fields live.
      const at = int(Math.max(1, out.length - 4));
      const values = [0, 1, 0xffff, 0xffffffff, 0x7fffffff, out.length, out.length + 1, int(65536)];
      const value = values[int(values.length)];
      if (rnd() < 0.5) out.writeUInt16LE(value & 0xffff, at);
      else out.writeUInt32BE(value >>> 0, at);
      return out;
    }
    case 'random-bytes': {
      const start = int(out.length);
      const count = 1 + int(64);
      for (let i = start; i < Math.min(out.length, start + count); i++) out[i] = int(256);
      return out;
    }
    case 'splice': {
      const from = int(out.length);
      const to = int(out.length);
      const length = int(512);
      return Buffer.concat([out.subarray(0, to), source.subarray(from, from + length), out.subarray(to)]);
    }
    case 'zero-run': {
      const start = int(out.length);
      out.fill(0, start, Math.min(out.length, start + 1 + int(32)));
      return out;
    }
  }
}

describe('fuzz', () => {
  it(`${MUTATIONS} mutations of the real captures give frames or typed errors, and always terminate`, () => {
    const intel = readFileSync(file('intel/log.all_csi.6.7.6.dat'));
    const corpus: { name: string; bytes: Buffer; format?: CaptureFormat }[] = [
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
    for (const base of corpus) {
      const clean = decodeCapture(base.bytes);
      expect(clean.error, base.name).toBeNull();
      expect(clean.format, base.name).toBe(forced(base.name));
      expect(clean.frames.length, base.name).toBeGreaterThan(0);
    }
    // Seeded, so a failure can be replayed from its seed.
    const rnd = mulberry32(SEED);
    const counts = { frames: 0, errors: 0, clean: 0 };
    const codes = new Map<string, number>();
    let slowest = 0;
    const started = performance.now();
    for (let i = 0; i < MUTATIONS; i++) {
      const base = corpus[i % corpus.length];
      const kind = MUTATION_KINDS[Math.floor(rnd() * MUTATION_KINDS.length)];
      const input = mutate(base.bytes, kind, rnd);
      // Half the runs detect the format, half force the original one (so the decoder, not detection, meets the damage).
      const t0 = performance.now();
      let result;
      try {
        result = decodeCapture(input, { name: `${base.name}#${i}:${kind}`, format: i % 2 ? forced(base.name) : undefined, onError: i % 3 === 0 ? 'skip' : 'throw' });
      } catch (error) {
        throw new Error(`mutation ${i} (${base.name}, ${kind}, seed ${SEED}) threw instead of returning: ${(error as Error).stack}`);
      }
      const took = performance.now() - t0;
      slowest = Math.max(slowest, took);
      if (took > 2000) throw new Error(`mutation ${i} (${base.name}, ${kind}, seed ${SEED}) took ${took} ms`);
      if (result.error) {
        const e = result.error;
        if (!(e instanceof CsiParseError) || e.message.includes('internal decoder error') || !Number.isInteger(e.offset) || e.offset < 0 || e.offset > input.length) {
          throw new Error(`mutation ${i} (${base.name}, ${kind}, seed ${SEED}) gave a bad error: ${e.stack}`);
        }
        codes.set(result.error.code, (codes.get(result.error.code) ?? 0) + 1);
        counts.errors++;
      } else {
        counts.clean++;
      }
      for (const skipped of result.skipped) if (skipped.message.includes('internal decoder error')) throw new Error(`mutation ${i}: ${skipped.message}`);
      for (const frame of result.frames) {
        const n = frame.ntx * frame.nrx * frame.nsc;
        // Plain checks here: an expect() per frame would dominate the run time.
        if (frame.csi.re.length !== n || frame.csi.im.length !== n || frame.subcarriers.length !== frame.nsc) {
          throw new Error(`mutation ${i} (${base.name}, ${kind}, seed ${SEED}) gave a frame whose arrays do not match ${frame.ntx}×${frame.nrx}×${frame.nsc}`);
        }
        counts.frames++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`fuzz: ${MUTATIONS} mutations in ${seconds.toFixed(1)} s (slowest ${slowest.toFixed(1)} ms), ${counts.frames} frames, ${counts.errors} typed errors, ${counts.clean} clean; codes ${JSON.stringify(Object.fromEntries(codes))}`);
    expect(counts.errors).toBeGreaterThan(MUTATIONS / 10);
    expect(counts.frames).toBeGreaterThan(MUTATIONS);
  });
});

function forced(name: string): CaptureFormat {
  const formats: Record<string, CaptureFormat> = { intel: 'intel5300', atheros: 'atheros', esp32: 'esp32-csi-tool', 'nexmon-4358': 'nexmon-pcap', 'nexmon-4366c0': 'nexmon-pcap', picoscenes: 'picoscenes', wiflow: 'wiflow', 'nexmon-pcapng': 'nexmon-pcapng', 'esp-csi': 'esp-csi' };
  return formats[name];
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
