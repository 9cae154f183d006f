import type { Collection, Document } from 'mongodb';
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
  checkTimeRange,
  checkSortOrder,
  decodeCursor,
  makeCursorPage,
  makePage,
  sensingLinkKey,
} from '@wiflow/storage-kit';
import type { MongoContext } from '../context.js';

function timeFilter(range: { start?: number; end?: number }): Document {
  if (range.start === undefined && range.end === undefined) return {};
  const ts: Document = {};
  if (range.start !== undefined) ts.$gte = range.start;
  if (range.end !== undefined) ts.$lte = range.end;
  return { ts };
}

async function pageQuery<T>(collection: Collection<Document>, filter: Document, order: SortOrder, paging: PageRequest, decode: (doc: Document) => T): Promise<Page<T>> {
  checkPageRequest(paging);
  const dir = order === 'desc' ? -1 : 1;
  const [total, docs] = await Promise.all([
    collection.countDocuments(filter),
    collection.find(filter).sort({ ts: dir, seq: dir }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
  ]);
  return makePage(docs.map(decode), total, paging);
}

async function cursorQuery<T>(collection: Collection<Document>, filter: Document, order: SortOrder, paging: CursorRequest, decode: (doc: Document) => T): Promise<CursorPage<T>> {
  checkCursorRequest(paging);
  const dir = order === 'desc' ? -1 : 1;
  let paged = filter;
  if (paging.cursor) {
    const [ts, seq] = decodeCursor(paging.cursor, ['number', 'number']);
    const op = order === 'asc' ? '$gt' : '$lt';
    paged = { $and: [filter, { $or: [{ ts: { [op]: ts } }, { ts, seq: { [op]: seq } }] }] };
  }
  const [total, docs] = await Promise.all([collection.countDocuments(filter), collection.find(paged).sort({ ts: dir, seq: dir }).limit(paging.limit + 1).toArray()]);
  const page = makeCursorPage(docs, paging, total, (doc) => [doc.ts as number, doc.seq as number]);
  return { ...page, items: page.items.map(decode) };
}

/** Analytics events (collection `events`, _id = eventId). */
export class MongoEventRepository implements EventRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #events() {
    return this.#ctx.db.collection('events');
  }

  /** Write a buffer batch: upsert by eventId, keeping the first sequence number. */
  async write(events: AnalyticsEvent[]): Promise<void> {
    if (events.length === 0) return;
    let seq = await this.#ctx.reserveSeq('events', events.length);
    await this.#events.bulkWrite(
      events.map((e) => ({
        updateOne: {
          filter: { _id: e.eventId as never },
          update: { $set: { ts: e.timestamp, env: e.environmentId, type: e.type, severity: e.severity, trackId: e.trackId ?? null, source: e.source ?? '', body: e }, $setOnInsert: { seq: seq++ } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
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
    const doc = await this.#events.findOne({ _id: eventId as never });
    return doc ? (doc.body as StoredEvent) : null;
  }

  async find(query: EventQuery, paging: PageRequest): Promise<Page<StoredEvent>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#events, filter, checkSortOrder(query.order), paging, (d) => d.body as StoredEvent);
  }

  async scan(query: EventQuery, paging: CursorRequest): Promise<CursorPage<StoredEvent>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#events, filter, checkSortOrder(query.order), paging, (d) => d.body as StoredEvent);
  }

  async countByType(query: EventQuery): Promise<Record<string, number>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    const rows = await this.#events.aggregate<{ _id: string; n: number }>([{ $match: filter }, { $group: { _id: '$type', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
    return Object.fromEntries(rows.map((r) => [r._id, r.n]));
  }

  #filter(query: EventQuery): Document {
    checkTimeRange(query);
    const filter: Document = timeFilter(query);
    if (query.environmentId !== undefined) filter.env = query.environmentId;
    if (query.types?.length) filter.type = { $in: query.types };
    if (query.severities?.length) filter.severity = { $in: query.severities };
    if (query.trackId !== undefined) filter.trackId = query.trackId;
    if (query.sourcePrefix !== undefined) filter.source = { $regex: `^${query.sourcePrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` };
    return filter;
  }
}

function decodeAlert(doc: Document): StoredAlert {
  return { ...(doc.body as Alert), acknowledgedAt: (doc.acknowledgedAt as number | null) ?? null, acknowledgedBy: (doc.acknowledgedBy as string | null) ?? null };
}

