import type { CsiFrame, SensingFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, PROFILE_FALL_MODEL, PROFILE_FEATURES, SensingConfigSchema, sensingConfigHash, type LogisticModel, type ProfileEvent, type SensingModels } from '../index.js';
import { rotatedChains as rotated, syntheticLinkFrames, type SyntheticOptions, type SyntheticSegment } from '../testing/synthetic-link.js';

/** A profile model that calls every judged event a fall: shows where the detector's falls go. */
const EVERY_EVENT: LogisticModel = { features: ['p_peak'], mean: [0], scale: [1], weights: [0], bias: 20, threshold: 0.5 };

/** A model that reads every feature group (both profiles and the state change), so that every feature is computed. */
const EVERY_GROUP: LogisticModel = { features: ['a_peak', 'p_peak', 's_amp_shift'], mean: [0, 0, 0], scale: [1, 1, 1], weights: [0, 0, 0], bias: 0, threshold: 0.5 };

function sense(frames: CsiFrame[], profileFall: LogisticModel | undefined = PROFILE_FALL_MODEL, settings: Record<string, unknown> = {}) {
  const config = SensingConfigSchema.parse(settings);
  const models: SensingModels = { ...DEFAULT_SENSING_MODELS, profileFall };
  const events: ProfileEvent[] = [];
  const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models, configHash: sensingConfigHash(config, models), onProfileEvent: (e) => events.push(e) });
  const out: SensingFrame[] = [];
  for (const frame of frames) out.push(...sensor.push(frame));
  out.push(...sensor.finish());
  return { out, events };
}

const story: SyntheticSegment[] = [{ kind: 'still', seconds: 10, bpm: 15 }, { kind: 'moving', seconds: 2 }, { kind: 'still', seconds: 16, bpm: 15 }, { kind: 'moving', seconds: 2 }, { kind: 'still', seconds: 12, bpm: 15 }];
const intel: SyntheticOptions = { rateHz: 20, loss: 0.1, seed: 11 };

