import { describe, expect, it } from 'vitest';
import { mergeRecentStates, tallyPhase, walkTestVerdict } from './walk-test';

/** What polling a link once a second gives: overlapping minutes of states, merged by second. */
function seenFrom(states: string, polls: number[]): Map<number, string> {
  const seen = new Map<number, string>();
  for (const last of polls) mergeRecentStates(seen, last, states.slice(Math.max(0, last - 59), last + 1));
  return seen;
}

describe('the installer’s walk test', () => {
  it('judges each phase on its own seconds after a 3-s grace, from overlapping polls', () => {
    // Seconds 0–9 before the test, quiet 10–29 (one door swing), walking 30–59 (a pause at the turn).
    const states = 'eeeeeeeeee' + 'mm' + 'eeeeeeeeemeeeeeeee' + 'eee' + 'mmmmmmmmmmmmsmmmmmmmmmmmmmm';
    const seen = seenFrom(states, [12, 20, 33, 47, 59]);
    const quiet = tallyPhase(seen, 9, 29);
    const walk = tallyPhase(seen, 29, 59);
    // The quiet phase's first 3 s (its leftover movement) are not judged.
    expect(quiet).toEqual({ seconds: 17, moving: 1 });
    expect(walk).toEqual({ seconds: 27, moving: 26 });
    const result = walkTestVerdict(quiet, walk);
    expect(result.verdict).toBe('pass');
    expect(result.lines).toEqual(['quiet: moving in 1 of 17 s (6 %; at most 10 % passes)', 'walking: moving in 26 of 27 s (96 %; at least 50 % passes)']);
  });

  it('fails a link that misses the walk or moves in a quiet room, saying what to change', () => {
    const missed = walkTestVerdict({ seconds: 20, moving: 0 }, { seconds: 20, moving: 6 });
    expect(missed.verdict).toBe('fail');
    expect(missed.lines[2]).toMatch(/^the link missed most of the walk: place the radios so that the walk crosses the line between them/);
    const restless = walkTestVerdict({ seconds: 20, moving: 5 }, { seconds: 20, moving: 20 });
    expect(restless.verdict).toBe('fail');
    expect(restless.lines[2]).toMatch(/^the link read movement with the room quiet: something else moves/);
    expect(walkTestVerdict({ seconds: 20, moving: 2 }, { seconds: 20, moving: 10 }).verdict).toBe('pass');
  });

  it('says when a phase sensed too few seconds to judge (a link not receiving)', () => {
    const seen = seenFrom('eeeemmm', [6]);
    const quiet = tallyPhase(seen, 0, 4);
    expect(quiet).toEqual({ seconds: 1, moving: 1 });
    const result = walkTestVerdict(quiet, tallyPhase(seen, 4, 40));
    expect(result.verdict).toBe('too_few');
    expect(result.lines[2]).toMatch(/^too few seconds sensed to judge/);
    // A link with no second yet adds nothing.
    const none = new Map<number, string>();
    mergeRecentStates(none, null, '');
    expect(none.size).toBe(0);
  });
});
