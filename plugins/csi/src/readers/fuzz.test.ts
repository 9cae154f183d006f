import { mulberry32 } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { CsiParseError, decodeCapture } from '../index.js';
import { forced, fuzzCorpus } from './fuzz.test-support.js';

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
    const corpus = fuzzCorpus();
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
