import type { SensingFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, sensingConfigHash } from '../index.js';
import { syntheticLinkFrames, type SyntheticOptions, type SyntheticSegment } from '../testing/synthetic-link.js';

function sense(segments: SyntheticSegment[], options: SyntheticOptions, settings: Record<string, unknown> = {}): SensingFrame[] {
  const config = SensingConfigSchema.parse(settings);
  const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS) });
  const out: SensingFrame[] = [];
  for (const frame of syntheticLinkFrames(segments, options)) out.push(...sensor.push(frame));
  out.push(...sensor.finish());
  return out;
}

describe('LinkSensor', () => {
  it('emits one frame per whole second with provenance, on an irregular 20 Hz link with AGC jumps and 20 % loss', () => {
    const frames = sense([{ kind: 'still', seconds: 40, bpm: 15 }], { rateHz: 20, loss: 0.2, seed: 3 });
    expect(frames.map((f) => f.second)).toEqual(Array.from({ length: frames.length }, (_, i) => i));
    expect(frames.length).toBeGreaterThanOrEqual(39);
    expect(frames[0]).toMatchObject({ scope: 'link', environmentId: 'room', link: { tx: 'tx', rx: 'rx' }, estimatorId: 'wiflow-sense-v1', provenance: 'simulated' });
    expect(frames[0].configHash).toMatch(/^[0-9a-f]{16}$/);
    expect(frames.some((f) => f.lostFraction > 0)).toBe(true);
  });

  it('tells a walking person from a still one, and reads the still one\'s breathing rate', () => {
    const frames = sense([{ kind: 'moving', seconds: 15 }, { kind: 'still', seconds: 45, bpm: 15 }], { rateHz: 20, loss: 0.1, seed: 5 });
    const walking = frames.filter((f) => f.second >= 3 && f.second < 14);
    const still = frames.filter((f) => f.second >= 18);
    // The shipped Intel model was fitted on real recordings, not on this synthetic link: most, not all, walking seconds.
    expect(walking.filter((f) => f.state === 'moving').length / walking.length).toBeGreaterThan(0.75);
    expect(walking.some((f) => f.activity === 'walking')).toBe(true);
    expect(still.filter((f) => f.state === 'still').length / still.length).toBeGreaterThan(0.9);
    expect(still.every((f) => f.presence)).toBe(true);
    const rates = still.map((f) => f.breathingBpm).filter((b): b is number => b !== null);
    expect(rates.length).toBeGreaterThan(10);
    for (const r of rates) expect(Math.abs(r - 15)).toBeLessThan(1);
    const early = still.find((f) => f.second < 30 && f.breathingBpm === null);
    expect(early?.breathingReason).toBe('too_short');
  });

  it('shows no rate for a weak breathing line (null, no_periodicity) but still counts it for presence; strong lines keep their rate', () => {
    const story: SyntheticSegment[] = [{ kind: 'moving', seconds: 10 }, { kind: 'still', seconds: 90, bpm: 15 }];
    const options: SyntheticOptions = { rateHz: 20, noise: 0.11, seed: 2 };
    const ungated = sense(story, options, { breathingReportQuality: 0 });
    const shipped = sense(story, options);
    const weak = ungated.filter((f) => f.breathingBpm !== null && f.breathingQuality! < 4.5);
    const strong = ungated.filter((f) => f.breathingBpm !== null && f.breathingQuality! >= 4.5);
    // The noisy link gives both kinds of line, so the check below cannot pass on an empty set.
    expect(weak.length).toBeGreaterThan(0);
    expect(strong.length).toBeGreaterThan(10);
    const at = new Map(shipped.map((f) => [f.second, f]));
    for (const f of weak) expect(at.get(f.second)).toMatchObject({ breathingBpm: null, breathingQuality: null, breathingReason: 'no_periodicity', presence: f.presence });
    for (const f of strong) expect(at.get(f.second)).toMatchObject({ breathingBpm: f.breathingBpm, breathingQuality: f.breathingQuality });
    expect(shipped.map((f) => f.presence)).toEqual(ungated.map((f) => f.presence));
  });

  it('reads breathing on a single-antenna int8-style link at an irregular 10 Hz', () => {
    const frames = sense([{ kind: 'still', seconds: 60, bpm: 22 }], { rateHz: 10, loss: 0.1, nrx: 1, nsc: 52, seed: 9, format: 'esp32-csi-tool' });
    const rates = frames.map((f) => f.breathingBpm).filter((b): b is number => b !== null);
    expect(rates.length).toBeGreaterThan(20);
    for (const r of rates) expect(Math.abs(r - 22)).toBeLessThan(1);
  });

  it('keeps going when the device clock jumps back (a radio reboot)', () => {
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: 'test' });
    const first = syntheticLinkFrames([{ kind: 'still', seconds: 20, bpm: 15 }], { rateHz: 20, seed: 6 });
    const second = syntheticLinkFrames([{ kind: 'still', seconds: 20, bpm: 15 }], { rateHz: 20, seed: 6 }).map((f) => ({ ...f, time: f.time + 20_000 }));
    const out: SensingFrame[] = [];
    for (const f of [...first, ...second]) out.push(...sensor.push(f));
    out.push(...sensor.finish());
    expect(out.length).toBeGreaterThanOrEqual(39);
    expect(out.at(-1)!.second).toBeGreaterThanOrEqual(38);
  });

  it('gives no breathing rate, with the reason, when the capture is too short or too slow', () => {
    const short = sense([{ kind: 'still', seconds: 12, bpm: 15 }], { rateHz: 20, seed: 2 });
    expect(short.every((f) => f.breathingBpm === null)).toBe(true);
    // Nobody was seen arrive, so these seconds are empty; the reason still says what limited the breathing.
    expect(short.filter((f) => f.second >= 2).every((f) => f.breathingReason === 'too_short')).toBe(true);
    const slow = sense([{ kind: 'moving', seconds: 3 }, { kind: 'still', seconds: 60, bpm: 15 }], { rateHz: 1, seed: 2 });
    expect(slow.every((f) => f.breathingBpm === null)).toBe(true);
    const late = slow.filter((f) => f.second > 30 && f.state !== 'moving');
    expect(late.length).toBeGreaterThan(20);
    expect(late.every((f) => f.breathingReason === 'rate_too_low')).toBe(true);
  });
});