describe('velocity-profile falls', () => {
  it('judges each movement once, when what followed it is in view, and not before', () => {
    const { events } = sense(syntheticLinkFrames(story, intel));
    const near = (from: number, to: number) => events.filter((e) => e.second >= from && e.second < to);
    expect(near(9, 13)).toHaveLength(1);
    expect(near(27, 31)).toHaveLength(1);
    for (let i = 1; i < events.length; i++) expect(events[i].second - events[i - 1].second).toBeGreaterThan(1);
    for (const e of events) expect(e.features).toHaveLength(PROFILE_FEATURES.length);
  });

  it("gives the link's falls where it applies: the frame of the second it judged carries the fall and activity 'fall'", () => {
    // Every judged event, the still stretches' too: the movement guard (tested below) is off here.
    const { out, events } = sense(syntheticLinkFrames(story, intel), EVERY_EVENT, { fallMovementGuard: false });
    const falls = out.flatMap((f) => f.falls.map((fall) => ({ fall, frame: f })));
    expect(falls).toHaveLength(events.length);
    for (const { fall, frame } of falls) {
      expect(frame.activity).toBe('fall');
      // Judged 5–6 s after its peak (the last one at the end of input).
      expect(frame.time - fall.time).toBeGreaterThanOrEqual(0);
      expect(frame.time - fall.time).toBeLessThanOrEqual(8000);
    }
    const origin = out[0].time - 1000;
    expect(falls.some(({ fall }) => Math.abs((fall.time - origin) / 1000 - 11) < 2)).toBe(true);
  });

  it('raises no fall on a link that never reads moving, even with a model that calls every event a fall', () => {
    // An empty room's noise still gives the detectors peaks to judge; nobody moved, so nobody fell.
    const quiet: SyntheticSegment[] = [{ kind: 'empty', seconds: 40 }];
    const burstModels = { fall: { ...DEFAULT_SENSING_MODELS.fall, bias: 20, threshold: 0.5 } };
    // The burst detector judges only peaks twice its context; a ratio of 1 lets it judge every local maximum.
    for (const [options, models, settings] of [[intel, {}, {}], [{ ...intel, format: 'esp32-csi-tool', rateHz: 100 }, burstModels, { fallPeakRatio: 1 }]] as const) {
      const frames = syntheticLinkFrames(quiet, options);
      const run = (guard: boolean) => {
        const config = SensingConfigSchema.parse({ ...settings, fallMovementGuard: guard });
        const all: SensingModels = { ...DEFAULT_SENSING_MODELS, profileFall: EVERY_EVENT, ...models };
        const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: all, configHash: sensingConfigHash(config, all) });
        const out: SensingFrame[] = [];
        for (const frame of frames) out.push(...sensor.push(frame));
        return [...out, ...sensor.finish()];
      };
      const unguarded = run(false);
      expect(unguarded.some((f) => f.falls.length > 0), options.format ?? 'intel5300').toBe(true);
      const guarded = run(true);
      expect(guarded.some((f) => f.state === 'moving')).toBe(false);
      expect(guarded.flatMap((f) => f.falls)).toEqual([]);
    }
  });

  it('with the motion guard, drops falls where motion never reached 0.5 and keeps the one at the movement', () => {
    // An empty room's noise gives the detector peaks to judge; only the one at the movement has motion near it.
    const scene: SyntheticSegment[] = [{ kind: 'empty', seconds: 30 }, { kind: 'moving', seconds: 2 }, { kind: 'empty', seconds: 14 }];
    const frames = syntheticLinkFrames(scene, intel);
    const fallsAt = (fallMotionGuard: boolean) => {
      const { out } = sense(frames, EVERY_EVENT, { fallMotionGuard });
      const origin = out[0].time - 1000;
      return { out, at: out.flatMap((f) => f.falls.map((fall) => (fall.time - origin) / 1000)) };
    };
    const unguarded = fallsAt(false);
    expect(unguarded.at.some((t) => t < 25)).toBe(true);
    const guarded = fallsAt(true);
    expect(guarded.at.length).toBeGreaterThan(0);
    for (const t of guarded.at) expect(t).toBeGreaterThan(27);
    for (const t of guarded.at) expect(guarded.out.some((f) => f.motion >= 0.5 && f.second + 1 > t - 2 && f.second < t + 3)).toBe(true);
  });

  it('leaves single-chain links to the burst detector', () => {
    const { events } = sense(syntheticLinkFrames(story, { ...intel, nrx: 1 }), EVERY_EVENT);
    expect(events).toHaveLength(0);
    const esp = sense(syntheticLinkFrames(story, { ...intel, format: 'esp32-csi-tool' }), EVERY_EVENT);
    expect(esp.events).toHaveLength(0);
  });

  it("does not depend on the card's random common phase, which the phase between chains cancels", () => {
    const frames = syntheticLinkFrames(story, intel);
    let seed = 7;
    const turned = frames.map((f) => {
      seed = (seed * 16807) % 2147483647;
      const a = (seed / 2147483647) * 2 * Math.PI;
      const re = f.csi.re.map((x, i) => x * Math.cos(a) - f.csi.im[i] * Math.sin(a));
      const im = f.csi.im.map((x, i) => f.csi.re[i] * Math.sin(a) + x * Math.cos(a));
      return { ...f, csi: { re, im } };
    });
    const a = sense(frames, EVERY_GROUP).events;
    const b = sense(turned, EVERY_GROUP).events;
    expect(a.length).toBeGreaterThanOrEqual(2);
    expect(b.map((e) => e.second)).toEqual(a.map((e) => e.second));
    for (let i = 0; i < a.length; i++) for (let j = 0; j < PROFILE_FEATURES.length; j++) expect(b[i].features[j]).toBeCloseTo(a[i].features[j], 3);
  });

  it('carries on, in time order, when the device clock goes back mid-capture', () => {
    const frames = syntheticLinkFrames(story, intel);
    const cut = Math.floor(frames.length / 2);
    const wrapped = frames.map((f, i) => (i < cut ? f : { ...f, timestamp: f.timestamp - 4_000_000_000 }));
    const { out, events } = sense(wrapped, EVERY_EVENT);
    expect(out.length).toBeGreaterThan(30);
    for (let i = 1; i < events.length; i++) expect(events[i].second).toBeGreaterThan(events[i - 1].second);
  });

  it('reads a packet with rotated receive chains in the true order, so an antenna-switching glitch is no fall', () => {
    const still: SyntheticSegment[] = [{ kind: 'still', seconds: 40, bpm: 14 }];
    const frames = syntheticLinkFrames(still, { rateHz: 20, seed: 5 });
    let glitches = 0;
    const glitched = frames.map((f, i) => (i > 0 && i % 137 === 0 ? (glitches++, rotated(f)) : f));
    expect(glitches).toBeGreaterThan(4);
    const clean = sense(frames, EVERY_GROUP);
    const got = sense(glitched, EVERY_GROUP);
    // The same events, judged from the same features: the glitches left no trace in the profile.
    expect(got.events.map((e) => e.second)).toEqual(clean.events.map((e) => e.second));
    for (let i = 0; i < got.events.length; i++) for (let j = 0; j < PROFILE_FEATURES.length; j++) expect(got.events[i].features[j]).toBeCloseTo(clean.events[i].features[j], 6);
    expect(sense(glitched).out.flatMap((f) => f.falls)).toEqual([]);
  });
});
