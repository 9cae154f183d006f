import {
  PoseAggregator,
  anonymizePerson,
  checkPoseFrame,
  StorageErrors,
  checkCursorRequest,
  checkPageRequest,
  checkTimeRange,
  decodeCursor,
  encodeCursor,
  hasPersonFilter,
  makePage,
  personMatches,
  type AggregatePerson,
  type AvailableRange,
  type CursorPage,
  type CursorRequest,
  type Page,
  type PageRequest,
  type PersonRecord,
  type PoseAggregateQuery,
  type PoseAggregateResult,
  type PoseFrame,
  type PoseQuery,
  type PoseRepository,
  type StoredPerson,
  type StoredPoseFrame,
} from '@wiflow/core';
import type { Statement } from 'better-sqlite3';
import type { SqliteContext } from '../context.js';
import { PERSON_COLUMNS, decodePerson, decodePersonSummary, encodePerson, encodePersonSummary, type PersonRow } from '../person-codec.js';
import { PoseCounts, minuteOf } from '../pose-counts.js';

/** A row of `pose_frames` (read with `.raw()`). */
type FrameRow = [seq: number, environmentId: string, ts: number, frameId: number, personSeq: number, personCount: number, processingTimeMs: number | null, metadata: string, extra: string | null];
const FRAME_COLUMNS = 'f.seq, f.environment_id, f.ts, f.frame_id, f.person_seq, f.person_count, f.processing_time_ms, f.metadata, f.extra';

interface Where {
  sql: string;
  params: unknown[];
}

function checkPoseQuery(query: PoseQuery): void {
  if (typeof query !== 'object' || query === null) throw StorageErrors.invalid('a pose query must be an object');
  checkTimeRange(query);
  if (query.minConfidence !== undefined && !Number.isFinite(query.minConfidence)) throw StorageErrors.invalid('minConfidence must be a number');
  if (query.personId !== undefined && !Number.isInteger(query.personId)) throw StorageErrors.invalid('personId must be an integer');
  if (query.trackId !== undefined && !Number.isInteger(query.trackId)) throw StorageErrors.invalid('trackId must be an integer');
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw StorageErrors.invalid(`order must be asc or desc, got ${String(query.order)}`);
}

/** Conditions on the person columns of alias `p`. */
function personConditions(query: PoseQuery, alias: string): Where {
  const sql: string[] = [];
  const params: unknown[] = [];
  if (query.personId !== undefined) {
    sql.push(`${alias}.person_id = ?`);
    params.push(query.personId);
  }
  if (query.trackId !== undefined) {
    sql.push(`${alias}.track_id = ?`);
    params.push(query.trackId);
  }
  if (query.minConfidence !== undefined) {
    sql.push(`${alias}.confidence >= ?`);
    params.push(query.minConfidence);
  }
  return { sql: sql.join(' AND '), params };
}

/** Environment and time conditions on alias `a`. */
function rangeConditions(query: PoseQuery, alias: string): Where {
  const sql: string[] = [];
  const params: unknown[] = [];
  if (query.environmentId !== undefined) {
    sql.push(`${alias}.environment_id = ?`);
    params.push(query.environmentId);
  }
  if (query.start !== undefined) {
    sql.push(`${alias}.ts >= ?`);
    params.push(query.start);
  }
  if (query.end !== undefined) {
    sql.push(`${alias}.ts <= ?`);
    params.push(query.end);
  }
  return { sql: sql.join(' AND '), params };
}

function and(...parts: Where[]): Where {
  const used = parts.filter((p) => p.sql !== '');
  return { sql: used.length ? `WHERE ${used.map((p) => p.sql).join(' AND ')}` : '', params: used.flatMap((p) => p.params) };
}

function frameWhere(query: PoseQuery): Where {
  const range = rangeConditions(query, 'f');
  if (!hasPersonFilter(query)) return and(range);
  const persons = personConditions(query, 'p');
  return and(range, {
    sql: `EXISTS (SELECT 1 FROM pose_persons p WHERE p.seq >= f.person_seq AND p.seq < f.person_seq + f.person_count AND ${persons.sql})`,
    params: persons.params,
  });
}

function personWhere(query: PoseQuery): Where {
  return and(rangeConditions(query, 'p'), personConditions(query, 'p'));
}