describe('LinkSensor null reasons', () => {
  it('an empty link says why it has no breathing rate (no periodicity), not only that it is empty', () => {
    const frames = sense([{ kind: 'empty', seconds: 60 }], { rateHz: 20, seed: 4 });
    const late = frames.filter((f) => f.second >= 25);
    expect(late.length).toBeGreaterThan(30);
    expect(late.every((f) => f.state === 'empty' && f.breathingBpm === null)).toBe(true);
    expect(late.every((f) => f.breathingReason === 'no_periodicity')).toBe(true);
  });
});

describe('LinkSensor activity', () => {
  it('movement nobody was seen arrive for (two seconds, like a door) is no one\'s activity: the seconds stay empty with no activity', () => {
    const frames = sense([{ kind: 'empty', seconds: 30 }, { kind: 'moving', seconds: 2 }, { kind: 'empty', seconds: 30 }], { rateHz: 20, seed: 6 });
    const stirred = frames.filter((f) => f.state === 'empty' && f.motion >= 0.5);
    // The movement is seen (a motion score), but two moving seconds are no entry.
    expect(stirred.length).toBeGreaterThan(0);
    expect(frames.filter((f) => f.state === 'empty').every((f) => f.activity === null)).toBe(true);
  });
});

describe('LinkSensor on a body that changes the whole band alike (as a simulated body does)', () => {
  it('the per-packet normalisation hides it from the amplitude spread; the phase between chains shows it', () => {
    // 1 × 3 link, 30 subcarriers, 20 packets/s: a frequency-flat static channel per chain, and a body path that
    // adds the same phasor to every subcarrier of a chain (its phase differs between chains), turning while
    // someone walks (from 15 s on) and still before. Noise 1 %.
    const nrx = 3;
    const nsc = 30;
    const subcarriers = Int16Array.from({ length: nsc }, (_, k) => -28 + 2 * k);
    const staticPhase = [0.3, 1.9, 4.1];
    const bodyPhase = [0, 2.2, 4.4];
    let seed = 7;
    const noise = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return (seed / 2_147_483_648 - 0.5) * 0.02;
    };
    const config = SensingConfigSchema.parse({});
    const features: { second: number; spread: number; pairSpread: number }[] = [];
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: '', onMotionFeatures: (second, f) => features.push({ second, spread: f.spread, pairSpread: f.pairSpread }) });
    for (let i = 0; i < 30 * 20; i++) {
      const t = i / 20;
      const turn = t >= 15 ? 2 * Math.PI * 3 * t : 0; // 3 Hz of Doppler while walking
      const re = new Float32Array(nrx * nsc);
      const im = new Float32Array(nrx * nsc);
      for (let r = 0; r < nrx; r++) {
        for (let k = 0; k < nsc; k++) {
          re[r * nsc + k] = Math.cos(staticPhase[r]) + 0.2 * Math.cos(bodyPhase[r] + turn) + noise();
          im[r * nsc + k] = Math.sin(staticPhase[r]) + 0.2 * Math.sin(bodyPhase[r] + turn) + noise();
        }
      }
      sensor.push({ timestamp: t * 1e6, time: 1_700_000_000_000 + t * 1000, sourceId: 'test', link: { tx: 'tx', rx: 'rx' }, centerFrequencyHz: 5.32e9, bandwidthHz: 20e6, subcarriers, ntx: 1, nrx, nsc, csi: { re, im }, sequence: i, format: 'sim', provenance: 'simulated' });
    }
    sensor.finish();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const still = features.filter((f) => f.second >= 3 && f.second < 14);
    const walking = features.filter((f) => f.second >= 17);
    expect(mean(walking.map((f) => f.spread)) / mean(still.map((f) => f.spread))).toBeLessThan(1.5);
    expect(mean(walking.map((f) => f.pairSpread)) / mean(still.map((f) => f.pairSpread))).toBeGreaterThan(5);
  });
});

