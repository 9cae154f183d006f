import { describe, expect, it } from 'vitest';
import { PresenceLatch, type PresenceBasis, type PresenceRules } from './presence.js';

const RULES = { entryMovingSeconds: 3, entryWindowSeconds: 10, holdSeconds: 300, breathingStartSeconds: 20, breathingWindowSeconds: 30 };

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
});
