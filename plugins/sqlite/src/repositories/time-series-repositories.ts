import {
  StorageErrors,
  type Alert,
  type AlertQuery,
  type AlertRepository,
  type AnalyticsEvent,
  type CursorPage,
  type CursorRequest,
  type EventQuery,
  type EventRepository,
  type MetricQuery,
  type MetricRepository,
  type MetricSample,
  type Page,
  type PageRequest,
  type SensingFrame,
  type SensingQuery,
  type SensingRepository,
  type SortOrder,
  type StoredAlert,
  type StoredEvent,
  type StoredSensingFrame,
} from '@wiflow/core';
import {
  checkCursorRequest,
  checkEvent,
  checkPageRequest,
  checkSensingFrame,
  checkSensingQuery,
  checkSortOrder,
  checkTimeRange,
  makeCursorPage,
  makePage,
  sensingLinkKey,
} from '@wiflow/storage-kit';
import type { SqliteContext } from '../context.js';
import { SqlWhere } from '../sql-where.js';
import { Write, type WriteBatchBuilder } from '../writer/write-statements.js';

/** Page/cursor queries over a table with `seq` and a timestamp column, shared by events, alerts and metrics. */
function pageQuery<T>(ctx: SqliteContext, table: string, tsColumn: string, columns: string, where: SqlWhere, order: SortOrder, paging: PageRequest, decode: (row: any) => T): Page<T> {
  checkPageRequest(paging);
  const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM ${table} ${where.sql}`).get(...where.params) as { n: number }).n;
  const rows = ctx.db.prepare(`SELECT ${columns} FROM ${table} ${where.sql} ORDER BY ${tsColumn} ${order}, seq ${order} LIMIT ? OFFSET ?`).all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage);
  return makePage(rows.map(decode), total, paging);
}

function cursorQuery<T>(ctx: SqliteContext, table: string, tsColumn: string, columns: string, where: SqlWhere, order: SortOrder, paging: CursorRequest, decode: (row: any) => T): CursorPage<T> {
  checkCursorRequest(paging);
  const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM ${table} ${where.sql}`).get(...where.params) as { n: number }).n;
  const paged = where.clone().after(tsColumn, 'seq', order, paging.cursor);
  const rows = ctx.db.prepare(`SELECT ${columns}, ${tsColumn} AS cursor_ts, seq AS cursor_seq FROM ${table} ${paged.sql} ORDER BY ${tsColumn} ${order}, seq ${order} LIMIT ?`).all(...paged.params, paging.limit + 1) as { cursor_ts: number; cursor_seq: number }[];
  const page = makeCursorPage(rows, paging, total, (row) => [row.cursor_ts, row.cursor_seq]);
  return { ...page, items: page.items.map(decode) };
}

/** Analytics events: buffered writes, upsert by eventId. */
export class SqliteEventRepository implements EventRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  /** Encode events into a write batch (upserts by eventId, in order). */
  encode(events: AnalyticsEvent[], builder: WriteBatchBuilder): void {
    for (const e of events) builder.add(Write.event, e.eventId, e.timestamp, e.environmentId, e.type, e.severity, e.trackId ?? null, e.source ?? '', JSON.stringify(e));
  }

  async append(events: AnalyticsEvent[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(events)) throw StorageErrors.invalid('append needs an array of events');
    events.forEach(checkEvent);
    const anonymize = this.#ctx.privacy().anonymizeData;
    this.#ctx.buffer.addEvents(anonymize ? events.map((e) => ({ ...e, personId: null, trackId: null })) : events);
  }

  async get(eventId: string): Promise<StoredEvent | null> {
    await this.#ctx.beforeRead();
    const row = this.#ctx.db.prepare('SELECT body FROM events WHERE event_id = ?').get(eventId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as StoredEvent) : null;
  }

  async find(query: EventQuery, paging: PageRequest): Promise<Page<StoredEvent>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#ctx, 'events', 'ts', 'body', where, checkSortOrder(query.order), paging, (r: { body: string }) => JSON.parse(r.body));
  }

  async scan(query: EventQuery, paging: CursorRequest): Promise<CursorPage<StoredEvent>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#ctx, 'events', 'ts', 'body', where, checkSortOrder(query.order), paging, (r: { body: string }) => JSON.parse(r.body));
  }

  async countByType(query: EventQuery): Promise<Record<string, number>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    const rows = this.#ctx.db.prepare(`SELECT type, COUNT(*) AS n FROM events ${where.sql} GROUP BY type ORDER BY type`).all(...where.params) as { type: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }

  #where(query: EventQuery): SqlWhere {
    checkTimeRange(query);
    const where = new SqlWhere().range('ts', query);
    if (query.environmentId !== undefined) where.add('environment_id = ?', query.environmentId);
    where.in('type', query.types).in('severity', query.severities);
    if (query.trackId !== undefined) where.add('track_id = ?', query.trackId);
    if (query.sourcePrefix !== undefined) where.add('substr(source, 1, ?) = ?', query.sourcePrefix.length, query.sourcePrefix);
    return where;
  }
}

