import { describe, expect, it } from 'vitest';
import { SensingConfigSchema } from '../config.js';
import { PresenceLatch, presenceRulesFromConfig, type PresenceBasis, type PresenceRules } from './presence.js';

/** The shipped rules. */
const SHIPPED = presenceRulesFromConfig(SensingConfigSchema.parse({}));
/** The core rules alone: entries, hold and breathing starts, with the size, steady and machine rules off. */
const RULES: PresenceRules = { ...SHIPPED, entryMovingSeconds: 3, entrySize: 0, keepSize: 0, steadyKeepSeconds: 0, machineLineSeconds: 0, faintKeepSeconds: 0, breathingStartMaxBpm: null };

/** Run a story of seconds ('m' moving, 'b' breathing seen, '.' neither) through a latch. */
function story(text: string, rules: PresenceRules = RULES): PresenceBasis[] {
  const latch = new PresenceLatch(rules);
  return [...text].map((c, second) => latch.update(second, c === 'm', c === 'b', false, c === 'f'));
}

describe('PresenceLatch', () => {
  it('does not start presence on a door swing or a glitch (one or two moving seconds)', () => {
    const out = story(`${'.'.repeat(20)}mm${'.'.repeat(20)}m${'.'.repeat(20)}`);
    expect(out.every((b) => b === 'none')).toBe(true);
  });

  it('starts presence on someone walking in, and holds it while they sit still', () => {
    const out = story(`${'.'.repeat(5)}mmmm${'.'.repeat(310)}`);
    expect(out.slice(0, 7).every((b) => b === 'none')).toBe(true);
    expect(out[7]).toBe('entry');
    expect(out.slice(9, 8 + 300).every((b) => b === 'hold')).toBe(true);
    expect(out.at(-1)).toBe('none');
  });

  it('lets sustained breathing start presence (someone still from the start), not a line that comes and goes', () => {
    const steady = story('b'.repeat(40));
    expect(steady[18]).toBe('none');
    expect(steady[19]).toBe('breathing');
    const flicker = story('bb.'.repeat(4) + '.'.repeat(10) + 'bb.'.repeat(4) + '.'.repeat(10));
    expect(flicker.every((b) => b === 'none')).toBe(true);
  });

  it('a moving second of someone present (a fidget) keeps them; after the hold they are gone', () => {
    const out = story(`mmm${'.'.repeat(200)}m${'.'.repeat(301)}`);
    expect(out[203]).toBe('moving');
    expect(out[203 + 300]).toBe('hold');
    expect(out[203 + 301]).toBe('none');
  });

  it('a faint breathing line keeps a still person past the hold, and stops keeping them once it is gone', () => {
    const rules = { ...RULES, faintKeepSeconds: 120 };
    // Walk in, sit still; the link sees a faint line now and then (every 100 s), never a rate.
    const out = story(`mmm${('.'.repeat(99) + 'f').repeat(6)}${'.'.repeat(130)}`, rules);
    expect(out.slice(3, 603).every((b) => b !== 'none')).toBe(true);
    expect(out[2 + 301]).toBe('faint');
    expect(out[602 + 120]).toBe('faint');
    expect(out[602 + 121]).toBe('none');
    // Without the rule the same story ends 300 s after the walk.
    expect(story(`mmm${('.'.repeat(99) + 'f').repeat(6)}`)[2 + 301]).toBe('none');
  });

  it('a faint line never starts presence (the noise or a fan of an empty room)', () => {
    const out = story('f'.repeat(200), { ...RULES, faintKeepSeconds: 120 });
    expect(out.every((b) => b === 'none')).toBe(true);
  });

  describe('person-sized rules', () => {
    const SIZED = { ...RULES, entryMovingSeconds: 4, entrySize: 2 };
    /** 'M' a person-sized moving second (3 × the floor), 'm' a small one (1.4 ×), 'w' one while the floor is young, 'b' a rate at `bpm`. */
    function sized(text: string, rules: PresenceRules, bpm = 15): PresenceBasis[] {
      const latch = new PresenceLatch(rules);
      return [...text].map((c, second) => latch.update(second, 'Mmw'.includes(c), c === 'b', false, false, { size: c === 'M' ? 3 : c === 'm' ? 1.4 : Infinity, breathingBpm: c === 'b' ? bpm : null }));
    }

    it('small movement (a door, a cat, a wandering link) never makes an entry, however long; person-sized movement does', () => {
      expect(sized(`${'.'.repeat(40)}${'m'.repeat(30)}${'.'.repeat(20)}`, SIZED).every((b) => b === 'none')).toBe(true);
      const person = sized(`${'.'.repeat(40)}MMMM${'.'.repeat(20)}`, SIZED);
      expect(person.slice(0, 43).every((b) => b === 'none')).toBe(true);
      expect(person[43]).toBe('entry');
      expect(person.at(-1)).toBe('hold');
      // Three person-sized seconds among small ones are not four.
      expect(sized(`MmMmMm${'.'.repeat(10)}`, SIZED).every((b) => b === 'none')).toBe(true);
    });

    it('while the floor is young every moving second counts', () => {
      expect(sized('wwww', SIZED)[3]).toBe('entry');
    });

    it('once present, a small movement still keeps someone (keepSize off), and with keepSize it does not restart the hold', () => {
      const story = `MMMM${'.'.repeat(250)}m${'.'.repeat(100)}`;
      const kept = sized(story, SIZED);
      expect(kept[254]).toBe('moving');
      expect(kept[254 + 100]).toBe('hold');
      const strict = sized(story, { ...SIZED, keepSize: 2 });
      expect(strict[254]).toBe('hold');
      expect(strict[3 + 300]).toBe('hold');
      expect(strict[3 + 301]).toBe('none');
    });

    it('with breathingStartMaxBpm, a sustained line above it (a fan\'s alias) starts nothing, yet a rate keeps a present person', () => {
      const rules = { ...SIZED, breathingStartMaxBpm: 25 };
      expect(sized('b'.repeat(60), rules, 34.5).every((b) => b === 'none')).toBe(true);
      expect(sized('b'.repeat(60), rules, 15)[19]).toBe('breathing');
      const present = sized(`MMMM${'.'.repeat(10)}${'b'.repeat(5)}`, rules, 34.5);
      expect(present.slice(14).every((b) => b === 'breathing')).toBe(true);
    });
  });

  describe('steady line (a still person\'s faint breathing)', () => {
    const STEADY = { ...RULES, steadyKeepSeconds: 120, steadyKeepShare: 0.7, steadyToleranceBpm: 0.5 };
    /** 'm' moving, '.' still with no spectrum, 'p' still with a spectrum peak from `peak(second)`. */
    function peaks(text: string, rules: PresenceRules, peak: (second: number) => number): PresenceBasis[] {
      const latch = new PresenceLatch(rules);
      return [...text].map((c, second) => latch.update(second, c === 'm', false, false, false, { peakBpm: c === 'p' ? peak(second) : null }));
    }
    // Walk in, then 600 s still; the spectrum is read from 20 s on (a still run long enough for a window).
    const stillStory = `mmm${'.'.repeat(20)}${'p'.repeat(600)}`;

    it('keeps a still person whose weak spectrum peak sits at one rate past the hold, and not once the line wanders', () => {
      // Breathing at 12.7 bpm, read within ±0.3 bpm (the parabola's jitter) but never strong enough for a rate.
      const out = peaks(stillStory, STEADY, (s) => 12.7 + 0.3 * Math.sin(s));
      expect(out[2 + 300]).toBe('hold');
      expect(out[2 + 301]).toBe('steady');
      expect(out.at(-1)).toBe('steady');
      // Without the rule the same story ends when the hold does: the still-person miss of the validation rooms.
      expect(peaks(stillStory, RULES, (s) => 12.7 + 0.3 * Math.sin(s))[2 + 301]).toBe('none');
    });

    it('with the shipped settings keeps a person whose line wanders as breathing does (±1.5 bpm), and still lets noise go', () => {
      const shipped = { ...RULES, steadyKeepSeconds: SHIPPED.steadyKeepSeconds, steadyKeepShare: SHIPPED.steadyKeepShare, steadyToleranceBpm: SHIPPED.steadyToleranceBpm };
      // A rate varying breath to breath: the 30-s window's peak drifts over ±1.5 bpm within a couple of minutes.
      const wandering = (s: number) => 14 + 1.5 * Math.sin(s / 20);
      expect(peaks(stillStory, shipped, wandering).at(-1)).toBe('steady');
      // The old ±0.5 bpm in 70 % of the seconds lost this person when the hold ran out.
      expect(peaks(stillStory, STEADY, wandering).at(-1)).toBe('none');
      let x = 7;
      const noise = () => 6 + ((x = (x * 48271) % 2147483647) % 3400) / 100;
      expect(peaks(stillStory, shipped, noise)[2 + 301]).toBe('none');
    });

    it('lets go when the peak wanders (noise after the person left)', () => {
      // A peak anywhere in 6–40 bpm, as an empty channel's noise gives.
      let x = 7;
      const noise = () => 6 + ((x = (x * 48271) % 2147483647) % 3400) / 100;
      const out = peaks(stillStory, STEADY, noise);
      expect(out[2 + 301]).toBe('none');
    });

    it('never starts presence: a fan\'s line is as steady as breathing', () => {
      const out = peaks('p'.repeat(400), STEADY, () => 34.5);
      expect(out.every((b) => b === 'none')).toBe(true);
    });

    it('needs the share of the window: a steady line read in too few seconds keeps nothing', () => {
      // Peaks in one second of two: 60 of 120, under the 0.7 share.
      const sparse = `mmm${'.'.repeat(20)}${'p.'.repeat(300)}`;
      expect(peaks(sparse, STEADY, () => 12.7)[2 + 301]).toBe('none');
    });
  });
  describe('machine line (a fan\'s aliased blade rate)', () => {
    /** 'M' a person-sized moving second, '.' still with no spectrum, 'b' a rate read at `rate(second)` (its peak too), 'p' a peak too weak for a rate. */
    function lines(text: string, rules: PresenceRules, rate: (second: number) => number): PresenceBasis[] {
      const latch = new PresenceLatch(rules);
      return [...text].map((c, second) => latch.update(second, c === 'M', c === 'b', false, false, { size: 3, breathingBpm: c === 'b' ? rate(second) : null, peakBpm: 'bp'.includes(c) ? rate(second) : null }));
    }
    const fan = () => 27.5;
    /** A rate that varies breath by breath: the 30-s window's rate drifts over ±1.5 bpm within minutes. */
    const breath = (s: number) => 15 + 1.5 * Math.sin(s / 20);

    it('a fan\'s line that started presence in an empty room stops keeping it once it has held one rate for minutes', () => {
      const out = lines('b'.repeat(600), SHIPPED, fan);
      expect(out[19]).toBe('breathing'); // too early to tell from breath: 20 s of a rate start presence
      expect(out.at(-1)).toBe('none');
      // Without the rule the fan keeps the empty room present for good.
      expect(lines('b'.repeat(600), { ...SHIPPED, machineLineSeconds: 0 }, fan).at(-1)).toBe('breathing');
    });

    it('a still person\'s wandering rate keeps them present all along', () => {
      const out = lines(`MMMM${'.'.repeat(20)}${'b'.repeat(600)}`, SHIPPED, breath);
      expect(out.slice(3).every((b) => b !== 'none')).toBe(true);
      expect(out.at(-1)).toBe('breathing');
    });

    it('after the person walked out, a fan\'s weak line no longer keeps the room by the steady keep once the hold ends', () => {
      const left = `MMMM${'.'.repeat(20)}${'p'.repeat(400)}`;
      expect(lines(left, SHIPPED, fan)[3 + 300]).toBe('hold');
      expect(lines(left, SHIPPED, fan)[3 + 301]).toBe('none');
      expect(lines(left, { ...SHIPPED, machineLineSeconds: 0 }, fan)[3 + 301]).toBe('steady');
    });
  });

  it('takes every default from the sensing config (one place)', () => {
    const config = SensingConfigSchema.parse({ presenceSteadyToleranceBpm: 1, presenceMachineLineShare: 0.7, presenceBreathingStartMaxBpm: 25 });
    const rules = presenceRulesFromConfig(config);
    expect(rules).toMatchObject({ steadyToleranceBpm: 1, machineLineShare: 0.7, breathingStartMaxBpm: 25, holdSeconds: config.presenceHoldSeconds, entrySize: config.presenceEntryFloorRatio });
    expect(Object.values(rules).every((v) => v !== undefined)).toBe(true);
  });
});
