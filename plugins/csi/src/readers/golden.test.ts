import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeCapture, detectFormat, readCapture } from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);

interface Complex { shape: number[]; re: number[]; im: number[] }

describe('Intel 5300 golden', () => {
  it('matches read_bf_file + get_scaled_csi record by record', async () => {
    const expected = JSON.parse(readFileSync(file('intel/log.all_csi.6.7.6.expected.json'), 'utf8')) as { frames: (Record<string, number> & { perm: number[]; csi: Complex; csi_scaled?: Complex; scaled_csi?: Complex })[] };
    const frames = await readCapture(file('intel/log.all_csi.6.7.6.dat'));
    expect(detectFormat(readFileSync(file('intel/log.all_csi.6.7.6.dat')))).toBe('intel5300');
    expect(frames.length).toBe(expected.frames.length);
    expect(frames.length).toBe(29);
    frames.forEach((frame, i) => {
      const e = expected.frames[i];
      const x = frame.extra as Record<string, unknown>;
      expect(x.timestampLow).toBe(e.timestamp_low);
      expect(x.bfeeCount).toBe(e.bfee_count);
      expect(frame.nrx).toBe(e.Nrx);
      expect(frame.ntx).toBe(e.Ntx);
      expect([x.rssiA, x.rssiB, x.rssiC]).toEqual([e.rssi_a, e.rssi_b, e.rssi_c]);
      expect(x.noise).toBe(e.noise);
      expect(frame.agc).toBe(e.agc);
      expect(x.perm).toEqual(e.perm);
      expect(x.rate).toBe(e.rate);
      expect(Array.from(frame.csi.re)).toEqual(e.csi.re);
      expect(Array.from(frame.csi.im)).toEqual(e.csi.im);
      const scaled = (e.csi_scaled ?? e.scaled_csi)!;
      expect(scaled.re.length).toBe(frame.scaled!.re.length);
      for (let k = 0; k < scaled.re.length; k++) {
        const mag = Math.hypot(scaled.re[k], scaled.im[k]) || 1;
        expect(Math.abs(frame.scaled!.re[k] - scaled.re[k]) / mag).toBeLessThan(1e-6);
        expect(Math.abs(frame.scaled!.im[k] - scaled.im[k]) / mag).toBeLessThan(1e-6);
      }
      expect(Array.from(frame.subcarriers)).toEqual([-28, -26, -24, -22, -20, -18, -16, -14, -12, -10, -8, -6, -4, -2, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 28]);
    });
  });
});

function expectNexmonMatches(pcap: string, expected: Complex, chip: 'bcm4358' | 'bcm4366c0' | 'auto') {
  const result = decodeCapture(readFileSync(file(pcap)), { nullSubcarriers: 'keep', chip });
  expect(result.error).toBeNull();
  const [packets, nfft] = expected.shape;
  expect(result.frames.length).toBe(packets);
  result.frames.forEach((frame, p) => {
    expect(frame.nsc).toBe(nfft);
    expect(Array.from(frame.csi.re)).toEqual(expected.re.slice(p * nfft, (p + 1) * nfft));
    expect(Array.from(frame.csi.im)).toEqual(expected.im.slice(p * nfft, (p + 1) * nfft));
  });
  return result.frames;
}

describe('Nexmon golden', () => {
  it('bcm4358 pcap matches csi_buff (chip set, and guessed from content)', () => {
    const expected = (JSON.parse(readFileSync(file('nexmon/example_4358.expected.json'), 'utf8')) as { csi_buff: Complex }).csi_buff;
    const frames = expectNexmonMatches('nexmon/example_4358.pcap', expected, 'bcm4358');
    expect(frames[0].bandwidthHz).toBe(80e6);
    expect(frames[0].extra?.channel).toBe(155);
    expect(frames.map((f) => `${f.extra?.core}/${f.extra?.spatialStream}`).sort()).toEqual(['0/0', '0/1', '1/0', '1/1']);
    expect(new Set(frames.map((f) => `${f.link.tx}>${f.link.rx}`)).size).toBe(4);
    const guessed = expectNexmonMatches('nexmon/example_4358.pcap', expected, 'auto');
    expect(guessed[0].extra?.encoding).toBe('float-9-5');
  });

  it('bcm4366c0 pcap matches the gzipped csi_buff', () => {
    const expected = (JSON.parse(gunzipSync(readFileSync(file('nexmon/example_4366c0.expected.json.gz'))).toString('utf8')) as { csi_buff: Complex }).csi_buff;
    expectNexmonMatches('nexmon/example_4366c0.pcap', expected, 'bcm4366c0');
    const guessed = expectNexmonMatches('nexmon/example_4366c0.pcap', expected, 'auto');
    expect(guessed[0].extra?.encoding).toBe('float-12-6');
  });
});
