import type { Database, Statement } from 'better-sqlite3';
import { Write, type WriteBatchBuilder } from './writer/write-statements.js';

/** Width of a rollup bucket. */
export const MINUTE_MS = 60_000;

/** Start of the minute holding `ts`. */
export function minuteOf(ts: number): number {
  return Math.floor(ts / MINUTE_MS) * MINUTE_MS;
}

/** What one minute of one environment adds up to (pose_minutes and its three side tables). */
export interface MinuteRollup {
  environmentId: string;
  minute: number;
  frames: number;
  persons: number;
  maxPersons: number;
  confidenceSum: number;
  /** Persons by activity ('unknown' for none). */
  activities: Map<string, number>;
  /** Frames by their number of persons. */
  occupancy: Map<number, number>;
  trackIds: Set<number>;
}

/** Accumulates a write batch's frames per (environment, minute) and adds them as upserts. */
export class RollupAccumulator {
  readonly #minutes = new Map<string, MinuteRollup>();

  /** Count one frame with its persons. */
  addFrame(environmentId: string, ts: number, persons: readonly { confidence: number; activity?: string | null; trackId: number | null }[]): void {
    const minute = minuteOf(ts);
    const key = `${environmentId}\u0000${minute}`;
    let m = this.#minutes.get(key);
    if (!m) {
      m = { environmentId, minute, frames: 0, persons: 0, maxPersons: 0, confidenceSum: 0, activities: new Map(), occupancy: new Map(), trackIds: new Set() };
      this.#minutes.set(key, m);
    }
    m.frames++;
    m.persons += persons.length;
    if (persons.length > m.maxPersons) m.maxPersons = persons.length;
    m.occupancy.set(persons.length, (m.occupancy.get(persons.length) ?? 0) + 1);
    for (const p of persons) {
      m.confidenceSum += p.confidence;
      const activity = p.activity ?? 'unknown';
      m.activities.set(activity, (m.activities.get(activity) ?? 0) + 1);
      if (p.trackId !== null && p.trackId !== undefined) m.trackIds.add(p.trackId);
    }
  }

  /** Add the upserts to a batch (they add to what the minutes already hold). */
  writeTo(builder: WriteBatchBuilder): void {
    for (const m of this.#minutes.values()) {
      builder.add(Write.minute, m.environmentId, m.minute, m.frames, m.persons, m.maxPersons, m.confidenceSum);
      for (const [count, frames] of m.occupancy) builder.add(Write.occupancy, m.environmentId, m.minute, count, frames);
      for (const [activity, persons] of m.activities) builder.add(Write.activity, m.environmentId, m.minute, activity, persons);
      for (const trackId of m.trackIds) builder.add(Write.track, m.environmentId, m.minute, trackId);
    }
  }
}

const ROLLUP_TABLES = ['pose_minutes', 'pose_minute_occupancy', 'pose_minute_activities', 'pose_minute_tracks'] as const;

/**
 * Reads of the per-minute rollups, which the writer keeps in the same transaction as the rows.
 * A history total over a range is the sum of the whole minutes inside it plus exact counts of
 * the two partial minutes at its ends; an unfiltered aggregation reads one row set per minute
 * instead of every frame (600 frames a minute at 10 fps).
 */
export class PoseRollups {
  readonly #db: Database;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** Whole minutes [firstWhole, afterWhole) inside the inclusive range, or null when there is none. */
  static wholeMinutes(start: number, end: number): { firstWhole: number; afterWhole: number } | null {
    const firstWhole = Math.ceil(start / MINUTE_MS) * MINUTE_MS;
    const afterWhole = minuteOf(end + 1);
    return firstWhole < afterWhole ? { firstWhole, afterWhole } : null;
  }

  /** Rows of `table` in [start, end] (inclusive; either end open) of one environment. Only for queries without person filters. */
  total(table: 'pose_frames' | 'pose_persons', environmentId: string, start: number | undefined, end: number | undefined): number {
    const column = table === 'pose_frames' ? 'frames' : 'persons';
    const whole = PoseRollups.wholeMinutes(start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER - 1);
    if (!whole) return this.#exact(table, environmentId, start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER);
    let total = this.#scalar(`SELECT COALESCE(SUM(${column}), 0) FROM pose_minutes WHERE environment_id = ? AND minute >= ? AND minute < ?`, environmentId, whole.firstWhole, whole.afterWhole);
    if (start !== undefined && start < whole.firstWhole) total += this.#exact(table, environmentId, start, whole.firstWhole - 1);
    if (end !== undefined && whole.afterWhole <= end) total += this.#exact(table, environmentId, whole.afterWhole, end);
    return total;
  }

  /** Frames stored for an environment. */
  frames(environmentId: string): number {
    return this.#scalar('SELECT COALESCE(SUM(frames), 0) FROM pose_minutes WHERE environment_id = ?', environmentId);
  }

