import type { LiveSensing } from './types';

/** One second of a room's CSI sensing as the Live view keeps it. */
export interface SensingSample {
  /** The second's end (ms, from its `timestamp`). */
  t: number;
  presence: boolean;
  state: string;
  motion: number;
  falls: number;
  /** Seconds the server skipped for this client just before this one (`skipped_seconds`, a slow connection). */
  missedBefore: number;
}

/** Seconds of a window by what the room read, and what the strip could not show. */
export interface SensingSummary {
  /** Seconds received in the window. */
  seconds: number;
  present: number;
  empty: number;
  still: number;
  moving: number;
  /** Seconds whose state is none of the three (a link still warming up, say). */
  other: number;
  falls: number;
  /** Seconds the server skipped for this connection (counted, not shown). */
  missed: number;
}

/** The sample a sensing_update adds (its `skipped_seconds`, when the server sent one). */
export function toSensingSample(s: LiveSensing, skippedSeconds: unknown): SensingSample {
  const missed = typeof skippedSeconds === 'number' && Number.isFinite(skippedSeconds) && skippedSeconds > 0 ? Math.round(skippedSeconds) : 0;
  return { t: Date.parse(s.timestamp), presence: s.presence, state: s.state, motion: Math.min(1, Math.max(0, s.motion)), falls: s.falls.length, missedBefore: missed };
}

/**
 * Add a second to a room's history, keeping the seconds of the last `windowMs` before the newest
 * (by the seconds' own times, so a replay at its own pace reads right); a second older than the
 * newest (a reconnect's first) replaces nothing and is kept in order.
 */
export function addSensingSample(history: SensingSample[], sample: SensingSample, windowMs: number): SensingSample[] {
  if (!Number.isFinite(sample.t)) return history;
  const next = history.filter((s) => s.t !== sample.t);
  let at = next.length;
  while (at > 0 && next[at - 1].t > sample.t) at--;
  next.splice(at, 0, sample);
  const newest = next[next.length - 1].t;
  return next.filter((s) => s.t > newest - windowMs);
}

/** What a room read over its history: seconds present, empty, still, moving, falls and seconds missed. */
export function summarizeSensing(history: SensingSample[]): SensingSummary {
  const out: SensingSummary = { seconds: history.length, present: 0, empty: 0, still: 0, moving: 0, other: 0, falls: 0, missed: 0 };
  for (const s of history) {
    if (s.presence) out.present++;
    if (s.state === 'empty' || s.state === 'still' || s.state === 'moving') out[s.state]++;
    else out.other++;
    out.falls += s.falls;
    out.missed += s.missedBefore;
  }
  return out;
}

/** A duration in seconds as people read it: `45 s`, `3 min 05 s`. */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m} min ${String(s).padStart(2, '0')} s`;
}

/** One line under a room's strip: how long it read present, moving and still, falls, and what was missed. */
export function describeSensingHistory(summary: SensingSummary, windowMs: number): string {
  if (!summary.seconds) return 'no sensing seconds yet';
  const span = Math.round(windowMs / 60_000);
  const parts = [
    `last ${summary.seconds < (windowMs / 1000) ? formatSeconds(summary.seconds) : `${span} min`}: someone present ${formatSeconds(summary.present)}`,
    `moving ${formatSeconds(summary.moving)}`,
    `still ${formatSeconds(summary.still)}`,
    `empty ${formatSeconds(summary.empty)}`,
    summary.falls ? `${summary.falls} fall${summary.falls === 1 ? '' : 's'}` : 'no falls',
  ];
  if (summary.missed) parts.push(`${formatSeconds(summary.missed)} not received (the connection fell behind; the server skipped them)`);
  return parts.join(' · ');
}

/** Colour of a second's state on the strip. */
export const STATE_COLOURS: Record<string, string> = { empty: '#cbd5e1', still: '#4363d8', moving: '#f58231' };

/** A bar of the strip: where it sits (0–1 of the window), its height (0–1) and colour. */
export interface StripBar {
  x: number;
  width: number;
  height: number;
  colour: string;
  kind: 'second' | 'missed' | 'fall';
}

/**
 * The strip's bars for the window ending at the newest second: one per second (height = motion,
 * at least a sliver so an empty still second shows; colour = state), a grey hatch where seconds
 * were skipped, and a red mark at each second with a fall.
 */
export function sensingStripBars(history: SensingSample[], windowMs: number): StripBar[] {
  if (!history.length) return [];
  const end = history[history.length - 1].t;
  const start = end - windowMs;
  const second = 1000 / windowMs;
  const bars: StripBar[] = [];
  for (const s of history) {
    const x = (s.t - 1000 - start) / windowMs;
    if (s.missedBefore) {
      const from = Math.max(0, x - s.missedBefore * second);
      bars.push({ x: from, width: x - from, height: 1, colour: '#e2e8f0', kind: 'missed' });
    }
    bars.push({ x, width: second, height: Math.max(0.06, s.motion), colour: STATE_COLOURS[s.state] ?? '#94a3b8', kind: 'second' });
    if (s.falls) bars.push({ x, width: second, height: 1, colour: '#dc2626', kind: 'fall' });
  }
  return bars;
}
