/**
 * The installer's walk test of a sensing link: a quiet phase (nobody in the room, or everyone still
 * outside the link) and a walking phase (someone walks through the room, crossing between the radios).
 * A link passes when it read `moving` in at most QUIET_MOVING_SHARE of the quiet seconds and in at least
 * WALK_MOVING_SHARE of the walking ones. The states come from the link's own seconds (`recent_states`
 * of GET /api/v1/studio/sensing-links), so the page can poll once a second and lose nothing.
 */

/** The first seconds of a phase not judged: the motion window (2 s) and the person getting into place. */
export const PHASE_GRACE_SECONDS = 3;
/** The fewest judged seconds a phase needs. */
export const MIN_PHASE_SECONDS = 5;
export const QUIET_MOVING_SHARE = 0.1;
export const WALK_MOVING_SHARE = 0.5;

/** Add a link's last minute of states (a letter a second, ending with `lastSecond`) to what was seen. */
export function mergeRecentStates(seen: Map<number, string>, lastSecond: number | null, recent: string): void {
  if (lastSecond === null) return;
  const first = lastSecond - recent.length + 1;
  for (let i = 0; i < recent.length; i++) seen.set(first + i, recent[i]);
}

/** What a phase read: its judged seconds and how many of them were moving. */
export interface PhaseTally {
  seconds: number;
  moving: number;
}

/** The seconds after `from` + the grace up to `to` (link seconds, as `last_second` read at the phase's start and end). */
export function tallyPhase(seen: Map<number, string>, from: number, to: number, grace = PHASE_GRACE_SECONDS): PhaseTally {
  const tally = { seconds: 0, moving: 0 };
  for (let s = from + grace + 1; s <= to; s++) {
    const state = seen.get(s);
    if (state === undefined) continue;
    tally.seconds++;
    if (state === 'm') tally.moving++;
  }
  return tally;
}

export interface WalkTestResult {
  verdict: 'pass' | 'fail' | 'too_few';
  /** One sentence per phase, and what to do when it failed. */
  lines: string[];
}

const share = (t: PhaseTally) => (t.seconds ? t.moving / t.seconds : 0);
const pct = (x: number) => `${Math.round(100 * x)} %`;

/** Judge a link's two phases, in words an installer can act on. */
export function walkTestVerdict(quiet: PhaseTally, walk: PhaseTally): WalkTestResult {
  const lines = [
    `quiet: moving in ${quiet.moving} of ${quiet.seconds} s (${pct(share(quiet))}; at most ${pct(QUIET_MOVING_SHARE)} passes)`,
    `walking: moving in ${walk.moving} of ${walk.seconds} s (${pct(share(walk))}; at least ${pct(WALK_MOVING_SHARE)} passes)`,
  ];
  if (quiet.seconds < MIN_PHASE_SECONDS || walk.seconds < MIN_PHASE_SECONDS) {
    lines.push(`too few seconds sensed to judge (each phase needs ${MIN_PHASE_SECONDS} after its first ${PHASE_GRACE_SECONDS}): is the link receiving? Run the test again with longer phases.`);
    return { verdict: 'too_few', lines };
  }
  const quietOk = share(quiet) <= QUIET_MOVING_SHARE;
  const walkOk = share(walk) >= WALK_MOVING_SHARE;
  if (!quietOk) lines.push('the link read movement with the room quiet: something else moves (a fan, curtains, a pet, a door) or the radio’s gain keeps changing. Stop it or move the radios away from it, and lock the receiver’s gain if it can.');
  if (!walkOk) lines.push('the link missed most of the walk: place the radios so that the walk crosses the line between them, 1–5 m apart, about chest height, and check the packet rate above (10–100 packets/s).');
  return { verdict: quietOk && walkOk ? 'pass' : 'fail', lines };
}
