import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { CsiParseError, csiErrorCatalogue, decodeCapture, encodeRecording, openCapture } from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);
const tmp = mkdtempSync(join(tmpdir(), 'wiflow-csi-bad-'));

async function collect(path: string, onError: 'throw' | 'stop' | 'skip') {
  const reader = await openCapture(path, { onError, chunkBytes: 4096 });
  const frames: CsiFrame[] = [];
  let thrown: unknown = null;
  try {
    for await (const frame of reader) frames.push(frame);
  } catch (error) {
    thrown = error;
  }
  return { frames, thrown, reader };
}

describe('error catalogue', () => {
  it('documents every error code in docs/csi.md', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../../../../docs/csi.md'), 'utf8');
    for (const { code, status } of csiErrorCatalogue) expect(docs).toContain(`\`${code}\` (${status})`);
  });
});

describe('bad input', () => {
  const intel = readFileSync(file('intel/log.all_csi.6.7.6.dat'));
  /** Offsets of the Intel records. */
  const starts: number[] = [];
  for (let p = 0; p < intel.length; p += 2 + intel.readUInt16BE(p)) starts.push(p);

  it('a truncated file yields the frames before the cut, then a typed error naming file and offset', async () => {
    const cut = starts[10] + 57;
    const path = join(tmp, 'cut.dat');
    writeFileSync(path, intel.subarray(0, cut));
    const thrown = await collect(path, 'throw');
    const complete = starts.filter((s, i) => i + 1 < starts.length && starts[i + 1] <= cut).length;
    expect(thrown.frames.length).toBe(complete);
    expect(thrown.thrown).toBeInstanceOf(CsiParseError);
    const error = thrown.thrown as CsiParseError;
    expect(error.code).toBe('WIFLOW_CSI_TRUNCATED');
    expect(error.offset).toBe(starts[10]);
    expect(error.file).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain(`byte offset ${starts[10]}`);
    const stopped = await collect(path, 'stop');
    expect(stopped.thrown).toBeNull();
    expect(stopped.frames.length).toBe(complete);
    expect(stopped.reader.error?.code).toBe('WIFLOW_CSI_TRUNCATED');
  });

  it('wrong magic / random bytes are refused with WIFLOW_CSI_UNKNOWN_FORMAT', async () => {
    const path = join(tmp, 'random.bin');
    const random = Buffer.alloc(5000);
    for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
    writeFileSync(path, random);
    await expect(openCapture(path)).rejects.toMatchObject({ code: 'WIFLOW_CSI_UNKNOWN_FORMAT', file: path, offset: 0 });
    const result = decodeCapture(random, { name: 'mem' });
    expect(result.error?.code).toBe('WIFLOW_CSI_UNKNOWN_FORMAT');
    expect(result.error?.message).toContain('mem');
  });

  it('a length field that lies is caught: too large for any record, or past the end', () => {
    const pcap = Buffer.from(readFileSync(file('nexmon/example_4358.pcap')));
    const second = 24 + 16 + pcap.readUInt32LE(24 + 8);
    pcap.writeUInt32LE(0x7fffffff, second + 8);
    const result = decodeCapture(pcap, { name: 'lie.pcap' });
    expect(result.frames.length).toBe(1);
    expect(result.error?.code).toBe('WIFLOW_CSI_RECORD_TOO_LARGE');
    expect(result.error?.offset).toBe(second + 8);
    const longer = Buffer.from(intel);
    longer.writeUInt16BE(60000, starts[5]);
    const intelResult = decodeCapture(longer);
    expect(intelResult.frames.length).toBe(5);
    expect(intelResult.error?.code).toBe('WIFLOW_CSI_TRUNCATED');
    expect(intelResult.error?.offset).toBe(starts[5]);
  });

  it('a wiflow frame record whose stream counts lie costs no more than its bytes', () => {
    // A frame record says ntx, nrx (u8) and nsc (u16); 255 × 255 × 30 values claimed by a
    // 100-byte record must be refused before anything of that size is allocated.
    const recording = encodeRecording(decodeCapture(intel).frames.slice(0, 1));
    let frameAt = 16 + recording.readUInt32LE(12);
    while (recording[frameAt] !== 1) frameAt += 5 + recording.readUInt32LE(frameAt + 1);
    const frameEnd = frameAt + 5 + recording.readUInt32LE(frameAt + 1);
    const lying = Buffer.from(recording.subarray(frameAt, frameEnd));
    lying[5 + 32] = 255;
    lying[5 + 33] = 255;
    const copies = 2000;
    const many = Buffer.concat([recording.subarray(0, frameAt), ...Array.from({ length: copies }, () => lying)]);
    const t0 = performance.now();
    const result = decodeCapture(many, { name: 'lying.wfr', onError: 'skip' });
    const took = performance.now() - t0;
    expect(result.error).toBeNull();
    expect(result.skipped.length).toBe(copies);
    expect(result.skipped[0].code).toBe('WIFLOW_CSI_MALFORMED');
    expect(result.skipped[0].message).toContain('frame record ends early');
    // About 12 ms a record while the claimed arrays were allocated first (24 s here); microseconds now.
    expect(took).toBeLessThan(2000);
    // With a 65,535-tone set the claimed arrays exceed any typed array: a malformed record, not an internal error.
    const tones = 65535;
    const set = Buffer.alloc(5 + 4 + 2 * tones);
    set[0] = 3;
    set.writeUInt32LE(4 + 2 * tones, 1);
    set.writeUInt16LE(7, 5);
    set.writeUInt16LE(tones, 7);
    const huge = Buffer.from(lying);
    huge.writeUInt16LE(tones, 5 + 34);
    const stringsAt = 5 + 38;
    let setAt = stringsAt;
    for (let i = 0; i < 4; i++) setAt += 2 + huge.readUInt16LE(setAt);
    huge.writeUInt16LE(7, setAt);
    const hugeResult = decodeCapture(Buffer.concat([recording.subarray(0, frameAt), set, huge]), { name: 'huge.wfr' });
    expect(hugeResult.error?.code).toBe('WIFLOW_CSI_MALFORMED');
    expect(hugeResult.error?.message).toContain('frame record ends early');
  });

  it("onError 'skip' passes over a bad record whose framing survived", async () => {
    const bad = Buffer.from(intel);
    bad[starts[3] + 3 + 8] = 7;
    const path = join(tmp, 'bad-nrx.dat');
    writeFileSync(path, bad);
    const thrown = await collect(path, 'throw');
    expect(thrown.frames.length).toBe(3);
    expect((thrown.thrown as CsiParseError).code).toBe('WIFLOW_CSI_MALFORMED');
    expect((thrown.thrown as CsiParseError).offset).toBe(starts[3] + 3 + 8);
    const skipped = await collect(path, 'skip');
    expect(skipped.thrown).toBeNull();
    expect(skipped.frames.length).toBe(28);
    expect(skipped.reader.skipped.length).toBe(1);
  });

  it('a garbled ESP32 line is skipped or reported at its offset', () => {
    const text = readFileSync(file('esp32/example_data.csv'), 'latin1').split('\n');
    text[5] = text[5].replace('[', '[12 x ');
    const content = Buffer.from(text.join('\n'), 'latin1');
    const offset = text.slice(0, 5).reduce((s, l) => s + l.length + 1, 0);
    const thrown = decodeCapture(content);
    expect(thrown.frames.length).toBe(4);
    expect(thrown.error?.code).toBe('WIFLOW_CSI_MALFORMED');
    expect(thrown.error!.offset).toBeGreaterThan(offset);
    expect(thrown.error!.offset).toBeLessThan(offset + text[5].length);
    const skipped = decodeCapture(content, { onError: 'skip' });
    expect(skipped.error).toBeNull();
    expect(skipped.frames.length).toBe(59);
  });

  it('reads a file bigger than its chunk size in constant-size reads (streaming)', async () => {
    const path = join(tmp, 'big.pcap');
    const pcap = readFileSync(file('nexmon/example_4366c0.pcap'));
    writeFileSync(path, pcap);
    const reader = await openCapture(path, { chunkBytes: 4096 });
    let count = 0;
    for await (const frame of reader) {
      expect(frame.nsc).toBe(242);
      count++;
    }
    expect(count).toBe(293);
    expect(reader.bytesRead).toBe(pcap.length);
  });
});
