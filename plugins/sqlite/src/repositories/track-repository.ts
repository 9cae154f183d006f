import {
  StorageErrors,
  checkPageRequest,
  checkTimeRange,
  makePage,
  summarizeTrack,
  type Page,
  type PageRequest,
  type TrackPoint,
  type TrackQuery,
  type TrackRepository,
  type TrackSummary,
} from '@wiflow/core';
import type { SqliteContext } from '../context.js';

type PointRow = [ts: number, environmentId: string, personId: number | null, confidence: number, x: number, y: number, cx: number, cy: number, trackStatus: string | null];

/** Tracks summarised from `pose_persons` by the partial track index. */
export class SqliteTrackRepository implements TrackRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async get(trackId: number, query: TrackQuery & { includeTrajectory?: boolean } = {}): Promise<TrackSummary | null> {
    if (!Number.isInteger(trackId)) throw StorageErrors.invalid('trackId must be an integer');
    checkTimeRange(query);
    this.#ctx.beforeRead();
    const db = this.#ctx.db;
    let environmentId = query.environmentId;
    const range: string[] = [];
    const params: unknown[] = [];
    if (query.start !== undefined) {
      range.push('ts >= ?');
      params.push(query.start);
    }
    if (query.end !== undefined) {
      range.push('ts <= ?');
      params.push(query.end);
    }
    if (environmentId === undefined) {
      // Track ids are per environment: without one, answer for the environment that saw the id last.
      const latest = db.prepare(`SELECT environment_id FROM pose_persons WHERE track_id = ? ${range.map((r) => `AND ${r}`).join(' ')} ORDER BY ts DESC, seq DESC LIMIT 1`).get(trackId, ...params) as { environment_id: string } | undefined;
      if (!latest) return null;
      environmentId = latest.environment_id;
    }
    const rows = db
      .prepare(`SELECT ts, environment_id, person_id, confidence, x, y, cx, cy, track_status FROM pose_persons WHERE track_id = ? AND environment_id = ? ${range.map((r) => `AND ${r}`).join(' ')} ORDER BY ts, seq`)
      .raw()
      .all(trackId, environmentId, ...params) as PointRow[];
    if (rows.length === 0) return null;
    const points: TrackPoint[] = rows.map((r) => ({ timestamp: r[0], environmentId: r[1], personId: r[2], confidence: r[3], position: { x: r[4], y: r[5] }, centerX: r[6], centerY: r[7] }));
    return summarizeTrack(trackId, points, rows[rows.length - 1]![8], query.includeTrajectory === true);
  }

  async list(query: TrackQuery, paging: PageRequest): Promise<Page<TrackSummary>> {
    checkTimeRange(query);
    checkPageRequest(paging);
    this.#ctx.beforeRead();
    const where = ['track_id IS NOT NULL'];
    const params: unknown[] = [];
    if (query.environmentId !== undefined) {
      where.push('environment_id = ?');
      params.push(query.environmentId);
    }
    if (query.start !== undefined) {
      where.push('ts >= ?');
      params.push(query.start);
    }
    if (query.end !== undefined) {
      where.push('ts <= ?');
      params.push(query.end);
    }
    const db = this.#ctx.db;
    const groups = `SELECT environment_id, track_id, MAX(ts) AS last FROM pose_persons WHERE ${where.join(' AND ')} GROUP BY environment_id, track_id`;
    const total = (db.prepare(`SELECT COUNT(*) AS n FROM (${groups})`).get(...params) as { n: number }).n;
    const page = db.prepare(`${groups} ORDER BY last DESC, environment_id, track_id LIMIT ? OFFSET ?`).all(...params, paging.perPage, (paging.page - 1) * paging.perPage) as { environment_id: string; track_id: number }[];
    const items: TrackSummary[] = [];
    for (const group of page) {
      const summary = await this.get(group.track_id, { environmentId: group.environment_id, start: query.start, end: query.end });
      if (summary) items.push(summary);
    }
    return makePage(items, total, paging);
  }
}
