import type { SensingFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema } from '../index.js';
import { rotatedChains as rotated, syntheticLinkFrames } from '../testing/synthetic-link.js';
import { chainRotation } from './chain-order.js';

describe('chainRotation', () => {
  it('finds the rotation of a glitched packet and leaves a packet in order alone', () => {
    const nsc = 4;
    const previous = Float64Array.from([1, 2, 1, 0.5, 0.2, 1, 1.5, 1, 1, 1, 0.4, 1.8]);
    const same = previous.map((v) => v * 1.02);
    expect(chainRotation(same, previous, 1, 3, nsc)).toBe(0);
    // Reported chain r holds true chain r - 1: true chain r is read at (r + 1) % 3.
    const glitched = new Float64Array(12);
    for (let r = 0; r < 3; r++) glitched.set(previous.subarray(r * nsc, (r + 1) * nsc), ((r + 1) % 3) * nsc);
    expect(chainRotation(glitched, previous, 1, 3, nsc)).toBe(1);
    expect(chainRotation(previous, previous, 1, 1, 12)).toBe(0);
  });
});

describe('LinkSensor with antenna-switching glitches', () => {
  it('reads glitched packets in the true chain order, so a still person is not called moving', () => {
    const frames = syntheticLinkFrames([{ kind: 'moving', seconds: 10 }, { kind: 'still', seconds: 80, bpm: 14 }], { rateHz: 20, seed: 11 });
    // One glitched packet every ~7 s of the still stretch.
    let glitches = 0;
    const input = frames.map((f, i) => {
      const t = (f.timestamp - frames[0].timestamp) / 1e6;
      if (t > 15 && i % 140 === 0) {
        glitches++;
        return rotated(f);
      }
      return f;
    });
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: 'test' });
    const out: SensingFrame[] = [];
    for (const f of input) out.push(...sensor.push(f));
    out.push(...sensor.finish());
    expect(glitches).toBeGreaterThan(8);
    expect(sensor.stats.rotatedPackets).toBe(glitches);
    const still = out.filter((f) => f.second >= 16);
    expect(still.filter((f) => f.state === 'moving')).toEqual([]);
    const rates = still.map((f) => f.breathingBpm).filter((b): b is number => b !== null);
    expect(rates.length).toBeGreaterThan(30);
    for (const r of rates) expect(Math.abs(r - 14)).toBeLessThan(1);
  });
});
