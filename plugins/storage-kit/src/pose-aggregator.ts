import { StorageErrors, type Activity, type PoseAggregateBucket, type PoseAggregateQuery, type PoseAggregateResult } from '@wiflow/core';

/** One person of a frame as the aggregator sees it. */
export interface AggregatePerson {
  confidence: number;
  activity: Activity | null;
  trackId: number | null;
}

/** Frames summed ahead by a storage (see PoseAggregator.addSummary). */
export interface FramesSummary {
  frames: number;
  /** Persons in those frames. */
  persons: number;
  /** Most persons in one of them. */
  maxPersons: number;
  /** Sum of the persons' confidences. */
  confidenceSum: number;
  /** Frames by their number of persons. */
  framesByPersonCount: Iterable<[number, number]>;
  /** Persons by activity ('unknown' for none). */
  activities: Iterable<[string, number]>;
  /** Distinct non-null track ids. */
  trackIds: Iterable<number>;
}

interface BucketState {
  start: number;
  frames: number;
  personSum: number;
  maxPersons: number;
  confidenceSum: number;
  records: number;
  tracks: Set<number>;
  activities: Map<string, number>;
  byCount: Map<number, number>;
}

/** Default aggregation bucket: one hour (hourly_summary). */
export const DEFAULT_AGGREGATE_INTERVAL_MS = 3_600_000;

/** Check an aggregate query; throws StorageErrors.invalid. */
export function checkAggregateQuery(query: PoseAggregateQuery): void {
  if (!Number.isFinite(query.start) || !Number.isFinite(query.end)) throw StorageErrors.invalid('aggregate needs a finite start and end');
  if (query.start > query.end) throw StorageErrors.invalid(`start (${query.start}) is after end (${query.end})`);
  const interval = query.intervalMs ?? DEFAULT_AGGREGATE_INTERVAL_MS;
  if (!Number.isInteger(interval) || interval < 1000) throw StorageErrors.invalid(`intervalMs must be an integer >= 1000, got ${interval}`);
}

/**
 * Folds frames into the buckets of POST /pose/query. Applies the person-level filters
 * (minConfidence, activities) then the frame-level personCount filter, exactly as documented
 * on PoseAggregateQuery; every storage feeds it its frames so they all answer alike.
 */
export class PoseAggregator {
  readonly #query: PoseAggregateQuery;
  readonly #interval: number;
  readonly #activities: Set<string> | null;
  readonly #buckets = new Map<number, BucketState>();
  #scanned = 0;

  constructor(query: PoseAggregateQuery) {
    checkAggregateQuery(query);
    this.#query = query;
    this.#interval = query.intervalMs ?? DEFAULT_AGGREGATE_INTERVAL_MS;
    this.#activities = query.activities && query.activities.length > 0 ? new Set(query.activities) : null;
  }

  /** Add one frame with all its persons. */
  addFrame(timestamp: number, persons: AggregatePerson[]): void {
    this.#scanned++;
    const minConfidence = this.#query.minConfidence;
    const qualifying = persons.filter((p) =>
      (minConfidence === undefined || p.confidence >= minConfidence) && (this.#activities === null || (p.activity !== null && this.#activities.has(p.activity))));
    const count = qualifying.length;
    const range = this.#query.personCount;
    if (range?.min !== undefined && count < range.min) return;
    if (range?.max !== undefined && count > range.max) return;
    const bucket = this.#bucket(timestamp);
    bucket.frames++;
    bucket.personSum += count;
    bucket.maxPersons = Math.max(bucket.maxPersons, count);
    bucket.byCount.set(count, (bucket.byCount.get(count) ?? 0) + 1);
    for (const person of qualifying) {
      bucket.records++;
      bucket.confidenceSum += person.confidence;
      if (person.trackId !== null) bucket.tracks.add(person.trackId);
      const activity = person.activity ?? 'unknown';
      bucket.activities.set(activity, (bucket.activities.get(activity) ?? 0) + 1);
    }
  }

  /**
   * Add frames a storage summed ahead (a rollup of the frames in one stretch of time that lies
   * wholly inside one bucket), as if each frame had been added. Only for queries without
   * person or frame filters (minConfidence, activities, personCount), which a sum cannot apply.
   */
  addSummary(timestamp: number, summary: FramesSummary): void {
    if (!PoseAggregator.summable(this.#query)) throw StorageErrors.invalid('a pre-summed rollup cannot apply person or frame filters');
    if (summary.frames === 0) return;
    this.#scanned += summary.frames;
    const bucket = this.#bucket(timestamp);
    bucket.frames += summary.frames;
    bucket.personSum += summary.persons;
    bucket.maxPersons = Math.max(bucket.maxPersons, summary.maxPersons);
    bucket.records += summary.persons;
    bucket.confidenceSum += summary.confidenceSum;
    for (const [count, frames] of summary.framesByPersonCount) bucket.byCount.set(count, (bucket.byCount.get(count) ?? 0) + frames);
    for (const [activity, persons] of summary.activities) bucket.activities.set(activity, (bucket.activities.get(activity) ?? 0) + persons);
    for (const trackId of summary.trackIds) bucket.tracks.add(trackId);
  }

  /** Whether a query can be answered from pre-summed rollups (no person or frame filters). */
  static summable(query: PoseAggregateQuery): boolean {
    return query.minConfidence === undefined && (query.activities === undefined || query.activities.length === 0) && query.personCount === undefined;
  }

  #bucket(timestamp: number): BucketState {
    const start = Math.floor(timestamp / this.#interval) * this.#interval;
    let bucket = this.#buckets.get(start);
    if (!bucket) {
      bucket = { start, frames: 0, personSum: 0, maxPersons: 0, confidenceSum: 0, records: 0, tracks: new Set(), activities: new Map(), byCount: new Map() };
      this.#buckets.set(start, bucket);
    }
    return bucket;
  }

  /** The buckets, oldest first. */
  result(): PoseAggregateResult {
    const buckets: PoseAggregateBucket[] = [...this.#buckets.values()]
      .sort((a, b) => a.start - b.start)
      .map((b) => ({
        start: b.start,
        frameCount: b.frames,
        avgPersonCount: b.personSum / b.frames,
        maxPersonCount: b.maxPersons,
        avgConfidence: b.records > 0 ? b.confidenceSum / b.records : null,
        personRecords: b.records,
        uniqueTracks: b.tracks.size,
        activities: Object.fromEntries([...b.activities].sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => [k, v / b.records])),
        framesByPersonCount: Object.fromEntries([...b.byCount].sort(([x], [y]) => x - y).map(([k, v]) => [String(k), v])),
      }));
    return { buckets, recordsScanned: this.#scanned };
  }
}
