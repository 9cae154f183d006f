import { describe, expect, it } from 'vitest';
import { planDataset, randomScenario, Simulator } from '../index.js';

describe("the randomiser's realism level", () => {
  it("'v2' adds distractors, drift and radio realism on top of exactly the rooms and people of level 'none'", () => {
    const plain = randomScenario({ seed: 11, durationS: 20 });
    const real = randomScenario({ seed: 11, durationS: 20, ranges: { realism: 'v2' } });
    expect(plain.distractors).toBeUndefined();
    expect(plain.drift).toBeUndefined();
    expect(real.room).toEqual(plain.room);
    expect(real.people).toEqual(plain.people);
    expect(real.clutter).toEqual(plain.clutter);
    expect(real.seed).toBe(plain.seed);
    expect(real.drift?.referenceSeed).toBeTypeOf('number');
    expect(real.impairments.timingOffsetMeanNs).toBeGreaterThan(0);
    expect(real.radios.every((r) => r.pattern)).toBe(true);
    expect(randomScenario({ seed: 11, durationS: 20, ranges: { realism: 'v2' } })).toEqual(real);
  });

  it('draws each distractor about as often as documented, and every drawn scenario runs with its reference', () => {
    const counts: Record<string, number> = {};
    const n = 200;
    for (let i = 0; i < n; i++) {
      const s = randomScenario({ seed: `count-${i}`, durationS: 10, ranges: { realism: 'v2' } });
      for (const kind of new Set((s.distractors ?? []).map((d) => d.kind))) counts[kind] = (counts[kind] ?? 0) + 1;
      if (i < 4) {
        const sim = new Simulator(s);
        const reference = new Simulator(s, { phase: 'reference' });
        for (let t = 0; t < 20; t++) {
          for (const f of [...sim.next().frames, ...reference.next().frames]) expect(Number.isFinite(f.csi.re[0])).toBe(true);
        }
      }
    }
    const share = (kind: string) => (counts[kind] ?? 0) / n;
    expect(share('fan')).toBeGreaterThan(0.25);
    expect(share('fan')).toBeLessThan(0.45);
    expect(share('door')).toBeGreaterThan(0.5);
    expect(share('pet')).toBeGreaterThan(0.15);
    expect(share('neighbour')).toBeGreaterThan(0.2);
  });

  it('keeps a subset of the effect groups with the others drawn exactly as with all of them', () => {
    const all = randomScenario({ seed: 12, durationS: 20, ranges: { realism: 'v2' } });
    const driftOnly = randomScenario({ seed: 12, durationS: 20, ranges: { realism: 'v2', realismEffects: ['drift'] } });
    expect(driftOnly.drift).toEqual(all.drift);
    expect(driftOnly.distractors).toBeUndefined();
    expect(driftOnly.impairments.csd).toBeUndefined();
    const radiosOnly = randomScenario({ seed: 12, durationS: 20, ranges: { realism: 'v2', realismEffects: ['radios'] } });
    expect(radiosOnly.impairments).toEqual(all.impairments);
    expect(radiosOnly.drift).toBeUndefined();
    expect(() => randomScenario({ seed: 12, ranges: { realism: 'v2', realismEffects: ['weather' as never] } })).toThrow(/realismEffects must be among distractors, drift, radios/);
  });

  it('datasets take the level through their ranges, and reject an unknown one', () => {
    const plan = planDataset({ rooms: 3, secondsPerSession: 5, seed: 2, ranges: { realism: 'v2' } });
    expect(plan.sessions.every((s) => s.scenario.drift !== undefined)).toBe(true);
    const plain = planDataset({ rooms: 3, secondsPerSession: 5, seed: 2 });
    expect(plan.splits).toEqual(plain.splits);
    expect(() => planDataset({ rooms: 3, secondsPerSession: 5, seed: 2, ranges: { realism: 'v9' as never } })).toThrow(/realism must be one of none, v2/);
  });
});