  /** The rollups of the whole minutes in [firstWhole, afterWhole) of one environment, oldest first. */
  minutes(environmentId: string, firstWhole: number, afterWhole: number): MinuteRollup[] {
    const byMinute = new Map<number, MinuteRollup>();
    const rows = this.#prepare('SELECT minute, frames, persons, max_persons, confidence_sum FROM pose_minutes WHERE environment_id = ? AND minute >= ? AND minute < ? ORDER BY minute')
      .all(environmentId, firstWhole, afterWhole) as [number, number, number, number, number][];
    for (const [minute, frames, persons, maxPersons, confidenceSum] of rows) {
      byMinute.set(minute, { environmentId, minute, frames, persons, maxPersons, confidenceSum, activities: new Map(), occupancy: new Map(), trackIds: new Set() });
    }
    for (const [minute, count, frames] of this.#prepare('SELECT minute, person_count, frames FROM pose_minute_occupancy WHERE environment_id = ? AND minute >= ? AND minute < ?').all(environmentId, firstWhole, afterWhole) as [number, number, number][]) {
      byMinute.get(minute)?.occupancy.set(count, frames);
    }
    for (const [minute, activity, persons] of this.#prepare('SELECT minute, activity, persons FROM pose_minute_activities WHERE environment_id = ? AND minute >= ? AND minute < ?').all(environmentId, firstWhole, afterWhole) as [number, string, number][]) {
      byMinute.get(minute)?.activities.set(activity, persons);
    }
    for (const [minute, trackId] of this.#prepare('SELECT minute, track_id FROM pose_minute_tracks WHERE environment_id = ? AND minute >= ? AND minute < ?').all(environmentId, firstWhole, afterWhole) as [number, number][]) {
      byMinute.get(minute)?.trackIds.add(trackId);
    }
    return [...byMinute.values()];
  }

  /** Drop minutes wholly before `cutoff` and rebuild the one it cuts through from the rows left (inside a transaction). */
  prune(cutoff: number): void {
    const cutMinute = minuteOf(cutoff);
    for (const table of ROLLUP_TABLES) this.#db.prepare(`DELETE FROM ${table} WHERE minute < ?`).run(cutMinute);
    if (cutMinute === cutoff) return;
    const environments = this.#db.prepare('SELECT environment_id FROM pose_minutes WHERE minute = ?').pluck().all(cutMinute) as string[];
    for (const environmentId of environments) this.rebuild(environmentId, cutMinute);
  }

  /** Recompute one minute of one environment from its frame and person rows. */
  rebuild(environmentId: string, minute: number): void {
    const db = this.#db;
    const end = minute + MINUTE_MS;
    for (const table of ROLLUP_TABLES) db.prepare(`DELETE FROM ${table} WHERE environment_id = ? AND minute = ?`).run(environmentId, minute);
    const frames = db.prepare('SELECT COUNT(*) AS frames, COALESCE(SUM(person_count), 0) AS persons, COALESCE(MAX(person_count), 0) AS max FROM pose_frames WHERE environment_id = ? AND ts >= ? AND ts < ?').get(environmentId, minute, end) as { frames: number; persons: number; max: number };
    if (frames.frames === 0) return;
    const confidence = db.prepare('SELECT COALESCE(SUM(confidence), 0) FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts < ?').pluck().get(environmentId, minute, end) as number;
    db.prepare('INSERT INTO pose_minutes (environment_id, minute, frames, persons, max_persons, confidence_sum) VALUES (?, ?, ?, ?, ?, ?)').run(environmentId, minute, frames.frames, frames.persons, frames.max, confidence);
    db.prepare('INSERT INTO pose_minute_occupancy SELECT environment_id, ?, person_count, COUNT(*) FROM pose_frames WHERE environment_id = ? AND ts >= ? AND ts < ? GROUP BY person_count').run(minute, environmentId, minute, end);
    db.prepare("INSERT INTO pose_minute_activities SELECT environment_id, ?, COALESCE(activity, 'unknown') AS a, COUNT(*) FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts < ? GROUP BY a").run(minute, environmentId, minute, end);
    db.prepare('INSERT INTO pose_minute_tracks SELECT DISTINCT environment_id, ?, track_id FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts < ? AND track_id IS NOT NULL').run(minute, environmentId, minute, end);
  }

  #exact(table: string, environmentId: string, start: number, end: number): number {
    return this.#scalar(`SELECT COUNT(*) FROM ${table} WHERE environment_id = ? AND ts >= ? AND ts <= ?`, environmentId, start, end);
  }

  #scalar(sql: string, ...params: unknown[]): number {
    let statement = this.#statements.get(`pluck:${sql}`);
    if (!statement) {
      statement = this.#db.prepare(sql).pluck();
      this.#statements.set(`pluck:${sql}`, statement);
    }
    return statement.get(...params) as number;
  }

  /** A cached statement returning rows as arrays. */
  #prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql).raw();
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
