import {
  StorageErrors,
  type Page,
  type PageRequest,
  type TrackQuery,
  type TrackRepository,
  type TrackSummary,
} from '@wiflow/core';
import {
  checkPageRequest,
  checkTimeRange,
  makePage,
  summarizeTrack,
  type TrackPoint,
} from '@wiflow/storage-kit';
import type { SqliteContext } from '../context.js';
import { minuteOf } from '../pose-rollups.js';

type PointRow = [ts: number, environmentId: string, personId: number | null, confidence: number, x: number, y: number, cx: number, cy: number, trackStatus: string | null];

/** Tracks summarised from `pose_persons` by the partial track index and the per-minute track rollup. */
export class SqliteTrackRepository implements TrackRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async get(trackId: number, query: TrackQuery & { includeTrajectory?: boolean } = {}): Promise<TrackSummary | null> {
    if (!Number.isInteger(trackId)) throw StorageErrors.invalid('trackId must be an integer');
    checkTimeRange(query);
    await this.#ctx.beforeRead();
    const start = query.start ?? Number.MIN_SAFE_INTEGER;
    const end = query.end ?? Number.MAX_SAFE_INTEGER;
    let environmentId = query.environmentId;
    if (environmentId === undefined) {
      // Track ids are per environment: without one, answer for the environment that saw the id last.
      let best: [number, number] | null = null;
      for (const id of this.#ctx.environments()) {
        const last = this.#ctx.db.prepare('SELECT ts, seq FROM pose_persons WHERE track_id = ? AND environment_id = ? AND ts >= ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1').raw().get(trackId, id, start, end) as [number, number] | undefined;
        if (last && (!best || last[0] > best[0] || (last[0] === best[0] && last[1] > best[1]))) {
          best = last;
          environmentId = id;
        }
      }
      if (environmentId === undefined) return null;
    }
    // The partial index on track_id carries the clustered key: (track_id, environment_id, ts, seq).
    const rows = this.#ctx.db
      .prepare('SELECT ts, environment_id, person_id, confidence, x, y, cx, cy, track_status FROM pose_persons WHERE track_id = ? AND environment_id = ? AND ts >= ? AND ts <= ? ORDER BY ts, seq')
      .raw()
      .all(trackId, environmentId, start, end) as PointRow[];
    if (rows.length === 0) return null;
    const points: TrackPoint[] = rows.map((r) => ({ timestamp: r[0], environmentId: r[1], personId: r[2], confidence: r[3], position: { x: r[4], y: r[5] }, centerX: r[6], centerY: r[7] }));
    return summarizeTrack(trackId, points, rows[rows.length - 1]![8], query.includeTrajectory === true);
  }

  /**
   * Tracks seen in a range, last seen first. Candidates come from the per-minute track rollup
   * (the minutes touching the range); each is confirmed, and its last point in range found, by
   * one seek on the track index.
   */
  async list(query: TrackQuery, paging: PageRequest): Promise<Page<TrackSummary>> {
    checkTimeRange(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const start = query.start ?? Number.MIN_SAFE_INTEGER;
    const end = query.end ?? Number.MAX_SAFE_INTEGER;
    const db = this.#ctx.db;
    const environments = query.environmentId !== undefined ? [query.environmentId] : this.#ctx.environments();
    const candidates = db.prepare('SELECT DISTINCT track_id FROM pose_minute_tracks WHERE environment_id = ? AND minute >= ? AND minute <= ?').pluck();
    const lastSeen = db.prepare('SELECT MAX(ts) FROM pose_persons WHERE track_id = ? AND environment_id = ? AND ts >= ? AND ts <= ?').pluck();
    const seen: { environmentId: string; trackId: number; last: number }[] = [];
    for (const environmentId of environments) {
      for (const trackId of candidates.all(environmentId, minuteOf(start), minuteOf(end)) as number[]) {
        const last = lastSeen.get(trackId, environmentId, start, end) as number | null;
        if (last !== null) seen.push({ environmentId, trackId, last });
      }
    }
    seen.sort((a, b) => b.last - a.last || (a.environmentId < b.environmentId ? -1 : a.environmentId > b.environmentId ? 1 : 0) || a.trackId - b.trackId);
    const items: TrackSummary[] = [];
    for (const group of seen.slice((paging.page - 1) * paging.perPage, paging.page * paging.perPage)) {
      const summary = await this.get(group.trackId, { environmentId: group.environmentId, start: query.start, end: query.end });
      if (summary) items.push(summary);
    }
    return makePage(items, seen.length, paging);
  }
}
