import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { decodeCapture, encodeRecording, openCapture, readCapture, RecordingWriter } from '../index.js';
import { pcapngBlock, pcapngPreamble } from './pcapng.test-support.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);

/** The packets of a little-endian µs pcap: [seconds, micros, bytes]. */
function pcapPackets(pcap: Buffer): { seconds: number; micros: number; data: Buffer }[] {
  const out = [];
  for (let p = 24; p + 16 <= pcap.length; ) {
    const length = pcap.readUInt32LE(p + 8);
    out.push({ seconds: pcap.readUInt32LE(p), micros: pcap.readUInt32LE(p + 4), data: pcap.subarray(p + 16, p + 16 + length) });
    p += 16 + length;
  }
  return out;
}

function buildPcap(packets: { seconds: number; micros: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(1, 20);
  const parts: Buffer[] = [header];
  for (const p of packets) {
    const h = Buffer.alloc(16);
    h.writeUInt32LE(p.seconds, 0);
    h.writeUInt32LE(p.micros, 4);
    h.writeUInt32LE(p.data.length, 8);
    h.writeUInt32LE(p.data.length, 12);
    parts.push(h, p.data);
  }
  return Buffer.concat(parts);
}

function buildPcapng(packets: { seconds: number; micros: number; data: Buffer }[]): Buffer {
  const parts = pcapngPreamble(-1n);
  for (const p of packets) {
    const ticks = BigInt(p.seconds) * 1000000n + BigInt(p.micros);
    const epb = Buffer.alloc(20);
    epb.writeUInt32LE(Number(ticks >> 32n), 4);
    epb.writeUInt32LE(Number(ticks & 0xffffffffn), 8);
    epb.writeUInt32LE(p.data.length, 12);
    epb.writeUInt32LE(p.data.length, 16);
    parts.push(pcapngBlock(6, Buffer.concat([epb, p.data])));
    // Unrelated blocks must be passed over.
    parts.push(pcapngBlock(5, Buffer.from('statistics')));
  }
  return Buffer.concat(parts);
}

function sameFrames(a: CsiFrame[], b: CsiFrame[]) {
  expect(a.length).toBe(b.length);
  a.forEach((frame, i) => {
    expect(Array.from(frame.csi.re)).toEqual(Array.from(b[i].csi.re));
    expect(Array.from(frame.csi.im)).toEqual(Array.from(b[i].csi.im));
    expect(Array.from(frame.subcarriers)).toEqual(Array.from(b[i].subcarriers));
    expect(frame.timestamp).toBeCloseTo(b[i].timestamp, 3);
  });
}

describe('Nexmon variants', () => {
  const pcap = readFileSync(file('nexmon/example_4366c0.pcap'));

  it('pcapng with the same packets decodes to the same frames as the pcap', () => {
    const fromPcap = decodeCapture(pcap, { chip: 'bcm4366c0' });
    const pcapng = buildPcapng(pcapPackets(pcap));
    const fromPcapng = decodeCapture(pcapng, { chip: 'bcm4366c0' });
    expect(fromPcapng.format).toBe('nexmon-pcapng');
    expect(fromPcapng.error).toBeNull();
    sameFrames(fromPcapng.frames, fromPcap.frames);
  });

  it('int16 chips (bcm43455c0) decode interleaved little-endian int16, and auto picks int16 from content', () => {
    const reference = decodeCapture(pcap, { chip: 'bcm4366c0', nullSubcarriers: 'keep' }).frames.slice(0, 30);
    const packets = pcapPackets(pcap).slice(0, 30).map((p, i) => {
      const data = Buffer.from(p.data);
      const csi = 42 + 18;
      for (let k = 0; k < 256; k++) {
        data.writeInt16LE(reference[i].csi.re[k], csi + 4 * k);
        data.writeInt16LE(reference[i].csi.im[k], csi + 4 * k + 2);
      }
      return { ...p, data };
    });
    const int16 = buildPcap(packets);
    sameFrames(decodeCapture(int16, { chip: 'bcm43455c0', nullSubcarriers: 'keep' }).frames, reference);
    const auto = decodeCapture(int16, { nullSubcarriers: 'keep' }).frames;
    expect(auto[0].extra?.encoding).toBe('int16');
    sameFrames(auto, reference);
  });

  it('drops null and guard bins by default and orders tones by physical index', () => {
    const frame = decodeCapture(pcap, { chip: 'bcm4366c0' }).frames[0];
    const keep = decodeCapture(pcap, { chip: 'bcm4366c0', nullSubcarriers: 'keep' }).frames[0];
    expect(frame.nsc).toBe(242);
    const indices = Array.from(frame.subcarriers);
    expect(indices[0]).toBe(-122);
    expect(indices.at(-1)).toBe(122);
    expect(indices.includes(0) || indices.includes(1) || indices.includes(-1)).toBe(false);
    const at = indices.indexOf(5);
    expect(frame.csi.re[at]).toBe(keep.csi.re[5]);
    const negative = indices.indexOf(-5);
    expect(frame.csi.re[negative]).toBe(keep.csi.re[256 - 5]);
  });
});

describe('esp-csi CSV layouts', () => {
  const lines = readFileSync(file('esp32/example_data.csv'), 'latin1').split('\n').filter((l) => l.startsWith('CSI_DATA'));
  const tool = decodeCapture(Buffer.from(lines.join('\n'), 'latin1'), { esp32FirstWordInvalid: false }).frames;

  it('esp-csi csv_recv lines (quoted comma data, first_word column) decode like the tool lines', () => {
    const converted = lines.map((line, i) => {
      const c = line.split(',');
      const values = line.slice(line.indexOf('[') + 1, line.indexOf(']')).trim().split(/\s+/);
      return ['CSI_DATA', String(i), ...c.slice(2, 22), c[24], '0', `"[${values.join(',')}]"`].join(',');
    });
    const header = 'type,id,mac,rssi,rate,sig_mode,mcs,bandwidth,smoothing,not_sounding,aggregation,stbc,fec_coding,sgi,noise_floor,ampdu_cnt,channel,secondary_channel,local_timestamp,ant,sig_len,rx_state,len,first_word,data';
    const result = decodeCapture(Buffer.from([header, ...converted].join('\r\n') + '\r\n'));
    expect(result.format).toBe('esp-csi');
    expect(result.error).toBeNull();
    sameFrames(result.frames, tool);
    expect(result.frames[7].sequence).toBe(7);
  });

  it('ESP32-C5/C6 short lines (DC-centred order) decode to the same tones', () => {
    const converted = lines.map((line, i) => {
      const c = line.split(',');
      const values = line.slice(line.indexOf('[') + 1, line.indexOf(']')).trim().split(/\s+/);
      const centred: string[] = [];
      for (let e = 0; e < 64; e++) {
        const fft = (e + 32) % 64;
        centred.push(values[2 * fft], values[2 * fft + 1]);
      }
      return ['CSI_DATA', String(i), c[2], c[3], c[4], c[14], '0', '0', c[16], c[18], c[20], c[21], '128', '0', `"[${centred.join(',')}]"`].join(',');
    });
    const header = 'type,seq,mac,rssi,rate,noise_floor,fft_gain,agc_gain,channel,local_timestamp,sig_len,rx_state,len,first_word,data';
    const result = decodeCapture(Buffer.from([header, ...converted].join('\n')));
    expect(result.format).toBe('esp-csi');
    expect(result.error).toBeNull();
    sameFrames(result.frames, tool);
  });
});

describe('wiflow recordings', () => {
  it('round-trips every capture format exactly, with truth attached to its frame', async () => {
    for (const name of ['intel/log.all_csi.6.7.6.dat', 'atheros/example_bigEndian.dat', 'esp32/example_data.csv', 'nexmon/example_4358.pcap', 'picoscenes/picoscenes_iwl5300_example.csi']) {
      const frames = await readCapture(file(name));
      const truth: GroundTruthFrame = { time: 1, environmentId: 'lab', persons: [{ id: 1, keypoints3d: [[0, 0, 1]], position: { x: 1, y: 2 }, activity: 'walking' as never }], events: [] };
      frames[1] = { ...frames[1], truth };
      const seen: GroundTruthFrame[] = [];
      const back = decodeCapture(encodeRecording(frames, { source: name }), { onTruth: (t) => seen.push(t) });
      expect(back.format).toBe('wiflow');
      expect(back.error).toBeNull();
      expect(back.frames.length).toBe(frames.length);
      back.frames.forEach((f, i) => {
        const o = frames[i];
        expect({ ...f, csi: null, scaled: null, subcarriers: null }).toEqual({ ...o, csi: null, scaled: null, subcarriers: null, rssi: o.rssi?.map((v) => (Number.isNaN(v) ? Number.NaN : Math.fround(v))) });
        expect(Array.from(f.csi.re)).toEqual(Array.from(o.csi.re));
        expect(Array.from(f.csi.im)).toEqual(Array.from(o.csi.im));
        expect(Array.from(f.subcarriers)).toEqual(Array.from(o.subcarriers));
        if (o.scaled) expect(Array.from(f.scaled!.re)).toEqual(Array.from(o.scaled.re));
      });
      expect(back.frames[1].truth).toEqual(truth);
      expect(back.frames[0].truth).toBeUndefined();
      expect(back.frames[2].truth).toBeUndefined();
      expect(seen).toEqual([truth]);
    }
  });

  it('the streaming writer produces a file the capture reader detects and streams', async () => {
    const frames = await readCapture(file('nexmon/example_4366c0.pcap'));
    const path = join(mkdtempSync(join(tmpdir(), 'wiflow-wfr-')), 'rec.wfr');
    const writer = await RecordingWriter.create(path, { source: 'test' });
    for (const frame of frames) await writer.write(frame);
    await writer.close();
    const reader = await openCapture(path, { chunkBytes: 4096 });
    expect(reader.format).toBe('wiflow');
    const back: CsiFrame[] = [];
    for await (const frame of reader) back.push(frame);
    sameFrames(back, frames);
    // Integral CSI is stored as int16: about 4 bytes per complex value plus a small header.
    expect(reader.size).toBeLessThan(frames.length * (242 * 4 + 400));
  });
});
