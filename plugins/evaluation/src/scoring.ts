import type { PoseFrame } from '@wiflow/core';
import { assignGated } from '@wiflow/plugin-tracker';

/** Seconds of track before a frame is scored for count and floor error (the tracker's births need them). */
export const WARM_UP_SECONDS = 5;

/**
 * How near a shown person must stand to a true one for the true one to count as detected, m.
 * Chosen before measuring (issue 21): beyond an arm's reach a shown person stands beside
 * someone, not on them; the floor error goals (0.40 m for one person, 0.60 m for more) are
 * well inside it.
 */
export const DETECTED_RADIUS_M = 1.0;

/** Floor error statistics in metres; null where no true person was matched. */
export interface FloorErrorStats {
  mean: number | null;
  median: number | null;
  p90: number | null;
}

/** Figures of one true-person-count bucket. */
export interface BucketFigures {
  floorErrorM: FloorErrorStats;
  /** Share of scored frames whose reported count (confirmed tracks) equals the true count. */
  countExact: number | null;
  /** Scored frames of the bucket. */
  frames: number;
  /**
   * Share of true person-frames with a distinct reported person within DETECTED_RADIUS_M
   * (one-to-one, as many true people so matched as possible).
   */
  detectedShare: number | null;
  /** Share of true person-frames that had a reported person to match at any distance (the floor error covers only these). */
  matchedShare: number | null;
}

/** People a user is shown in a tracked frame: confirmed tracks (what analytics count), not tentative ones. */
export function reportedPeople(frame: PoseFrame): PoseFrame['persons'] {
  return frame.persons.filter((p) => p.trackStatus !== 'tentative' && p.trackStatus !== 'ended');
}

/** Accumulates count and floor error of tracked frames against their truth, per true person count. */
export class BucketScorer {
  readonly #errors = new Map<string, number[]>();
  readonly #frames = new Map<string, number>();
  readonly #exact = new Map<string, number>();
  readonly #truePersons = new Map<string, number>();
  readonly #detected = new Map<string, number>();

  /** Score one session's tracked frames, skipping its first WARM_UP_SECONDS. */
  addSession(frames: readonly PoseFrame[]): void {
    if (!frames.length) return;
    const start = frames[0].timestamp;
    for (const frame of frames) {
      if (!frame.truth || frame.timestamp - start < WARM_UP_SECONDS * 1000) continue;
      const truth = frame.truth.persons;
      const reported = reportedPeople(frame);
      const buckets = [String(Math.min(truth.length, 3)), 'all'];
      const costs = truth.map((t) => reported.map((p) => Math.hypot(t.position.x - p.position.x, t.position.y - p.position.y)));
      const errors = assignGated(costs).map(([r, c]) => costs[r][c]);
      const detected = assignGated(costs.map((row) => row.map((d) => (d <= DETECTED_RADIUS_M ? d : Infinity)))).length;
      for (const bucket of truth.length === 0 ? ['all'] : buckets) {
        this.#frames.set(bucket, (this.#frames.get(bucket) ?? 0) + 1);
        if (reported.length === truth.length) this.#exact.set(bucket, (this.#exact.get(bucket) ?? 0) + 1);
        this.#truePersons.set(bucket, (this.#truePersons.get(bucket) ?? 0) + truth.length);
        this.#detected.set(bucket, (this.#detected.get(bucket) ?? 0) + detected);
        const list = this.#errors.get(bucket) ?? [];
        list.push(...errors);
        this.#errors.set(bucket, list);
      }
    }
  }

  /** Figures per bucket "1", "2", "3" (three or more) and "all" (empty-room frames of the sessions included in the count). */
  figures(): Record<'1' | '2' | '3' | 'all', BucketFigures> {
    const out = {} as Record<'1' | '2' | '3' | 'all', BucketFigures>;
    for (const bucket of ['1', '2', '3', 'all'] as const) {
      const frames = this.#frames.get(bucket) ?? 0;
      const errors = this.#errors.get(bucket) ?? [];
      const persons = this.#truePersons.get(bucket) ?? 0;
      out[bucket] = {
        floorErrorM: floorStatistics(errors),
        countExact: frames ? round((this.#exact.get(bucket) ?? 0) / frames) : null,
        frames,
        detectedShare: persons ? round((this.#detected.get(bucket) ?? 0) / persons) : null,
        matchedShare: persons ? round(errors.length / persons) : null,
      };
    }
    return out;
  }
}

function round(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}

/** Mean, median and 90th percentile (nearest rank) of floor errors. */
export function floorStatistics(errors: readonly number[]): FloorErrorStats {
  if (!errors.length) return { mean: null, median: null, p90: null };
  const sorted = [...errors].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { mean: round(sorted.reduce((s, e) => s + e, 0) / sorted.length), median: round(rank(0.5)), p90: round(rank(0.9)) };
}

/**
 * Visits in the simulator's truth: each person's presence runs, a gap longer than
 * `revisitGapSeconds` starting a new visit (retail.analytics' own rule for tracks).
 */
export function trueVisits(frames: readonly PoseFrame[], revisitGapSeconds: number): number {
  const lastSeen = new Map<number, number>();
  let visits = 0;
  for (const frame of frames) {
    if (!frame.truth) continue;
    for (const person of frame.truth.persons) {
      const last = lastSeen.get(person.id);
      if (last === undefined || frame.timestamp - last > revisitGapSeconds * 1000) visits++;
      lastSeen.set(person.id, frame.timestamp);
    }
  }
  return visits;
}

/** Distinct tracks that were ever shown to a user (confirmed) in tracked frames. */
export function confirmedTracks(frames: readonly PoseFrame[]): number {
  const ids = new Set<number>();
  for (const frame of frames) for (const p of reportedPeople(frame)) if (p.trackId !== null && p.trackId !== undefined) ids.add(p.trackId);
  return ids.size;
}
