import { describe, expect, it } from 'vitest';
import { BreathingPattern, BreathingVariabilitySchema, DEFAULT_RANDOM_RANGES, PersonSchema, PersonTimeline, randomScenario, Simulator, stillPersonScenario } from '../index.js';

/** A person sitting still for `seconds`, breathing at `bpm` with the default variability. */
function sitter(bpm: number, seconds: number, seed: number | string, extra: Record<string, unknown> = {}) {
  return new PersonTimeline(PersonSchema.parse({ id: 1, breathingRateBpm: bpm, breathingDepthM: 0.006, start: { x: 2, y: 2, yawDeg: 0 }, script: [{ action: 'sit', duration: seconds }], ...extra }), seed);
}

/** Chest displacement sampled at `rate` Hz over [t0, t1). */
function chest(p: PersonTimeline, t0: number, t1: number, rate: number): number[] {
  const out: number[] = [];
  for (let t = t0; t < t1; t += 1 / rate) out.push(p.sample(t).pose!.breath);
  return out;
}

/** Times where the chest rises through half the mean depth below rest: once per breath (every breath starts at −depth and rises at least 0.75 × depth). */
function breathOnsets(x: number[], rate: number, depth: number): number[] {
  const level = -0.5 * depth;
  const out: number[] = [];
  for (let i = 1; i < x.length; i++) if (x[i - 1] < level && x[i] >= level) out.push(i / rate);
  return out;
}

const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
const cv = (v: number[]) => Math.sqrt(mean(v.map((x) => (x - mean(v)) ** 2))) / mean(v);

