import {
  StorageErrors,
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
import {
  DEFAULT_AGGREGATE_INTERVAL_MS,
  PoseAggregator,
  anonymizePerson,
  checkPoseFrame,
  checkCursorRequest,
  checkPageRequest,
  checkTimeRange,
  decodeCursor,
  hasPersonFilter,
  makeCursorPage,
  makePage,
  personMatches,
  type AggregatePerson,
} from '@wiflow/storage-kit';
import type { Statement } from 'better-sqlite3';
import type { SqliteContext } from '../context.js';
import { PERSON_COLUMNS, decodePerson, decodePersonSummary, encodePerson, encodePersonSummary, type PersonRow } from '../person-codec.js';
import { MINUTE_MS, PoseRollups, RollupAccumulator } from '../pose-rollups.js';
import { Write, type WriteBatchBuilder } from '../writer/write-statements.js';

/** A row of `pose_frames` (read with `.raw()`). */
type FrameRow = [
  environmentId: string, ts: number, seq: number, frameId: number, personSeq: number, personCount: number, processingTimeMs: number | null,
  metadataId: number, csiQuality: number | null, linkCount: number | null, extra: string | null,
];
const FRAME_COLUMNS = 'f.environment_id, f.ts, f.seq, f.frame_id, f.person_seq, f.person_count, f.processing_time_ms, f.metadata_id, f.csi_quality, f.link_count, f.extra';
const P_COLUMNS = PERSON_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ');

interface Where {
  sql: string;
  params: unknown[];
}

function checkPoseQuery(query: PoseQuery): void {
  if (typeof query !== 'object' || query === null) throw StorageErrors.invalid('a pose query must be an object');
  checkTimeRange(query);
  if (query.environmentId !== undefined && typeof query.environmentId !== 'string') throw StorageErrors.invalid('environmentId must be a string');
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

/**
 * Environment and time conditions on alias `a`. The clustered key leads with the environment,
 * so a query without one names every known environment: with one (the usual deployment) the
 * key is used in order; with several SQLite reads each and sorts.
 */
function rangeConditions(environments: string[], query: PoseQuery, alias: string): Where {
  const sql: string[] = [];
  const params: unknown[] = [...environments];
  sql.push(environments.length === 1 ? `${alias}.environment_id = ?` : `${alias}.environment_id IN (${environments.map(() => '?').join(', ')})`);
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

function frameWhere(environments: string[], query: PoseQuery): Where {
  const range = rangeConditions(environments, query, 'f');
  if (!hasPersonFilter(query)) return and(range);
  const persons = personConditions(query, 'p');
  return and(range, {
    sql: `EXISTS (SELECT 1 FROM pose_persons p WHERE p.environment_id = f.environment_id AND p.ts = f.ts AND p.seq >= f.person_seq AND p.seq < f.person_seq + f.person_count AND ${persons.sql})`,
    params: persons.params,
  });
}

function personWhere(environments: string[], query: PoseQuery): Where {
  return and(rangeConditions(environments, query, 'p'), personConditions(query, 'p'));
}

/**
 * A cursor as a narrower time range plus a tie-break: the range's bound on ts is replaced
 * (never added to), so SQLite seeks the clustered key straight to the cursor instead of
 * choosing the range's own bound and filtering every row before the cursor.
 */
function afterCursor(query: PoseQuery, alias: string, order: 'asc' | 'desc', cursor: string | null | undefined): { query: PoseQuery; tieBreak: Where } {
  if (!cursor) return { query, tieBreak: { sql: '', params: [] } };
  const [ts, seq] = decodeCursor(cursor, ['number', 'number']) as [number, number];
  return order === 'asc'
    ? { query: { ...query, start: Math.max(query.start ?? ts, ts) }, tieBreak: { sql: `(${alias}.ts > ? OR ${alias}.seq > ?)`, params: [ts, seq] } }
    : { query: { ...query, end: Math.min(query.end ?? ts, ts) }, tieBreak: { sql: `(${alias}.ts < ? OR ${alias}.seq < ?)`, params: [ts, seq] } };
}

function withCondition(where: Where, extra: Where): Where {
  if (extra.sql === '') return where;
  return { sql: where.sql ? `${where.sql} AND ${extra.sql}` : `WHERE ${extra.sql}`, params: [...where.params, ...extra.params] };
}

/** Frame metadata split into the deduplicated part and the per-frame figures that vary (CSI quality, link count). */
function splitMetadata(metadata: unknown): { json: string; csiQuality: number | null; linkCount: number | null } {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return { json: JSON.stringify(metadata ?? null), csiQuality: null, linkCount: null };
  const { csiQuality, linkCount, ...rest } = metadata as Record<string, unknown>;
  const shared: Record<string, unknown> = rest;
  // Only finite numbers go to the columns; anything else (null included) stays in the JSON as it was.
  const quality = typeof csiQuality === 'number' && Number.isFinite(csiQuality) ? csiQuality : null;
  const links = typeof linkCount === 'number' && Number.isFinite(linkCount) ? linkCount : null;
  if (quality === null && 'csiQuality' in metadata) shared.csiQuality = csiQuality;
  if (links === null && 'linkCount' in metadata) shared.linkCount = linkCount;
  return { json: JSON.stringify(shared), csiQuality: quality, linkCount: links };
}

/** A copy of a metadata object's keys and primitive values (null when a value is an object, which is never reused). */
function snapshotMetadata(metadata: Record<string, unknown>): Map<string, unknown> | null {
  const snapshot = new Map<string, unknown>();
  for (const key in metadata) {
    const value = metadata[key];
    if (typeof value === 'object' && value !== null) return null;
    snapshot.set(key, value);
  }
  return snapshot;
}

/** Whether metadata agrees with a snapshot on every field but the per-frame ones (same keys, identical values). */
function sameSharedMetadata(snapshot: Map<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in b) {
    count++;
    if (!snapshot.has(key)) return false;
    if (key === 'csiQuality' || key === 'linkCount') continue;
    if (snapshot.get(key) !== b[key]) return false;
  }
  return count === snapshot.size;
}

/** Pose frames and person records in SQLite: writes encoded for the writer thread, reads by the clustered key. */
export class SqlitePoseRepository implements PoseRepository {
  readonly #ctx: SqliteContext;
  readonly #statements = new Map<string, Statement>();
  readonly #rollups: PoseRollups;
  /** Environments with stored frames (pose_environments), sorted. */
  #environments: string[];
  /** Deduplicated metadata: JSON → id, and id → JSON for reads. */
  readonly #metadataIds = new Map<string, number>();
  readonly #metadataById = new Map<number, string>();
  #nextMetadataId: number;
  #nextFrameSeq: number;
  #nextPersonSeq: number;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#rollups = new PoseRollups(db);
    const next = new Map(db.prepare('SELECT name, next FROM pose_sequence').raw().all() as [string, number][]);
    this.#nextFrameSeq = next.get('frame') ?? 1;
    this.#nextPersonSeq = next.get('person') ?? 1;
    for (const [id, body] of db.prepare('SELECT id, body FROM pose_metadata').raw().all() as [number, string][]) {
      this.#metadataIds.set(body, id);
      this.#metadataById.set(id, body);
    }
    this.#nextMetadataId = Math.max(0, ...this.#metadataById.keys()) + 1;
    this.#environments = db.prepare('SELECT environment_id FROM pose_environments ORDER BY environment_id').pluck().all() as string[];
  }

  /** The last metadata split, reused while frames carry the same model fields (the usual stream). */
  #lastMetadata: { snapshot: Map<string, unknown>; json: string } | null = null;

  #splitMetadata(metadata: unknown): { json: string; csiQuality: number | null; linkCount: number | null } {
    const last = this.#lastMetadata;
    if (last && typeof metadata === 'object' && metadata !== null && sameSharedMetadata(last.snapshot, metadata as Record<string, unknown>)) {
      const { csiQuality, linkCount } = metadata as Record<string, unknown>;
      if ((csiQuality === undefined || (typeof csiQuality === 'number' && Number.isFinite(csiQuality))) && (linkCount === undefined || (typeof linkCount === 'number' && Number.isFinite(linkCount)))) {
        return { json: last.json, csiQuality: (csiQuality as number | undefined) ?? null, linkCount: (linkCount as number | undefined) ?? null };
      }
    }
    const split = splitMetadata(metadata);
    const snapshot = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? snapshotMetadata(metadata as Record<string, unknown>) : null;
    this.#lastMetadata = snapshot ? { snapshot, json: split.json } : null;
    return split;
  }

  /** The per-minute rollups (retention prunes them). */
  get rollups(): PoseRollups {
    return this.#rollups;
  }

  /** Environments with stored frames, sorted. */
  get environmentIds(): readonly string[] {
    return this.#environments;
  }

  /**
   * Encode frames into a write batch (on the appending thread): sequence numbers, metadata ids,
   * person bodies and the rollup upserts. Anonymisation was applied when they were appended.
   */
  encode(frames: PoseFrame[], builder: WriteBatchBuilder): void {
    const rollups = new RollupAccumulator();
    const metadataInBatch = new Set<number>();
    const environmentsInBatch = new Set<string>();
    const frameRows = builder.batch[Write.frame]!;
    const personRows = builder.batch[Write.person]!;
    for (const frame of frames) {
      const { timestamp, frameId, environmentId, processingTimeMs, persons, metadata, ...rest } = frame;
      const meta = this.#splitMetadata(metadata);
      let metadataId = this.#metadataIds.get(meta.json);
      if (metadataId === undefined) {
        metadataId = this.#nextMetadataId++;
        this.#metadataIds.set(meta.json, metadataId);
        this.#metadataById.set(metadataId, meta.json);
      }
      // Each batch carries its own metadata and environment rows (insert-or-ignore), so a batch that failed and is retried never points at a row that was never written.
      if (!metadataInBatch.has(metadataId)) {
        metadataInBatch.add(metadataId);
        builder.add(Write.metadata, metadataId, meta.json);
      }
      if (!environmentsInBatch.has(environmentId)) {
        environmentsInBatch.add(environmentId);
        builder.add(Write.environment, environmentId);
        if (!this.#environments.includes(environmentId)) this.#environments = [...this.#environments, environmentId].sort();
      }
      let hasRest = false;
      for (const _ in rest) {
        hasRest = true;
        break;
      }
      const frameSeq = this.#nextFrameSeq++;
      const personSeq = this.#nextPersonSeq;
      frameRows.push(environmentId, timestamp, frameSeq, frameId, personSeq, persons.length, processingTimeMs ?? null, metadataId, meta.csiQuality, meta.linkCount, hasRest ? JSON.stringify(rest) : null, encodePersonSummary(persons, builder.bytes));
      for (const person of persons) {
        const p = encodePerson(person, builder.bytes);
        personRows.push(environmentId, timestamp, this.#nextPersonSeq++, frameSeq, frameId, p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.body, p.extra);
      }
      builder.rows += 1 + persons.length;
      rollups.addFrame(environmentId, timestamp, persons);
    }
    rollups.writeTo(builder);
    builder.add(Write.sequence, 'frame', this.#nextFrameSeq);
    builder.add(Write.sequence, 'person', this.#nextPersonSeq);
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
    await this.#ctx.beforeRead();
    let best: FrameRow | undefined;
    for (const environmentId of this.#environmentsFor(query.environmentId)) {
      const row = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f WHERE f.environment_id = ? ORDER BY f.ts DESC, f.seq DESC LIMIT 1`, true).get(environmentId) as FrameRow | undefined;
      if (row && (!best || row[1] > best[1] || (row[1] === best[1] && row[2] > best[2]))) best = row;
    }
    if (!best) return null;
    const frame = this.#frame(best, null);
    if (query.minConfidence !== undefined) frame.persons = frame.persons.filter((p) => p.confidence >= query.minConfidence!);
    return frame;
  }

  async findFrames(query: PoseQuery, paging: PageRequest): Promise<Page<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const environments = this.#environmentsFor(query.environmentId);
    if (environments.length === 0) return makePage([], 0, paging);
    const where = frameWhere(environments, query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_frames', environments, query, where);
    const rows = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f ${where.sql} ORDER BY f.ts ${order}, f.seq ${order} LIMIT ? OFFSET ?`, true)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as FrameRow[];
    return makePage(rows.map((r) => this.#frame(r, query)), total, paging);
  }

  async scanFrames(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    await this.#ctx.beforeRead();
    const environments = this.#environmentsFor(query.environmentId);
    if (environments.length === 0) return { items: [], hasMore: false, nextCursor: null, totalCount: 0 };
    const where = frameWhere(environments, query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_frames', environments, query, where);
    const after = afterCursor(query, 'f', order, paging.cursor);
    const paged = withCondition(frameWhere(environments, after.query), after.tieBreak);
    const rows = this.#prepare(`SELECT ${FRAME_COLUMNS} FROM pose_frames f ${paged.sql} ORDER BY f.ts ${order}, f.seq ${order} LIMIT ?`, true)
      .all(...paged.params, paging.limit + 1) as FrameRow[];
    const page = makeCursorPage(rows, paging, total, (row) => [row[1], row[2]]);
    return { ...page, items: page.items.map((r) => this.#frame(r, query)) };
  }

  async findRecords(query: PoseQuery, paging: PageRequest): Promise<Page<PersonRecord>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const environments = this.#environmentsFor(query.environmentId);
    if (environments.length === 0) return makePage([], 0, paging);
    const where = personWhere(environments, query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_persons', environments, query, where);
    const rows = this.#prepare(`SELECT ${P_COLUMNS} FROM pose_persons p ${where.sql} ORDER BY p.ts ${order}, p.seq ${order} LIMIT ? OFFSET ?`, true)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as PersonRow[];
    return makePage(rows.map(toRecord), total, paging);
  }

  async scanRecords(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<PersonRecord>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    await this.#ctx.beforeRead();
    const environments = this.#environmentsFor(query.environmentId);
    if (environments.length === 0) return { items: [], hasMore: false, nextCursor: null, totalCount: 0 };
    const where = personWhere(environments, query);
    const order = query.order ?? 'asc';
    const total = this.#total('pose_persons', environments, query, where);
    const after = afterCursor(query, 'p', order, paging.cursor);
    const paged = withCondition(personWhere(environments, after.query), after.tieBreak);
    const rows = this.#prepare(`SELECT ${P_COLUMNS} FROM pose_persons p ${paged.sql} ORDER BY p.ts ${order}, p.seq ${order} LIMIT ?`, true)
      .all(...paged.params, paging.limit + 1) as PersonRow[];
    const page = makeCursorPage(rows, paging, total, (row) => [row[1], row[2]]);
    return { ...page, items: page.items.map(toRecord) };
  }

  async availableRange(environmentId?: string): Promise<AvailableRange | null> {
    await this.#ctx.beforeRead();
    let earliest = Number.POSITIVE_INFINITY;
    let latest = Number.NEGATIVE_INFINITY;
    let frameCount = 0;
    for (const id of this.#environmentsFor(environmentId)) {
      // MIN and MAX each read one end of the clustered key; the count comes from the rollups.
      const low = this.#prepare('SELECT MIN(ts) FROM pose_frames WHERE environment_id = ?', false, true).get(id) as number | null;
      const high = this.#prepare('SELECT MAX(ts) FROM pose_frames WHERE environment_id = ?', false, true).get(id) as number | null;
      if (low === null || high === null) continue;
      earliest = Math.min(earliest, low);
      latest = Math.max(latest, high);
      frameCount += this.#rollups.frames(id);
    }
    if (earliest === Number.POSITIVE_INFINITY) return null;
    return { environmentId: environmentId ?? '*', earliest, latest, frameCount };
  }

  async environments(): Promise<AvailableRange[]> {
    await this.#ctx.beforeRead();
    const ranges: AvailableRange[] = [];
    for (const id of this.#environments) {
      const range = await this.availableRange(id);
      if (range) ranges.push(range);
    }
    return ranges;
  }

  /**
   * POST /pose/query. Without person or frame filters, and for intervals of whole minutes, the
   * whole minutes of the range come from the rollups and only the partial minutes at its ends
   * are read frame by frame: the cost follows the length of the range, not the frames in it.
   * With filters every frame in range is read (its per-frame person summary, not person rows).
   */
  async aggregate(query: PoseAggregateQuery): Promise<PoseAggregateResult> {
    const aggregator = new PoseAggregator(query);
    if (query.environmentId !== undefined && typeof query.environmentId !== 'string') throw StorageErrors.invalid('environmentId must be a string');
    await this.#ctx.beforeRead();
    const interval = query.intervalMs ?? DEFAULT_AGGREGATE_INTERVAL_MS;
    const whole = PoseAggregator.summable(query) && interval % MINUTE_MS === 0 ? PoseRollups.wholeMinutes(query.start, query.end) : null;
    for (const environmentId of this.#environmentsFor(query.environmentId)) {
      if (!whole) {
        this.#aggregateFrames(aggregator, environmentId, query.start, query.end);
        continue;
      }
      if (query.start < whole.firstWhole) this.#aggregateFrames(aggregator, environmentId, query.start, whole.firstWhole - 1);
      for (const m of this.#rollups.minutes(environmentId, whole.firstWhole, whole.afterWhole)) {
        aggregator.addSummary(m.minute, { frames: m.frames, persons: m.persons, maxPersons: m.maxPersons, confidenceSum: m.confidenceSum, framesByPersonCount: m.occupancy, activities: m.activities, trackIds: m.trackIds });
      }
      if (whole.afterWhole <= query.end) this.#aggregateFrames(aggregator, environmentId, whole.afterWhole, query.end);
    }
    return aggregator.result();
  }

  /** Feed the frames of one environment in [start, end] to the aggregator, 5000 at a time in key order. */
  #aggregateFrames(aggregator: PoseAggregator, environmentId: string, start: number, end: number): void {
    const columns = 'f.seq, f.ts, f.person_count, f.person_summary';
    const firstChunk = this.#prepare(`SELECT ${columns} FROM pose_frames f WHERE f.environment_id = ? AND f.ts >= ? AND f.ts <= ? ORDER BY f.ts, f.seq LIMIT 5000`, true);
    const nextChunk = this.#prepare(`SELECT ${columns} FROM pose_frames f WHERE f.environment_id = ? AND f.ts >= ? AND f.ts <= ? AND (f.ts > ? OR f.seq > ?) ORDER BY f.ts, f.seq LIMIT 5000`, true);
    const persons = this.#prepare('SELECT frame_seq, confidence, activity, track_id FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts <= ?', true);
    let last: [number, number] | null = null;
    for (;;) {
      const chunk = (last ? nextChunk.all(environmentId, last[1], end, last[1], last[0]) : firstChunk.all(environmentId, start, end)) as [number, number, number, Uint8Array | null][];
      if (chunk.length === 0) break;
      const tail = chunk[chunk.length - 1]!;
      last = [tail[0], tail[1]];
      // Frames written before the summary column existed (schema < 3) are read from their person rows.
      const byFrame = new Map<number, AggregatePerson[]>();
      let low = Number.POSITIVE_INFINITY;
      let high = Number.NEGATIVE_INFINITY;
      for (const f of chunk) {
        if (f[3] !== null || f[2] === 0) continue;
        low = Math.min(low, f[1]);
        high = Math.max(high, f[1]);
      }
      if (low <= high) {
        for (const [frameSeq, confidence, activity, trackId] of persons.all(environmentId, low, high) as [number, number, string | null, number | null][]) {
          let list = byFrame.get(frameSeq);
          if (!list) byFrame.set(frameSeq, (list = []));
          list.push({ confidence, activity: activity as AggregatePerson['activity'], trackId });
        }
      }
      for (const [seq, ts, , summary] of chunk) aggregator.addFrame(ts, summary ? decodePersonSummary(Buffer.from(summary.buffer, summary.byteOffset, summary.byteLength)) : (byFrame.get(seq) ?? []));
      if (chunk.length < 5000) break;
    }
  }

  /** The environments a query covers: the one it names, or every one with data. */
  #environmentsFor(environmentId: string | undefined): string[] {
    if (environmentId !== undefined) return [environmentId];
    return [...this.#environments];
  }

  /** Rows matching a query: from the rollups when no person filter applies, else counted. */
  #total(table: 'pose_frames' | 'pose_persons', environments: string[], query: PoseQuery, where: Where): number {
    if (!hasPersonFilter(query)) return environments.reduce((n, id) => n + this.#rollups.total(table, id, query.start, query.end), 0);
    const alias = table === 'pose_frames' ? 'f' : 'p';
    return this.#prepare(`SELECT COUNT(*) FROM ${table} ${alias} ${where.sql}`, false, true).get(...where.params) as number;
  }

  #frame(row: FrameRow, query: PoseQuery | null): StoredPoseFrame {
    const [environmentId, ts, , frameId, personSeq, personCount, processingTimeMs, metadataId, csiQuality, linkCount, extra] = row;
    let persons: StoredPerson[] = personCount === 0
      ? []
      : (this.#prepare(`SELECT ${PERSON_COLUMNS} FROM pose_persons WHERE environment_id = ? AND ts = ? AND seq >= ? AND seq < ? ORDER BY seq`, true).all(environmentId, ts, personSeq, personSeq + personCount) as PersonRow[]).map(decodePerson);
    if (query && hasPersonFilter(query)) persons = persons.filter((p) => personMatches(p, query));
    const metadata = JSON.parse(this.#metadataById.get(metadataId) ?? 'null') as Record<string, unknown> | null;
    if (metadata && csiQuality !== null) metadata.csiQuality = csiQuality;
    if (metadata && linkCount !== null) metadata.linkCount = linkCount;
    return {
      ...(extra ? (JSON.parse(extra) as object) : {}),
      timestamp: ts,
      frameId,
      environmentId,
      processingTimeMs: processingTimeMs ?? 0,
      persons,
      metadata,
    } as unknown as StoredPoseFrame;
  }

  /** A cached prepared statement; `raw` ones return rows as arrays, `pluck` ones the first column. */
  #prepare(sql: string, raw = false, pluck = false): Statement {
    const key = `${raw ? 'raw' : pluck ? 'pluck' : 'obj'}:${sql}`;
    let statement = this.#statements.get(key);
    if (!statement) {
      statement = this.#ctx.db.prepare(sql);
      if (raw) statement.raw(true);
      if (pluck) statement.pluck(true);
      this.#statements.set(key, statement);
    }
    return statement;
  }
}

function toRecord(row: PersonRow): PersonRecord {
  const person = decodePerson(row);
  return {
    timestamp: row[1],
    frameId: row[4],
    environmentId: row[0],
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
