import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32, type CsiFrame } from '@wiflow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { CsiParseError, decodeCapture, openCapture, type CaptureFormat, type OnError } from '../index.js';
import { forced, fuzzCorpus, recordStarts } from './fuzz.test-support.js';

// The in-memory fuzz test (fuzz.test.ts) never meets the file reader's chunk boundaries. This one
// writes each mutant to a file and reads it through `openCapture` in 4 KiB chunks, and checks that
// the file reader and `decodeCapture` agree on every mutant: same frames, same fault, same offset.
// Mutations aim at record structure: cuts at and beside record boundaries, length fields set to
// 0 / huge / negative in both byte orders, records repeated, bit flips and random bytes.
// A larger run: WIFLOW_STREAM_FUZZ_N=5000 WIFLOW_FUZZ_SEED=<n> npx vitest run src/readers/stream-fuzz.test.ts
const MUTANTS = Number(process.env.WIFLOW_STREAM_FUZZ_N ?? 270);
const SEED = Number(process.env.WIFLOW_FUZZ_SEED ?? 0xf11e);
const tmp = mkdtempSync(join(tmpdir(), 'wiflow-csi-stream-fuzz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Mutation = 'cut-at-boundary' | 'length-field' | 'repeat-record' | 'bitflip' | 'random-bytes';
const MUTATION_KINDS: Mutation[] = ['cut-at-boundary', 'length-field', 'repeat-record', 'bitflip', 'random-bytes'];
/** 0, small, the largest 16-bit, 2^31 − 1, −2^31 and −1 as 32-bit, and a near miss. */
const LIES = [0, 1, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];

function mutate(source: Buffer, starts: number[], kind: Mutation, rnd: () => number): Buffer {
  const int = (n: number) => Math.floor(rnd() * n);
  const boundary = () => starts[int(starts.length)];
  switch (kind) {
    case 'cut-at-boundary':
      return source.subarray(0, Math.max(0, Math.min(source.length, boundary() + int(3) - 1 + (rnd() < 0.3 ? int(24) : 0))));
    case 'length-field': {
      // Record headers sit in the first bytes after a boundary: overwrite one field there.
      const out = Buffer.from(source);
      const at = Math.min(boundary() + int(24), out.length - 4);
      if (at < 0) return out;
      const lie = rnd() < 0.15 ? source.length + int(64) - 32 : LIES[int(LIES.length)];
      const width = int(4);
      if (width === 0) out.writeUInt16LE(lie & 0xffff, at);
      else if (width === 1) out.writeUInt16BE(lie & 0xffff, at);
      else if (width === 2) out.writeUInt32LE(lie >>> 0, at);
      else out.writeUInt32BE(lie >>> 0, at);
      return out;
    }
    case 'repeat-record': {
      const i = 1 + int(Math.max(1, starts.length - 2));
      const record = source.subarray(starts[i - 1], starts[Math.min(i, starts.length - 1)]);
      const copies = 1 + int(rnd() < 0.2 ? 200 : 8);
      const at = boundary();
      return Buffer.concat([source.subarray(0, at), ...Array.from({ length: copies }, () => record), source.subarray(at)]);
    }
    case 'bitflip': {
      const out = Buffer.from(source);
      for (let i = 0, flips = 1 + int(8); i < flips; i++) out[int(out.length)] ^= 1 << int(8);
      return out;
    }
    case 'random-bytes': {
      const out = Buffer.from(source);
      const start = rnd() < 0.5 ? boundary() : int(out.length);
      for (let i = start, count = 1 + int(64); i < Math.min(out.length, start + count); i++) out[i] = int(256);
      return out;
    }
  }
}

/** What the file reader made of a file: frames, and the error it ended with (thrown or on the reader). */
async function readFile(path: string, format: CaptureFormat | undefined, onError: OnError) {
  const frames: CsiFrame[] = [];
  let error: unknown = null;
  let skipped: CsiParseError[] = [];
  try {
    const reader = await openCapture(path, { format, onError, chunkBytes: 4096 });
    try {
      for await (const frame of reader) frames.push(frame);
    } catch (thrown) {
      error = thrown;
    }
    if (onError !== 'throw') error = reader.error;
    skipped = reader.skipped;
  } catch (thrown) {
    error = thrown;
  }
  return { frames, error, skipped };
}

describe('stream fuzz', () => {
  it(`${MUTANTS} structural mutants read from files in 4 KiB chunks: frames or a CsiParseError naming file and offset, as decodeCapture says`, async () => {
    const corpus = fuzzCorpus().map((seed) => ({ ...seed, starts: recordStarts(seed.bytes, forced(seed.name)) }));
    for (const seed of corpus) expect(seed.starts.length, seed.name).toBeGreaterThan(3);
    const rnd = mulberry32(SEED);
    const tally = { frames: 0, errors: 0, clean: 0 };
    let slowest = 0;
    const started = performance.now();
    for (let i = 0; i < MUTANTS; i++) {
      const seed = corpus[i % corpus.length];
      const kind = MUTATION_KINDS[Math.floor(rnd() * MUTATION_KINDS.length)];
      const bytes = mutate(seed.bytes, seed.starts, kind, rnd);
      const path = join(tmp, `${seed.name}-${i}-${kind}.bin`);
      writeFileSync(path, bytes);
      const format = i % 2 ? forced(seed.name) : undefined;
      const onError: OnError = (['throw', 'stop', 'skip'] as const)[i % 3];
      const what = `mutant ${i} (${seed.name}, ${kind}, ${bytes.length} bytes, ${format ?? 'detected'}, ${onError}, seed ${SEED})`;
      const t0 = performance.now();
      const fromFile = await readFile(path, format, onError);
      const took = performance.now() - t0;
      slowest = Math.max(slowest, took);
      if (took > 2000) throw new Error(`${what} took ${took.toFixed(0)} ms`);
      const inMemory = decodeCapture(bytes, { format, onError, name: path });
      const error = fromFile.error;
      if (error !== null) {
        if (!(error instanceof CsiParseError)) throw new Error(`${what} threw ${(error as Error)?.stack ?? String(error)}`);
        if (error.message.includes('internal decoder error')) throw new Error(`${what}: ${error.message}`);
        if (!error.message.includes(path) || !error.message.includes(`byte offset ${error.offset}`) || error.offset < 0 || error.offset > bytes.length) {
          throw new Error(`${what}: the error does not name the file and an offset inside it: ${error.message}`);
        }
        tally.errors++;
      } else tally.clean++;
      for (const skip of fromFile.skipped) if (skip.message.includes('internal decoder error')) throw new Error(`${what}: ${skip.message}`);
      // The two drivers must agree (the file reader alone limits record size: a claimed record
      // over maxRecordBytes is RECORD_TOO_LARGE there and TRUNCATED in memory, at the same offset).
      const fileError = error as CsiParseError | null;
      const sameFault = fileError?.code === inMemory.error?.code || (fileError?.code === 'WIFLOW_CSI_RECORD_TOO_LARGE' && inMemory.error?.code === 'WIFLOW_CSI_TRUNCATED');
      if (fromFile.frames.length !== inMemory.frames.length || !sameFault || fileError?.offset !== inMemory.error?.offset || fromFile.skipped.length !== inMemory.skipped.length) {
        throw new Error(`${what}: file reader gave ${fromFile.frames.length} frames, ${fromFile.skipped.length} skipped, ${fileError?.message ?? 'no error'}; decodeCapture gave ${inMemory.frames.length} frames, ${inMemory.skipped.length} skipped, ${inMemory.error?.message ?? 'no error'}`);
      }
      tally.frames += fromFile.frames.length;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`stream fuzz: ${MUTANTS} mutants in ${seconds.toFixed(1)} s (slowest ${slowest.toFixed(1)} ms), ${tally.frames} frames, ${tally.errors} typed errors, ${tally.clean} clean`);
    expect(tally.errors).toBeGreaterThan(MUTANTS / 10);
    expect(tally.frames).toBeGreaterThan(MUTANTS);
  });
});