describe('LinkSensor presence: person-sized movement', () => {
  /**
   * A 1 × 3 simulated-format link (as above): 50 s of a quiet room, then a body path of amplitude `amp` turning at
   * 1 Hz for 10 s (someone walking in), then quiet again. Returns the link's frames and each second's size (pair
   * spread over its floor).
   */
  function walkIn(amp: number, overrides: Record<string, number> = {}): { frames: SensingFrame[]; size: number[] } {
    const nrx = 3;
    const nsc = 30;
    const subcarriers = Int16Array.from({ length: nsc }, (_, k) => -28 + 2 * k);
    const staticPhase = [0.3, 1.9, 4.1];
    const bodyPhase = [0, 2.2, 4.4];
    let seed = 11;
    const noise = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return (seed / 2_147_483_648 - 0.5) * 0.02;
    };
    const config = SensingConfigSchema.parse(overrides);
    const size: number[] = [];
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: '', onMotionFeatures: (second, f) => (size[second] = f.pairSpread / f.pairFloor) });
    const frames: SensingFrame[] = [];
    for (let i = 0; i < 75 * 20; i++) {
      const t = i / 20;
      const turn = t >= 50 && t < 60 ? 2 * Math.PI * t : 0;
      const re = new Float32Array(nrx * nsc);
      const im = new Float32Array(nrx * nsc);
      for (let r = 0; r < nrx; r++) {
        for (let k = 0; k < nsc; k++) {
          re[r * nsc + k] = Math.cos(staticPhase[r]) + amp * Math.cos(bodyPhase[r] + turn) + noise();
          im[r * nsc + k] = Math.sin(staticPhase[r]) + amp * Math.sin(bodyPhase[r] + turn) + noise();
        }
      }
      frames.push(...sensor.push({ timestamp: t * 1e6, time: 1_700_000_000_000 + t * 1000, sourceId: 'test', link: { tx: 'tx', rx: 'rx' }, centerFrequencyHz: 5.32e9, bandwidthHz: 20e6, subcarriers, ntx: 1, nrx, nsc, csi: { re, im }, sequence: i, format: 'sim', provenance: 'simulated' }));
    }
    frames.push(...sensor.finish());
    return { frames, size };
  }

  it('movement far above the link\'s own quiet floor is someone arriving; the same movement below the entry size is not', () => {
    const { frames, size } = walkIn(0.05);
    const walk = frames.filter((f) => f.second >= 50 && f.second < 60);
    const moving = walk.filter((f) => f.motion >= 0.5);
    expect(moving.length).toBeGreaterThanOrEqual(8);
    const sizes = moving.map((f) => size[f.second]);
    expect(Math.min(...sizes)).toBeGreaterThan(2); // person-sized at the default entry size (2 × the floor)
    expect(frames.filter((f) => f.second >= 55 && f.second < 70).every((f) => f.presence)).toBe(true);
    expect(frames.filter((f) => f.second < 50).every((f) => !f.presence)).toBe(true);
    // Asking for more than this movement's size: the same seconds read moving but nobody arrived.
    const above = Math.max(...sizes) * 1.01;
    const small = walkIn(0.05, { presenceEntryFloorRatio: above }).frames;
    expect(small.filter((f) => f.second >= 50 && f.second < 60 && f.motion >= 0.5).length).toBe(moving.length);
    expect(small.every((f) => !f.presence && f.state === 'empty')).toBe(true);
  });

  it('while the floor is still being learned, every moving second counts toward an entry', () => {
    const { frames, size } = walkIn(0.05);
    const above = Math.max(...frames.filter((f) => f.second >= 50 && f.second < 60).map((f) => size[f.second])) * 1.01;
    const young = walkIn(0.05, { presenceEntryFloorRatio: above, presenceFloorWarmupSeconds: 120 }).frames;
    expect(young.filter((f) => f.second >= 55 && f.second < 70).every((f) => f.presence)).toBe(true);
  });
});