type AlertRow = { body: string; acknowledged_at: number | null; acknowledged_by: string | null };

function decodeAlert(row: AlertRow): StoredAlert {
  return { ...(JSON.parse(row.body) as Alert), acknowledgedAt: row.acknowledged_at, acknowledgedBy: row.acknowledged_by };
}

/** Alerts: written directly, upsert by alertId keeping the acknowledgement. */
export class SqliteAlertRepository implements AlertRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async append(alerts: Alert[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(alerts)) throw StorageErrors.invalid('append needs an array of alerts');
    for (const a of alerts) {
      if (typeof a !== 'object' || a === null || typeof a.alertId !== 'string' || a.alertId === '') throw StorageErrors.invalid('alert alertId must be a non-empty string');
      if (!Number.isFinite(a.timestamp)) throw StorageErrors.invalid('alert timestamp must be a finite number (ms)');
    }
    const upsert = this.#ctx.db.prepare(
      `INSERT INTO alerts (alert_id, ts, environment_id, alert_type, severity, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (alert_id) DO UPDATE SET ts = excluded.ts, environment_id = excluded.environment_id, alert_type = excluded.alert_type,
         severity = excluded.severity, body = excluded.body`,
    );
    this.#ctx.db.transaction(() => {
      for (const a of alerts) {
        const { acknowledgedAt: _at, acknowledgedBy: _by, ...alert } = a as StoredAlert;
        upsert.run(alert.alertId, alert.timestamp, alert.environmentId, alert.alertType, alert.severity, JSON.stringify(alert));
      }
    })();
  }

  async get(alertId: string): Promise<StoredAlert | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body, acknowledged_at, acknowledged_by FROM alerts WHERE alert_id = ?').get(alertId) as AlertRow | undefined;
    return row ? decodeAlert(row) : null;
  }

  async find(query: AlertQuery, paging: PageRequest): Promise<Page<StoredAlert>> {
    this.#ctx.ensureOpen();
    return pageQuery(this.#ctx, 'alerts', 'ts', 'body, acknowledged_at, acknowledged_by', this.#where(query), checkSortOrder(query.order), paging, decodeAlert);
  }

  async scan(query: AlertQuery, paging: CursorRequest): Promise<CursorPage<StoredAlert>> {
    this.#ctx.ensureOpen();
    return cursorQuery(this.#ctx, 'alerts', 'ts', 'body, acknowledged_at, acknowledged_by', this.#where(query), checkSortOrder(query.order), paging, decodeAlert);
  }

  async acknowledge(alertId: string, by: string, at: number = this.#ctx.now()): Promise<StoredAlert | null> {
    this.#ctx.ensureOpen();
    this.#ctx.db.prepare('UPDATE alerts SET acknowledged_at = ?, acknowledged_by = ? WHERE alert_id = ? AND acknowledged_at IS NULL').run(at, by, alertId);
    return this.get(alertId);
  }

  #where(query: AlertQuery): SqlWhere {
    checkTimeRange(query);
    const where = new SqlWhere().range('ts', query);
    if (query.environmentId !== undefined) where.add('environment_id = ?', query.environmentId);
    where.in('alert_type', query.alertTypes).in('severity', query.severities);
    if (query.acknowledged === true) where.add('acknowledged_at IS NOT NULL');
    if (query.acknowledged === false) where.add('acknowledged_at IS NULL');
    return where;
  }
}

type MetricRow = { ts: number; kind: string; source: string; metric_values: string };

function decodeMetric(row: MetricRow): MetricSample {
  return { timestamp: row.ts, kind: row.kind, source: row.source, values: JSON.parse(row.metric_values) as Record<string, number> };
}

