import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsiParseError, decodeCapture, encodeRecording, type CaptureFormat } from '../index.js';

const DATA = resolve(import.meta.dirname, '../../../../../shared/data/csi');
const have = existsSync(DATA);
const file = (p: string) => resolve(DATA, p);
const MUTATIONS = 10_000;
const SEED = Number(process.env.WIFLOW_FUZZ_SEED ?? 0x5eed);

/** Small deterministic PRNG (mulberry32) so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

describe.skipIf(!have)('fuzz', () => {
  it(`${MUTATIONS} mutations of the real captures give frames or typed errors, and always terminate`, () => {
    const intel = readFileSync(file('intel/log.all_csi.6.7.6.dat'));
    const corpus: { name: string; bytes: Buffer; format?: CaptureFormat }[] = [
      { name: 'intel', bytes: intel },
      { name: 'atheros', bytes: readFileSync(file('atheros/example_bigEndian.dat')) },
      { name: 'esp32', bytes: readFileSync(file('esp32/example_data.csv')) },
      { name: 'nexmon-4358', bytes: readFileSync(file('nexmon/example_4358.pcap')) },
      // The first ~20 packets: the same structure at a fraction of the cost per mutation.
      { name: 'nexmon-4366c0', bytes: readFileSync(file('nexmon/example_4366c0.pcap')).subarray(0, 24 + 20 * 1100) },
      { name: 'picoscenes', bytes: readFileSync(file('picoscenes/picoscenes_iwl5300_example.csi')).subarray(0, 20000) },
      { name: 'wiflow', bytes: encodeRecording(decodeCapture(intel).frames.slice(0, 10)) },
    ];
    const rnd = random(SEED);
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
  const formats: Record<string, CaptureFormat> = { intel: 'intel5300', atheros: 'atheros', esp32: 'esp32-csi-tool', 'nexmon-4358': 'nexmon-pcap', 'nexmon-4366c0': 'nexmon-pcap', picoscenes: 'picoscenes', wiflow: 'wiflow' };
  return formats[name];
}