describe('LinkSensor: a slow link uses its family’s slow-link motion model', () => {
  /** Models whose motion says still always, and whose slow-link one says moving always: the state names the one used. */
  const models = {
    ...DEFAULT_SENSING_MODELS,
    motion: { ...DEFAULT_SENSING_MODELS.motion, intel5300: { features: ['log_spread'], mean: [0], scale: [1], weights: [0], bias: -10, threshold: 0.5 } },
    motionSlow: { intel5300: { features: ['log_spread'], mean: [0], scale: [1], weights: [0], bias: 10, threshold: 0.5 } },
    motionSlowBelow: { intel5300: 14 },
  };
  const run = (rateHz: number) => {
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models, configHash: sensingConfigHash(config, models) });
    const out: SensingFrame[] = [];
    for (const frame of syntheticLinkFrames([{ kind: 'still', seconds: 30, bpm: 14 }], { rateHz, loss: 0, seed: 7, nrx: 3, nsc: 30 })) out.push(...sensor.push(frame));
    return out.filter((f) => f.second >= 12);
  };

  it('reads movement with the slow model under the family’s rate, and with its own model above it', () => {
    // 10 packets/s over the last 10 s is under the 14 a 20-packet/s family's model needs.
    expect(run(10).every((f) => f.motion > 0.99)).toBe(true);
    expect(run(20).every((f) => f.motion < 0.01)).toBe(true);
    // Without a slow model a family keeps its own at any rate.
    const config = SensingConfigSchema.parse({});
    const plain = { ...models, motionSlow: undefined };
    const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: plain, configHash: sensingConfigHash(config, plain) });
    const out: SensingFrame[] = [];
    for (const frame of syntheticLinkFrames([{ kind: 'still', seconds: 20, bpm: 14 }], { rateHz: 10, loss: 0, seed: 7, nrx: 3, nsc: 30 })) out.push(...sensor.push(frame));
    expect(out.every((f) => f.motion < 0.01)).toBe(true);
  });
});