/** Alerts (collection `alerts`, _id = alertId), written at once. */
export class MongoAlertRepository implements AlertRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #alerts() {
    return this.#ctx.db.collection('alerts');
  }

  async append(alerts: Alert[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(alerts)) throw StorageErrors.invalid('append needs an array of alerts');
    for (const a of alerts) {
      if (typeof a !== 'object' || a === null || typeof a.alertId !== 'string' || a.alertId === '') throw StorageErrors.invalid('alert alertId must be a non-empty string');
      if (!Number.isFinite(a.timestamp)) throw StorageErrors.invalid('alert timestamp must be a finite number (ms)');
    }
    if (alerts.length === 0) return;
    let seq = await this.#ctx.reserveSeq('alerts', alerts.length);
    await this.#alerts.bulkWrite(
      alerts.map((a) => {
        const { acknowledgedAt: _at, acknowledgedBy: _by, ...alert } = a as StoredAlert;
        return {
          updateOne: {
            filter: { _id: alert.alertId as never },
            update: { $set: { ts: alert.timestamp, env: alert.environmentId, alertType: alert.alertType, severity: alert.severity, body: alert }, $setOnInsert: { seq: seq++, acknowledgedAt: null, acknowledgedBy: null } },
            upsert: true,
          },
        };
      }),
      { ordered: true },
    );
  }

  async get(alertId: string): Promise<StoredAlert | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#alerts.findOne({ _id: alertId as never });
    return doc ? decodeAlert(doc) : null;
  }

  async find(query: AlertQuery, paging: PageRequest): Promise<Page<StoredAlert>> {
    this.#ctx.ensureOpen();
    return pageQuery(this.#alerts, this.#filter(query), checkSortOrder(query.order), paging, decodeAlert);
  }

  async scan(query: AlertQuery, paging: CursorRequest): Promise<CursorPage<StoredAlert>> {
    this.#ctx.ensureOpen();
    return cursorQuery(this.#alerts, this.#filter(query), checkSortOrder(query.order), paging, decodeAlert);
  }

  async acknowledge(alertId: string, by: string, at: number = this.#ctx.now()): Promise<StoredAlert | null> {
    this.#ctx.ensureOpen();
    await this.#alerts.updateOne({ _id: alertId as never, acknowledgedAt: null }, { $set: { acknowledgedAt: at, acknowledgedBy: by } });
    return this.get(alertId);
  }

  #filter(query: AlertQuery): Document {
    checkTimeRange(query);
    const filter: Document = timeFilter(query);
    if (query.environmentId !== undefined) filter.env = query.environmentId;
    if (query.alertTypes?.length) filter.alertType = { $in: query.alertTypes };
    if (query.severities?.length) filter.severity = { $in: query.severities };
    if (query.acknowledged === true) filter.acknowledgedAt = { $ne: null };
    if (query.acknowledged === false) filter.acknowledgedAt = null;
    return filter;
  }
}

function decodeMetric(doc: Document): MetricSample {
  return { timestamp: doc.ts as number, kind: doc.kind as string, source: doc.source as string, values: doc.values as Record<string, number> };
}

/** System metrics history (collection `metrics`), buffered. */
export class MongoMetricRepository implements MetricRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #metrics() {
    return this.#ctx.db.collection('metrics');
  }

  async write(samples: MetricSample[]): Promise<void> {
    if (samples.length === 0) return;
    let seq = await this.#ctx.reserveSeq('metrics', samples.length);
    await this.#metrics.insertMany(samples.map((s) => ({ ts: s.timestamp, kind: s.kind, source: s.source, values: s.values, seq: seq++ })), { ordered: true });
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
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#metrics, filter, checkSortOrder(query.order), paging, decodeMetric);
  }

  async scan(query: MetricQuery, paging: CursorRequest): Promise<CursorPage<MetricSample>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#metrics, filter, checkSortOrder(query.order), paging, decodeMetric);
  }

  async latest(kind: string, source?: string): Promise<MetricSample | null> {
    await this.#ctx.beforeRead();
    const filter: Document = { kind };
    if (source !== undefined) filter.source = source;
    const doc = await this.#metrics.find(filter).sort({ ts: -1, seq: -1 }).limit(1).next();
    return doc ? decodeMetric(doc) : null;
  }

  #filter(query: MetricQuery): Document {
    checkTimeRange(query);
    const filter: Document = timeFilter(query);
    if (query.kinds?.length) filter.kind = { $in: query.kinds };
    if (query.source !== undefined) filter.source = query.source;
    return filter;
  }
}

/** Sensing frames (collection `sensing_frames`), buffered, each kept whole in `body`. */
export class MongoSensingRepository implements SensingRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #frames() {
    return this.#ctx.db.collection('sensing_frames');
  }

  async write(frames: SensingFrame[]): Promise<void> {
    if (frames.length === 0) return;
    let seq = await this.#ctx.reserveSeq('sensing_frames', frames.length);
    await this.#frames.insertMany(frames.map((f) => ({ ts: f.time, env: f.environmentId, scope: f.scope, link: sensingLinkKey(f), body: f, seq: seq++ })), { ordered: true });
  }

  async append(frames: SensingFrame[]): Promise<void> {
    this.#ctx.ensureOpen();
    if (!Array.isArray(frames)) throw StorageErrors.invalid('append needs an array of sensing frames');
    frames.forEach((f, i) => checkSensingFrame(f, i));
    this.#ctx.buffer.addSensing(frames);
  }

  async find(query: SensingQuery, paging: PageRequest): Promise<Page<StoredSensingFrame>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return pageQuery(this.#frames, filter, checkSortOrder(query.order), paging, (d) => d.body as StoredSensingFrame);
  }

  async scan(query: SensingQuery, paging: CursorRequest): Promise<CursorPage<StoredSensingFrame>> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    return cursorQuery(this.#frames, filter, checkSortOrder(query.order), paging, (d) => d.body as StoredSensingFrame);
  }

  async latest(query: Pick<SensingQuery, 'environmentId' | 'scope'> = {}): Promise<StoredSensingFrame | null> {
    const filter = this.#filter(query);
    await this.#ctx.beforeRead();
    const doc = await this.#frames.find(filter).sort({ ts: -1, seq: -1 }).limit(1).next();
    return doc ? (doc.body as StoredSensingFrame) : null;
  }

  #filter(query: SensingQuery): Document {
    checkTimeRange(query);
    checkSensingQuery(query);
    const filter: Document = timeFilter(query);
    if (query.environmentId !== undefined) filter.env = query.environmentId;
    if (query.scope !== undefined) filter.scope = query.scope;
    if (query.link !== undefined) filter.link = query.link;
    return filter;
  }
}