function cursorCondition(alias: string, order: 'asc' | 'desc', cursor: string | null | undefined): Where {
  if (!cursor) return { sql: '', params: [] };
  const [ts, seq] = decodeCursor(cursor, ['number', 'number']);
  // Spelled as a range on ts plus a tie-break, so the (environment_id, ts) index bounds the scan.
  return order === 'asc'
    ? { sql: `${alias}.ts >= ? AND (${alias}.ts > ? OR ${alias}.seq > ?)`, params: [ts, ts, seq] }
    : { sql: `${alias}.ts <= ? AND (${alias}.ts < ? OR ${alias}.seq < ?)`, params: [ts, ts, seq] };
}

function withCondition(where: Where, extra: Where): Where {
  if (extra.sql === '') return where;
  return { sql: where.sql ? `${where.sql} AND ${extra.sql}` : `WHERE ${extra.sql}`, params: [...where.params, ...extra.params] };
}

/** Pose frames and person records in SQLite: writes through the buffer, reads by index. */
export class SqlitePoseRepository implements PoseRepository {
  readonly #ctx: SqliteContext;
  readonly #insertFrame: Statement;
  readonly #insertPerson: Statement;
  readonly #personsOfFrame: Statement;
  readonly #statements = new Map<string, Statement>();
  readonly #counts: PoseCounts;
  #nextPersonSeq: number;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#insertFrame = db.prepare('INSERT INTO pose_frames (environment_id, ts, frame_id, person_seq, person_count, processing_time_ms, metadata, extra, person_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.#insertPerson = db.prepare(
      'INSERT INTO pose_persons (seq, frame_seq, environment_id, ts, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, keypoints, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#personsOfFrame = db.prepare(`SELECT ${PERSON_COLUMNS} FROM pose_persons WHERE seq >= ? AND seq < ? ORDER BY seq`).raw();
    const max = db.prepare('SELECT MAX(seq) AS seq FROM pose_persons').get() as { seq: number | null };
    this.#nextPersonSeq = (max.seq ?? 0) + 1;
    this.#counts = new PoseCounts(db);
  }

  /** The per-minute counts (retention prunes them). */
  get counts(): PoseCounts {
    return this.#counts;
  }

  /** Write frames (inside the buffer's transaction). Anonymisation was applied when they were appended. */
  write(frames: PoseFrame[]): void {
    const counts = new Map<string, { environmentId: string; minute: number; frames: number; persons: number }>();
    for (const frame of frames) {
      const minute = minuteOf(frame.timestamp);
      const key = `${frame.environmentId}\u0000${minute}`;
      const bucket = counts.get(key);
      if (bucket) {
        bucket.frames++;
        bucket.persons += frame.persons.length;
      } else {
        counts.set(key, { environmentId: frame.environmentId, minute, frames: 1, persons: frame.persons.length });
      }
      const { timestamp, frameId, environmentId, processingTimeMs, persons, metadata, ...rest } = frame;
      const personSeq = this.#nextPersonSeq;
      const extra = Object.keys(rest).length > 0 ? JSON.stringify(rest) : null;
      const info = this.#insertFrame.run(environmentId, timestamp, frameId, personSeq, persons.length, processingTimeMs ?? null, JSON.stringify(metadata ?? null), extra, encodePersonSummary(persons));
      const frameSeq = info.lastInsertRowid;
      for (const person of persons) {
        const p = encodePerson(person);
        this.#insertPerson.run(this.#nextPersonSeq++, frameSeq, environmentId, timestamp, frameId, p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.keypoints, p.extra);
      }
    }
    this.#counts.add(counts);
  }

  async append(frames: PoseFrame[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(frames)) throw StorageErrors.invalid('append needs an array of pose frames');
    const anonymize = this.#ctx.privacy().anonymizeData;
    const accepted = frames.map((frame) => {
      checkPoseFrame(frame);
      return anonymize ? ({ ...frame, persons: frame.persons.map(anonymizePerson) } as unknown as PoseFrame) : frame;
    });
    this.#ctx.buffer.addFrames(accepted);
  }

  async latest(query: { environmentId?: string; minConfidence?: number } = {}): Promise<StoredPoseFrame | null> {
    this.#ctx.beforeRead();
    const where = and(rangeConditions({ environmentId: query.environmentId }, 'f'));
    const row = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f ${where.sql} ORDER BY f.ts DESC, f.seq DESC LIMIT 1`, true).get(...where.params) as FrameRow | undefined;
    if (!row) return null;
    const frame = this.#frame(row, null);
    if (query.minConfidence !== undefined) frame.persons = frame.persons.filter((p) => p.confidence >= query.minConfidence!);
    return frame;
  }

  async findFrames(query: PoseQuery, paging: PageRequest): Promise<Page<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    this.#ctx.beforeRead();
    const where = frameWhere(query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_frames', query, where);
    const rows = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f ${where.sql} ORDER BY f.ts ${order}, f.seq ${order} LIMIT ? OFFSET ?`, true)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as FrameRow[];
    return makePage(rows.map((r) => this.#frame(r, query)), total, paging);
  }

  async scanFrames(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    this.#ctx.beforeRead();
    const where = frameWhere(query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_frames', query, where);
    const paged = withCondition(where, cursorCondition('f', order, paging.cursor));
    const rows = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f ${paged.sql} ORDER BY f.ts ${order}, f.seq ${order} LIMIT ?`, true)
      .all(...paged.params, paging.limit + 1) as FrameRow[];
    const hasMore = rows.length > paging.limit;
    const items = rows.slice(0, paging.limit);
    const last = items[items.length - 1];
    return { items: items.map((r) => this.#frame(r, query)), hasMore, nextCursor: hasMore && last ? encodeCursor([last[2], last[0]]) : null, totalCount: total };
  }

  async findRecords(query: PoseQuery, paging: PageRequest): Promise<Page<PersonRecord>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    this.#ctx.beforeRead();
    const where = personWhere(query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_persons', query, where);
    const rows = this.#prepare(`SELECT ${PERSON_COLUMNS} FROM pose_persons p ${where.sql} ORDER BY p.ts ${order}, p.seq ${order} LIMIT ? OFFSET ?`, true)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as PersonRow[];
    return makePage(rows.map(toRecord), total, paging);
  }

  async scanRecords(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<PersonRecord>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    this.#ctx.beforeRead();
    const where = personWhere(query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_persons', query, where);
    const paged = withCondition(where, cursorCondition('p', order, paging.cursor));
    const rows = this.#prepare(`SELECT ${PERSON_COLUMNS} FROM pose_persons p ${paged.sql} ORDER BY p.ts ${order}, p.seq ${order} LIMIT ?`, true)
      .all(...paged.params, paging.limit + 1) as PersonRow[];
    const hasMore = rows.length > paging.limit;
    const items = rows.slice(0, paging.limit);
    const last = items[items.length - 1];
    return { items: items.map(toRecord), hasMore, nextCursor: hasMore && last ? encodeCursor([last[3], last[0]]) : null, totalCount: total };
  }

  async availableRange(environmentId?: string): Promise<AvailableRange | null> {
    this.#ctx.beforeRead();
    // MIN and MAX each read one end of an index; the count comes from the per-minute counts.
    const earliest = (environmentId === undefined
      ? this.#prepare('SELECT MIN(ts) AS v FROM pose_frames').get()
      : this.#prepare('SELECT MIN(ts) AS v FROM pose_frames WHERE environment_id = ?').get(environmentId)) as { v: number | null };
    const latest = (environmentId === undefined
      ? this.#prepare('SELECT MAX(ts) AS v FROM pose_frames').get()
      : this.#prepare('SELECT MAX(ts) AS v FROM pose_frames WHERE environment_id = ?').get(environmentId)) as { v: number | null };
    if (earliest.v === null || latest.v === null) return null;
    return { environmentId: environmentId ?? '*', earliest: earliest.v, latest: latest.v, frameCount: this.#counts.frames(environmentId) };
  }

  async environments(): Promise<AvailableRange[]> {
    this.#ctx.beforeRead();
    const ids = this.#prepare('SELECT DISTINCT environment_id FROM pose_counts ORDER BY environment_id').pluck().all() as string[];
    const ranges: AvailableRange[] = [];
    for (const id of ids) {
      const range = await this.availableRange(id);
      if (range) ranges.push(range);
    }
    return ranges;
  }

  async aggregate(query: PoseAggregateQuery): Promise<PoseAggregateResult> {
    const aggregator = new PoseAggregator(query);
    if (query.environmentId !== undefined && typeof query.environmentId !== 'string') throw StorageErrors.invalid('environmentId must be a string');
    this.#ctx.beforeRead();
    const range = rangeConditions({ environmentId: query.environmentId, start: query.start, end: query.end }, 'f');
    // Walk the range in index order (ts, seq), 5000 frames at a time.
    const firstChunk = this.#prepare(`SELECT f.seq, f.ts, f.person_seq, f.person_count, f.person_summary FROM pose_frames f WHERE ${range.sql} ORDER BY f.ts, f.seq LIMIT 5000`, true);
    const nextChunk = this.#prepare(`SELECT f.seq, f.ts, f.person_seq, f.person_count, f.person_summary FROM pose_frames f WHERE ${range.sql} AND f.ts >= ? AND (f.ts > ? OR f.seq > ?) ORDER BY f.ts, f.seq LIMIT 5000`, true);
    const persons = this.#prepare('SELECT frame_seq, confidence, activity, track_id FROM pose_persons WHERE seq >= ? AND seq < ?', true);
    let last: [number, number] | null = null;
    for (;;) {
      const chunk = (last ? nextChunk.all(...range.params, last[1], last[1], last[0]) : firstChunk.all(...range.params)) as [number, number, number, number, Buffer | null][];
      if (chunk.length === 0) break;
      const tail = chunk[chunk.length - 1]!;
      last = [tail[0], tail[1]];
      // Frames written before the summary column existed are read from their person rows.
      const byFrame = new Map<number, AggregatePerson[]>();
      let low = Number.POSITIVE_INFINITY;
      let high = Number.NEGATIVE_INFINITY;
      for (const f of chunk) {
        if (f[4] !== null || f[3] === 0) continue;
        low = Math.min(low, f[2]);
        high = Math.max(high, f[2] + f[3]);
      }
      if (low < high) {
        for (const [frameSeq, confidence, activity, trackId] of persons.all(low, high) as [number, number, string | null, number | null][]) {
          let list = byFrame.get(frameSeq);
          if (!list) byFrame.set(frameSeq, (list = []));
          list.push({ confidence, activity: activity as AggregatePerson['activity'], trackId });
        }
      }
      for (const [seq, ts, , , summary] of chunk) aggregator.addFrame(ts, summary ? decodePersonSummary(summary) : (byFrame.get(seq) ?? []));
      if (chunk.length < 5000) break;
    }
    return aggregator.result();
  }

  /** Rows matching a query: from the per-minute counts when no person filter applies, else counted. */
  #total(table: 'pose_frames' | 'pose_persons', query: PoseQuery, where: Where): number {
    if (!hasPersonFilter(query)) return this.#counts.total(table, query.environmentId, query.start, query.end);
    const alias = table === 'pose_frames' ? 'f' : 'p';
    return (this.#prepare(`SELECT COUNT(*) AS n FROM ${table} ${alias} ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  #frame(row: FrameRow, query: PoseQuery | null): StoredPoseFrame {
    const [, environmentId, ts, frameId, personSeq, personCount, processingTimeMs, metadata, extra] = row;
    let persons: StoredPerson[] = personCount === 0 ? [] : (this.#personsOfFrame.all(personSeq, personSeq + personCount) as PersonRow[]).map(decodePerson);
    if (query && hasPersonFilter(query)) persons = persons.filter((p) => personMatches(p, query));
    const frame = {
      ...(extra ? (JSON.parse(extra) as object) : {}),
      timestamp: ts,
      frameId,
      environmentId,
      processingTimeMs: processingTimeMs ?? 0,
      persons,
      metadata: JSON.parse(metadata),
    } as StoredPoseFrame;
    return frame;
  }

  /** A cached prepared statement; `raw` ones return rows as arrays. */
  #prepare(sql: string, raw = false): Statement {
    const key = `${raw ? 'raw' : 'obj'}:${sql}`;
    let statement = this.#statements.get(key);
    if (!statement) {
      statement = this.#ctx.db.prepare(sql);
      if (raw) statement.raw(true);
      this.#statements.set(key, statement);
    }
    return statement;
  }
}

function toRecord(row: PersonRow): PersonRecord {
  const person = decodePerson(row);
  return {
    timestamp: row[3],
    frameId: row[4],
    environmentId: row[2],
    personId: row[5],
    trackId: row[6],
    confidence: row[7],
    boundingBox: person.boundingBox,
    keypoints: person.keypoints,
    position: person.position,
    activity: person.activity ?? null,
    person,
  };
}
