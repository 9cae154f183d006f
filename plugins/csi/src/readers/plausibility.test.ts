import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { decodeCapture, readCapture } from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);

/** Mean squared step between neighbouring subcarriers over mean power: a real channel is smooth, a mis-decode is not. */
function roughness(frames: CsiFrame[]): number {
  let step = 0;
  let power = 0;
  for (const f of frames) {
    for (let s = 0; s < f.ntx * f.nrx; s++) {
      for (let k = 0; k < f.nsc - 1; k++) {
        const a = s * f.nsc + k;
        step += (f.csi.re[a + 1] - f.csi.re[a]) ** 2 + (f.csi.im[a + 1] - f.csi.im[a]) ** 2;
        power += f.csi.re[a] ** 2 + f.csi.im[a] ** 2;
      }
    }
  }
  return step / power;
}

function amplitudes(frames: CsiFrame[]): number[] {
  return frames.flatMap((f) => Array.from(f.csi.re, (r, i) => Math.hypot(r, f.csi.im[i])));
}

function rateHz(frames: CsiFrame[]): number {
  return (frames.length - 1) / ((frames.at(-1)!.timestamp - frames[0].timestamp) / 1e6);
}

describe('ESP32-CSI-Tool CSV', () => {
  it('decodes 60 LLTF rows with the invalid first word and guard band dropped', async () => {
    const frames = await readCapture(file('esp32/example_data.csv'));
    expect(frames.length).toBe(60);
    for (const f of frames) {
      expect([f.ntx, f.nrx, f.nsc]).toEqual([1, 1, 51]);
      expect(f.rssi![0]).toBeGreaterThanOrEqual(-100);
      expect(f.rssi![0]).toBeLessThanOrEqual(-30);
      expect(f.centerFrequencyHz).toBe(2437e6);
      expect(f.link.tx).toBe('D0:6E:DE:27:6B:63');
    }
    const subcarriers = Array.from(frames[0].subcarriers);
    expect(subcarriers.slice(0, 26)).toEqual(Array.from({ length: 26 }, (_, i) => i - 26));
    expect(subcarriers.slice(26)).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
    const amps = amplitudes(frames);
    const mean = amps.reduce((a, b) => a + b, 0) / amps.length;
    expect(mean).toBeGreaterThan(5);
    expect(mean).toBeLessThan(60);
    expect(Math.max(...amps)).toBeLessThanOrEqual(128 * Math.SQRT2);
    const rate = rateHz(frames);
    expect(rate).toBeGreaterThan(1);
    expect(rate).toBeLessThan(1000);
    for (let i = 1; i < frames.length; i++) expect(frames[i].timestamp).toBeGreaterThanOrEqual(frames[i - 1].timestamp);
    expect(roughness(frames)).toBeLessThan(0.2);
  });

  it('keeps subcarrier +1 when told the first word is valid, and the raw guard bytes are zero', () => {
    const text = readFileSync(file('esp32/example_data.csv'));
    const result = decodeCapture(text, { esp32FirstWordInvalid: false });
    expect(result.error).toBeNull();
    expect(result.frames[0].nsc).toBe(52);
    const row = text.toString('latin1').split('\n')[1];
    const values = row.slice(row.indexOf('[') + 1, row.indexOf(']')).trim().split(/\s+/).map(Number);
    expect(values.length).toBe(128);
    expect(values.slice(54, 76).every((v) => v === 0)).toBe(true);
    // Subcarrier −1 is the last LLTF entry: bytes 126 (imaginary) and 127 (real).
    const f = result.frames[0];
    const at = Array.from(f.subcarriers).indexOf(-1);
    expect([f.csi.im[at], f.csi.re[at]]).toEqual([values[126], values[127]]);
  });
});

describe('Atheros CSI Tool log', () => {
  it('decodes 16 big-endian records of 56 tones, 2 × 3 streams, smooth across tones', async () => {
    const frames = await readCapture(file('atheros/example_bigEndian.dat'));
    expect(frames.length).toBe(16);
    for (const f of frames) {
      expect([f.ntx, f.nrx, f.nsc]).toEqual([2, 3, 56]);
      expect(f.centerFrequencyHz).toBe(2462e6);
      expect(f.bandwidthHz).toBe(20e6);
      expect(f.extra?.byteOrder).toBe('big');
    }
    const amps = amplitudes(frames);
    expect(Math.max(...amps)).toBeLessThanOrEqual(512 * Math.SQRT2);
    expect(amps.reduce((a, b) => a + b, 0) / amps.length).toBeGreaterThan(20);
    const rate = rateHz(frames);
    expect(rate).toBeGreaterThan(1);
    expect(rate).toBeLessThan(10000);
    expect(roughness(frames)).toBeLessThan(0.05);
  });

  it('reads the same records written little-endian without the marker byte', () => {
    const be = readFileSync(file('atheros/example_bigEndian.dat'));
    const parts: Buffer[] = [];
    let pos = 1;
    while (pos < be.length) {
      const fieldLength = be.readUInt16BE(pos);
      const record = Buffer.from(be.subarray(pos, pos + 2 + fieldLength));
      record.writeUInt16LE(fieldLength, 0);
      record.writeBigUInt64LE(be.readBigUInt64BE(pos + 2), 2);
      for (const at of [10, 12, 25]) record.writeUInt16LE(be.readUInt16BE(pos + at), at);
      parts.push(record);
      pos += 2 + fieldLength;
    }
    const little = decodeCapture(Buffer.concat(parts));
    const big = decodeCapture(be);
    expect(little.format).toBe('atheros');
    expect(little.error).toBeNull();
    expect(little.frames.length).toBe(16);
    expect(little.frames[3].extra?.byteOrder).toBe('little');
    expect(Array.from(little.frames[3].csi.re)).toEqual(Array.from(big.frames[3].csi.re));
    expect(little.frames[3].timestamp).toBe(big.frames[3].timestamp);
  });
});

describe('PicoScenes', () => {
  it('decodes 112 Intel 5300 frames of 30 groups, mostly 2 receive chains, as smooth as the Intel tool file', async () => {
    const frames = await readCapture(file('picoscenes/picoscenes_iwl5300_example.csi'));
    expect(frames.length).toBe(112);
    const streams = new Map<number, number>();
    for (const f of frames) streams.set(f.ntx, (streams.get(f.ntx) ?? 0) + 1);
    // The sample mixes one- and two-stream packets.
    expect([...streams.keys()].sort()).toEqual([1, 2]);
    expect(frames.filter((f) => f.nrx === 2).length).toBeGreaterThan(100);
    for (const f of frames) {
      expect([1, 2]).toContain(f.nrx);
      expect(f.nsc).toBe(30);
      expect(f.centerFrequencyHz).toBe(2437e6);
      expect(f.bandwidthHz).toBe(20e6);
      expect(f.extra?.device).toBe('iwl5300');
    }
    const amps = amplitudes(frames);
    expect(Math.max(...amps)).toBeLessThanOrEqual(128 * Math.SQRT2);
    expect(amps.reduce((a, b) => a + b, 0) / amps.length).toBeGreaterThan(5);
    const rate = rateHz(frames);
    expect(rate).toBeGreaterThan(1);
    expect(rate).toBeLessThan(10000);
    const intel = await readCapture(file('intel/log.all_csi.6.7.6.dat'));
    expect(roughness(frames)).toBeLessThan(2 * roughness(intel));
  });
});