/** System metrics history: buffered writes. */
export class SqliteMetricRepository implements MetricRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  /** Encode samples into a write batch. */
  encode(samples: MetricSample[], builder: WriteBatchBuilder): void {
    for (const s of samples) builder.add(Write.metric, s.timestamp, s.kind, s.source, JSON.stringify(s.values));
  }

  async append(samples: MetricSample[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(samples)) throw StorageErrors.invalid('append needs an array of metric samples');
    for (const s of samples) {
      if (typeof s !== 'object' || s === null || !Number.isFinite(s.timestamp)) throw StorageErrors.invalid('metric sample timestamp must be a finite number (ms)');
      if (typeof s.kind !== 'string' || typeof s.source !== 'string') throw StorageErrors.invalid('metric sample kind and source must be strings');
      if (typeof s.values !== 'object' || s.values === null || Object.values(s.values).some((v) => typeof v !== 'number')) throw StorageErrors.invalid('metric sample values must map names to numbers');
    }
    this.#ctx.buffer.addMetrics(samples);
  }

  async find(query: MetricQuery, paging: PageRequest): Promise<Page<MetricSample>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#ctx, 'metrics', 'ts', 'ts, kind, source, metric_values', where, checkSortOrder(query.order), paging, decodeMetric);
  }

  async scan(query: MetricQuery, paging: CursorRequest): Promise<CursorPage<MetricSample>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#ctx, 'metrics', 'ts', 'ts, kind, source, metric_values', where, checkSortOrder(query.order), paging, decodeMetric);
  }

  async latest(kind: string, source?: string): Promise<MetricSample | null> {
    await this.#ctx.beforeRead();
    const where = new SqlWhere().add('kind = ?', kind);
    if (source !== undefined) where.add('source = ?', source);
    const row = this.#ctx.db.prepare(`SELECT ts, kind, source, metric_values FROM metrics ${where.sql} ORDER BY ts DESC, seq DESC LIMIT 1`).get(...where.params) as MetricRow | undefined;
    return row ? decodeMetric(row) : null;
  }

  #where(query: MetricQuery): SqlWhere {
    checkTimeRange(query);
    const where = new SqlWhere().range('ts', query).in('kind', query.kinds);
    if (query.source !== undefined) where.add('source = ?', query.source);
    return where;
  }
}

/** Sensing frames (one per room or link and second): buffered writes, kept whole as JSON. */
export class SqliteSensingRepository implements SensingRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  /** Encode frames into a write batch. */
  encode(frames: SensingFrame[], builder: WriteBatchBuilder): void {
    for (const f of frames) builder.add(Write.sensing, f.time, f.environmentId, f.scope, sensingLinkKey(f), JSON.stringify(f));
  }

  async append(frames: SensingFrame[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(frames)) throw StorageErrors.invalid('append needs an array of sensing frames');
    frames.forEach((f, i) => checkSensingFrame(f, i));
    this.#ctx.buffer.addSensing(frames);
  }

  async find(query: SensingQuery, paging: PageRequest): Promise<Page<StoredSensingFrame>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#ctx, 'sensing_frames', 'ts', 'body', where, checkSortOrder(query.order), paging, (r: { body: string }) => JSON.parse(r.body));
  }

  async scan(query: SensingQuery, paging: CursorRequest): Promise<CursorPage<StoredSensingFrame>> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#ctx, 'sensing_frames', 'ts', 'body', where, checkSortOrder(query.order), paging, (r: { body: string }) => JSON.parse(r.body));
  }

  async latest(query: Pick<SensingQuery, 'environmentId' | 'scope'> = {}): Promise<StoredSensingFrame | null> {
    const where = this.#where(query);
    await this.#ctx.beforeRead();
    const row = this.#ctx.db.prepare(`SELECT body FROM sensing_frames ${where.sql} ORDER BY ts DESC, seq DESC LIMIT 1`).get(...where.params) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as StoredSensingFrame) : null;
  }

  #where(query: SensingQuery): SqlWhere {
    checkTimeRange(query);
    checkSensingQuery(query);
    const where = new SqlWhere().range('ts', query);
    if (query.environmentId !== undefined) where.add('environment_id = ?', query.environmentId);
    if (query.scope !== undefined) where.add('scope = ?', query.scope);
    if (query.link !== undefined) where.add('link = ?', query.link);
    return where;
  }
}