describe('LinkSensor: a slow ESP32 link reads movement against its own quiet floor', () => {
  /** A slow model that reads one input, the spread over its floor: moving when the spread is 3 times its floor's or more. */
  const models = {
    ...DEFAULT_SENSING_MODELS,
    motionSlow: { int8: { features: ['log_spread_minus_floor'], mean: [0], scale: [1], weights: [4], bias: -4 * Math.log(3), threshold: 0.5, floorQuantile: 0.25 } },
    motionSlowBelow: { int8: 74 },
    motionFloor: { int8: { seconds: 300 } },
  };
  const run = (segments: SyntheticSegment[]) => {
    const config = SensingConfigSchema.parse({});
    const sensor = new LinkSensor({ tx: 'ap', rx: 'esp' }, { environmentId: 'room', config, models, configHash: sensingConfigHash(config, models) });
    const out: SensingFrame[] = [];
    for (const frame of syntheticLinkFrames(segments, { rateHz: 20, loss: 0, seed: 5, nrx: 1, nsc: 52, format: 'esp32' })) out.push(...sensor.push(frame));
    return { out, snapshot: sensor.snapshot() };
  };

  it('finds a walk after a quiet spell, and says what it reads against', () => {
    const { out, snapshot } = run([{ kind: 'empty', seconds: 60 }, { kind: 'moving', seconds: 20 }]);
    const quiet = out.filter((f) => f.second >= 5 && f.second < 58);
    const walk = out.filter((f) => f.second >= 62);
    expect(quiet.filter((f) => f.state === 'moving').length).toBeLessThanOrEqual(2);
    expect(walk.filter((f) => f.state === 'moving').length).toBeGreaterThanOrEqual(0.8 * walk.length);
    expect(snapshot.motionModel).toBe('slow-link');
    expect(snapshot.motionFloor).toEqual({ seconds: snapshot.lastSecond! + 1, window: 300, quantile: 0.25 });
  });

  it('is its own floor when it starts in movement: the walk is not read until a quiet spell gives the link its level', () => {
    // The floor is the lowest quarter of the link's seconds: the quiet spell must be more than a quarter of them.
    const { out } = run([{ kind: 'moving', seconds: 40 }, { kind: 'empty', seconds: 30 }, { kind: 'moving', seconds: 20 }]);
    expect(out.filter((f) => f.second >= 5 && f.second < 38).filter((f) => f.state === 'moving').length).toBeLessThanOrEqual(3);
    const again = out.filter((f) => f.second >= 72);
    expect(again.filter((f) => f.state === 'moving').length).toBeGreaterThanOrEqual(0.8 * again.length);
  });

  it('reads the shipped ESP32 model against the floor\'s minimum at the captures\' rate, and keeps no floor for a family without one', () => {
    const config = SensingConfigSchema.parse({});
    const esp = new LinkSensor({ tx: 'ap', rx: 'esp' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS) });
    for (const frame of syntheticLinkFrames([{ kind: 'empty', seconds: 20 }], { rateHz: 100, loss: 0, seed: 5, nrx: 1, nsc: 52, format: 'esp32' })) esp.push(frame);
    expect(esp.snapshot()).toMatchObject({ motionModel: 'captures-rate', motionFloor: { window: 300, quantile: 0 } });
    const intel = new LinkSensor({ tx: 'ap', rx: 'iwl' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS) });
    for (const frame of syntheticLinkFrames([{ kind: 'empty', seconds: 20 }], { rateHz: 20, loss: 0, seed: 5, nrx: 3, nsc: 30, format: 'intel5300' })) intel.push(frame);
    expect(intel.snapshot()).toMatchObject({ motionModel: 'captures-rate', motionFloor: null });
  });

  it('refuses models that read the floor without saying which quantile, or whose family keeps none', () => {
    const config = SensingConfigSchema.parse({});
    const noQuantile = { ...models, motionSlow: { int8: { ...models.motionSlow.int8, floorQuantile: undefined } } };
    expect(() => new LinkSensor({ tx: 'a', rx: 'b' }, { environmentId: 'room', config, models: noQuantile, configHash: '' })).toThrow(/the int8 motion model reads the link's floor \(log_spread_minus_floor\) but has no floorQuantile/);
    const noFloor = { ...models, motionFloor: undefined };
    expect(() => new LinkSensor({ tx: 'a', rx: 'b' }, { environmentId: 'room', config, models: noFloor, configHash: '' })).toThrow(/motionFloor\.int8 \(the seconds it keeps\) is not set/);
  });
});