describe('breathing: breath by breath, as people breathe at rest', () => {
  it('varies the breath-to-breath interval within the documented range (CV 0.10–0.25 at rest; the old sine had 0)', () => {
    const p = sitter(15, 1300, 7);
    const onsets = breathOnsets(chest(p, 5, 1205, 20), 20, 0.006);
    const intervals = onsets.slice(1).map((t, i) => t - onsets[i]);
    expect(intervals.length).toBeGreaterThan(250);
    expect(cv(intervals)).toBeGreaterThanOrEqual(0.1);
    expect(cv(intervals)).toBeLessThanOrEqual(0.25);
  });

  it('varies the depth from breath to breath and sighs now and then (a breath at least twice as deep, about every 5 minutes)', () => {
    const b = new BreathingPattern(15, 0.006, undefined, 'depth');
    const breaths = b.breathsBetween(0, 3600);
    const depths = breaths.filter((x) => !x.sigh).map((x) => x.depthM);
    expect(cv(depths)).toBeGreaterThan(0.15);
    expect(cv(depths)).toBeLessThan(0.35);
    const sighs = breaths.filter((x) => x.sigh);
    // 12 expected an hour; a Poisson count lies in 4–24 with probability > 0.99.
    expect(sighs.length).toBeGreaterThanOrEqual(4);
    expect(sighs.length).toBeLessThanOrEqual(24);
    for (const s of sighs) expect(s.depthM).toBeGreaterThan(2 * 0.006 * 0.5);
    expect(mean(sighs.map((s) => s.depthM))).toBeGreaterThan(2 * mean(depths));
  });

  it('breathes in faster than out: the chest rises for about 40 % of the time (I:E 1:1.5; a sine rises half the time)', () => {
    const x = chest(sitter(12, 400, 3), 5, 395, 50);
    let rising = 0;
    for (let i = 1; i < x.length; i++) if (x[i] > x[i - 1]) rising++;
    const share = rising / (x.length - 1);
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.45);
  });

  it('keeps the declared rate as the long-run mean (sighs included), at any rate and seed', () => {
    for (const [bpm, seed] of [[8, 'a'], [15, 'b'], [22, 'c'], [30, 'd']] as const) {
      const b = new BreathingPattern(bpm, 0.005, undefined, seed);
      // Three hours: the mean of ~2,700 correlated periods is within ~1.5 % of the declared one.
      expect(Math.abs(b.rateBetween(0, 10_800) - bpm), `${bpm} bpm`).toBeLessThan(0.02 * bpm);
    }
  });

  it('the windowed rate (the truth a 30 s estimate is scored against) moves around the declared rate, as real breathing does', () => {
    const b = new BreathingPattern(15, 0.005, undefined, 'window');
    const rates = Array.from({ length: 100 }, (_, i) => b.rateBetween(30 * i, 30 * i + 30));
    expect(Math.max(...rates) - Math.min(...rates)).toBeGreaterThan(1);
    expect(Math.abs(mean(rates) - 15)).toBeLessThan(0.3);
  });

  it('is reproducible: the same seed gives the same chest motion and the same CSI, another seed other breaths', () => {
    expect(chest(sitter(14, 120, 11), 0, 120, 10)).toEqual(chest(sitter(14, 120, 11), 0, 120, 10));
    expect(chest(sitter(14, 120, 11), 0, 120, 10)).not.toEqual(chest(sitter(14, 120, 12), 0, 120, 10));
    // Asked out of order and after pruning, a pattern gives what a fresh one gives.
    const b = new BreathingPattern(14, 0.005, undefined, 'order');
    const late = b.displacementAt(500);
    b.prune(400);
    expect(b.displacementAt(450)).toBe(new BreathingPattern(14, 0.005, undefined, 'order').displacementAt(450));
    expect(late).toBe(new BreathingPattern(14, 0.005, undefined, 'order').displacementAt(500));
    const scenario = stillPersonScenario({ posture: 'sit', durationS: 20 });
    const bytes = () => [...new Simulator(scenario).run(20)].filter((_, i) => i % 50 === 0).map((tick) => Array.from(tick.frames[0].csi.re));
    expect(bytes()).toEqual(bytes());
  });

  it('the simulator reports the rate the CSI carries over any window (the scored truth), null for nobody', () => {
    const scenario = stillPersonScenario({ posture: 'sit', durationS: 60, breathingRateBpm: 12 });
    const sim = new Simulator(scenario);
    const own = new PersonTimeline(PersonSchema.parse(scenario.people![0]), sim.scenario.seed);
    expect(sim.breathingRateBetween(1, 10, 40)).toBeCloseTo(own.breathing.rateBetween(10, 40), 12);
    expect(sim.breathingRateBetween(99, 10, 40)).toBeNull();
  });

  it('documents its defaults in the schema and rejects variability out of range', () => {
    expect(BreathingVariabilitySchema.parse({})).toEqual({ rateCv: 0.15, depthCv: 0.25, inhaleFraction: 0.4, sighEveryS: 300, sighDepth: 2.5 });
    expect(() => PersonSchema.parse({ id: 1, breathing: { rateCv: 0.9 } })).toThrow();
    expect(() => PersonSchema.parse({ id: 1, breathing: { inhaleFraction: 0.7 } })).toThrow();
  });

  it('the randomiser gives every person breathing variability inside its documented ranges, the same for the same seed', () => {
    const within = (v: number, [lo, hi]: readonly [number, number]) => v >= lo - 1e-9 && v <= hi + 1e-9;
    for (const seed of [1, 2, 3, 4, 5]) {
      const people = randomScenario({ seed, durationS: 30 }).people;
      expect(people.length).toBeGreaterThan(0);
      for (const p of people) {
        expect(within(p.breathing!.rateCv, DEFAULT_RANDOM_RANGES.breathingRateCv)).toBe(true);
        expect(within(p.breathing!.depthCv, DEFAULT_RANDOM_RANGES.breathingDepthCv)).toBe(true);
        expect(within(p.breathing!.inhaleFraction, DEFAULT_RANDOM_RANGES.inhaleFraction)).toBe(true);
        expect(within(p.breathing!.sighEveryS, DEFAULT_RANDOM_RANGES.sighEveryS)).toBe(true);
      }
      expect(randomScenario({ seed, durationS: 30 }).people).toEqual(people);
    }
  });
});
