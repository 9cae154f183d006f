import type { CsiFrame, SensingFrame } from '@wiflow/core';
import { Prng } from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, periodicImpulses, SensingConfigSchema, sensingConfigHash } from '../index.js';
import { syntheticLinkFrames } from '../testing/synthetic-link.js';

const RATE = 10;

/** 30 s of slot steps at 10 Hz: noise, plus bursts of `burst` slots starting at `starts` (seconds). */
function steps(starts: number[], seed = 1, burst = 4): Float64Array {
  const prng = new Prng(seed);
  const out = Float64Array.from({ length: 30 * RATE }, () => 0.05 + 0.01 * prng.normal());
  for (const s of starts) for (let i = 0; i < burst; i++) out[Math.round(s * RATE) + i] += 0.3 + 0.2 * prng.next();
  return out;
}

describe('periodicImpulses', () => {
  it('finds bursts that recur every 6.1 s, with jitter and one burst too weak to see, and reads the period', () => {
    // 2.0, 8.1, (14.2 missing), 20.3, 26.4, each start jittered by up to 0.2 s.
    const train = periodicImpulses(steps([2.1, 8.0, 20.4, 26.3]), 30 * RATE, RATE);
    expect(train).not.toBeNull();
    expect(train!.periodSeconds).toBeGreaterThan(5.95);
    expect(train!.periodSeconds).toBeLessThan(6.25);
  });

  it('finds nothing in smooth chest motion (a sinusoid at 15 bpm and noise), nor in a series with no spread', () => {
    const prng = new Prng(4);
    const breathing = Float64Array.from({ length: 30 * RATE }, (_, i) => 0.05 + 0.03 * Math.abs(Math.sin((2 * Math.PI * 0.25 * i) / RATE)) + 0.005 * prng.normal());
    expect(periodicImpulses(breathing, breathing.length, RATE)).toBeNull();
    expect(periodicImpulses(new Float64Array(300), 300, RATE)).toBeNull();
  });

  it('finds nothing in two bursts, or in bursts at no common period', () => {
    expect(periodicImpulses(steps([5, 11.1]), 30 * RATE, RATE)).toBeNull();
    expect(periodicImpulses(steps([1.0, 4.0, 13.2, 24.5]), 30 * RATE, RATE)).toBeNull();
  });
});

describe('LinkSensor with a periodic disturbance', () => {
  it('keeps a breathing rate the disturbance does not explain (15 bpm beside a 1-s burst every 6.1 s)', () => {
    // A 1 × 3 link at 20 Hz whose band is reshaped by ±10 % for 1 s every 6.1 s: the bursts are outliers the
    // train detector finds, and withholding every rate while they last would fail here.
    const frames: CsiFrame[] = syntheticLinkFrames([{ kind: 'still', seconds: 60, bpm: 15 }], { rateHz: 20, seed: 5 });
    const prng = new Prng(12);
    const shape = Float32Array.from({ length: frames[0].nrx * frames[0].nsc }, () => 0.9 + 0.2 * prng.next());
    for (const f of frames) {
      if ((f.timestamp / 1e6) % 6.1 >= 1) continue;
      for (let i = 0; i < shape.length; i++) {
        f.csi.re[i] *= shape[i];
        f.csi.im[i] *= shape[i];
      }
    }
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS) });
    const out: SensingFrame[] = [];
    for (const f of frames) out.push(...sensor.push(f));
    out.push(...sensor.finish());
    const rates = out.map((f) => f.breathingBpm).filter((b): b is number => b !== null);
    expect(rates.length).toBeGreaterThan(10);
    for (const r of rates) expect(Math.abs(r - 15)).toBeLessThan(1);
  });
});
