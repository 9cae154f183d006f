import { Binary, type Filter, type Document, type AnyBulkWriteOperation } from 'mongodb';
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
  decodePersonBody,
  encodePersonBody,
  anonymizePerson,
  checkCursorRequest,
  checkPageRequest,
  checkPoseFrame,
  checkTimeRange,
  decodeCursor,
  hasPersonFilter,
  makeCursorPage,
  makePage,
  personColumns,
  personMatches,
  type AggregatePerson,
  type PersonColumns,
} from '@wiflow/storage-kit';
import type { MongoContext } from '../context.js';

/** A pose frame document (time-series collection `pose_frames`, metaField `env`). */
interface FrameDoc {
  ts: Date;
  env: string;
  seq: number;
  frameId: number;
  personSeq: number;
  personCount: number;
  processingTimeMs: number;
  metadata: unknown;
  extra: Record<string, unknown> | null;
  /** What aggregation needs of each person, so POST /pose/query reads frames only. */
  summary: AggregatePerson[];
}

/**
 * A person document (time-series collection `pose_persons`, metaField `env`). Keypoints,
 * bounding box and velocity are one binary `body` in the same layout as plugin-sqlite's
 * (@wiflow/storage-kit's encodePersonBody: keypoints float32, box and velocity float64), about 520 bytes
 * instead of ~3 KB of BSON sub-documents; `person` holds every other field. Documents
 * written before the body existed have the whole person in `person` and no `body`.
 */
export interface PersonDoc extends PersonColumns {
  ts: Date;
  env: string;
  seq: number;
  frameSeq: number;
  frameId: number;
  body?: Binary | null;
  person: StoredPerson;
}

/** One minute of one environment, summed on write (collection `pose_minutes`). */
interface MinuteDoc {
  _id: string;
  env: string;
  minute: Date;
  frames: number;
  persons: number;
  maxPersons: number;
  confidenceSum: number;
  /** Frames by their number of persons: { '2': 600 }. */
  occupancy: Record<string, number>;
  /** Persons by activity ('unknown' for none). */
  activities: Record<string, number>;
  tracks: number[];
}

const MINUTE_MS = 60_000;

function minuteOf(ts: number): number {
  return Math.floor(ts / MINUTE_MS) * MINUTE_MS;
}

/** Whole minutes [firstWhole, afterWhole) inside an inclusive range, or null when there is none. */
function wholeMinutes(start: number, end: number): { firstWhole: number; afterWhole: number } | null {
  const firstWhole = Math.ceil(start / MINUTE_MS) * MINUTE_MS;
  const afterWhole = minuteOf(end + 1);
  return firstWhole < afterWhole ? { firstWhole, afterWhole } : null;
}

/** The upserts that add a batch's frames to their minutes ($inc, $max, $addToSet: one round trip, order-free). */
export function minuteUpserts(frames: PoseFrame[]): AnyBulkWriteOperation<MinuteDoc>[] {
  const minutes = new Map<string, { env: string; minute: number; frames: number; persons: number; maxPersons: number; confidenceSum: number; occupancy: Map<number, number>; activities: Map<string, number>; tracks: Set<number> }>();
  for (const frame of frames) {
    const minute = minuteOf(frame.timestamp);
    const key = `${frame.environmentId}|${minute}`;
    let m = minutes.get(key);
    if (!m) minutes.set(key, (m = { env: frame.environmentId, minute, frames: 0, persons: 0, maxPersons: 0, confidenceSum: 0, occupancy: new Map(), activities: new Map(), tracks: new Set() }));
    m.frames++;
    m.persons += frame.persons.length;
    m.maxPersons = Math.max(m.maxPersons, frame.persons.length);
    m.occupancy.set(frame.persons.length, (m.occupancy.get(frame.persons.length) ?? 0) + 1);
    for (const p of frame.persons) {
      m.confidenceSum += p.confidence;
      const activity = p.activity ?? 'unknown';
      m.activities.set(activity, (m.activities.get(activity) ?? 0) + 1);
      if (p.trackId !== null && p.trackId !== undefined) m.tracks.add(p.trackId);
    }
  }
  return [...minutes.entries()].map(([key, m]) => {
    const inc: Record<string, number> = { frames: m.frames, persons: m.persons, confidenceSum: m.confidenceSum };
    for (const [count, n] of m.occupancy) inc[`occupancy.${count}`] = n;
    // Activity names are enum words (no dots or dollars), so they are safe field names.
    for (const [activity, n] of m.activities) inc[`activities.${activity}`] = n;
    return {
      updateOne: {
        filter: { _id: key },
        update: { $setOnInsert: { env: m.env, minute: new Date(m.minute) }, $inc: inc, $max: { maxPersons: m.maxPersons }, $addToSet: { tracks: { $each: [...m.tracks] } } },
        upsert: true,
      },
    } as AnyBulkWriteOperation<MinuteDoc>;
  });
}

function checkPoseQuery(query: PoseQuery): void {
  if (typeof query !== 'object' || query === null) throw StorageErrors.invalid('a pose query must be an object');
  checkTimeRange(query);
  if (query.minConfidence !== undefined && !Number.isFinite(query.minConfidence)) throw StorageErrors.invalid('minConfidence must be a number');
  if (query.personId !== undefined && !Number.isInteger(query.personId)) throw StorageErrors.invalid('personId must be an integer');
  if (query.trackId !== undefined && !Number.isInteger(query.trackId)) throw StorageErrors.invalid('trackId must be an integer');
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw StorageErrors.invalid(`order must be asc or desc, got ${String(query.order)}`);
}

function rangeFilter(query: { environmentId?: string; start?: number; end?: number }): Document {
  const filter: Document = {};
  if (query.environmentId !== undefined) filter.env = query.environmentId;
  if (query.start !== undefined || query.end !== undefined) {
    filter.ts = {};
    if (query.start !== undefined) filter.ts.$gte = new Date(query.start);
    if (query.end !== undefined) filter.ts.$lte = new Date(query.end);
  }
  return filter;
}

function personFilter(query: PoseQuery): Document {
  const filter = rangeFilter(query);
  if (query.personId !== undefined) filter.personId = query.personId;
  if (query.trackId !== undefined) filter.trackId = query.trackId;
  if (query.minConfidence !== undefined) filter.confidence = { $gte: query.minConfidence };
  return filter;
}

function afterCursor(filter: Document, order: 'asc' | 'desc', cursor: string | null | undefined): Document {
  if (!cursor) return filter;
  const [ts, seq] = decodeCursor(cursor, ['number', 'number']) as [number, number];
  const op = order === 'asc' ? '$gt' : '$lt';
  return { $and: [filter, { $or: [{ ts: { [op]: new Date(ts) } }, { ts: new Date(ts), seq: { [op]: seq } }] }] };
}

/** A person as its `pose_persons` document. */
export function encodePerson(person: StoredPerson, frame: PoseFrame, seq: number, frameSeq: number): PersonDoc {
  const box = person.boundingBox;
  const bytes = encodePersonBody(person.keypoints, person.keypoints3d, box, person.velocity);
  let rest: StoredPerson = person;
  if (bytes) {
    const { keypoints, keypoints3d, ...others } = person;
    const decoded = decodePersonBody(bytes);
    // What the body holds leaves the document; what it could not hold (an odd box or velocity) stays.
    if (decoded.boundingBox) delete (others as Partial<StoredPerson>).boundingBox;
    if (decoded.velocity) delete (others as Partial<StoredPerson>).velocity;
    rest = others as StoredPerson;
  }
  return {
    ts: new Date(frame.timestamp),
    env: frame.environmentId,
    seq,
    frameSeq,
    frameId: frame.frameId,
    ...personColumns(person),
    body: bytes ? new Binary(bytes) : null,
    person: rest,
  };
}

/** The person a document holds (body merged back in). */
export function personOf(doc: PersonDoc): StoredPerson {
  if (!doc.body) return doc.person;
  const body = decodePersonBody(doc.body.buffer.subarray(0, doc.body.position));
  const person = { ...doc.person, keypoints: body.keypoints, keypoints3d: body.keypoints3d } as StoredPerson;
  if (body.boundingBox) person.boundingBox = body.boundingBox;
  if (body.velocity) person.velocity = body.velocity;
  return person;
}

function toRecord(doc: PersonDoc): PersonRecord {
  const person = personOf(doc);
  return {
    timestamp: doc.ts.getTime(),
    frameId: doc.frameId,
    environmentId: doc.env,
    personId: doc.personId,
    trackId: doc.trackId,
    confidence: doc.confidence,
    boundingBox: person.boundingBox,
    keypoints: person.keypoints,
    position: person.position,
    activity: person.activity ?? null,
    person,
  };
}

const NO_ID = { projection: { _id: 0 } };

/** Pose frames and person records in two time-series collections. */
export class MongoPoseRepository implements PoseRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #frames() {
    return this.#ctx.db.collection<FrameDoc>('pose_frames');
  }

  get #persons() {
    return this.#ctx.db.collection<PersonDoc>('pose_persons');
  }

  get #minutes() {
    return this.#ctx.db.collection<MinuteDoc>('pose_minutes');
  }

  /** Write frames (a buffer batch): sequence numbers reserved in one step, then two bulk inserts. */
  async write(frames: PoseFrame[]): Promise<void> {
    if (frames.length === 0) return;
    const personTotal = frames.reduce((n, f) => n + f.persons.length, 0);
    let frameSeq = await this.#ctx.reserveSeq('pose_frames', frames.length);
    let personSeq = personTotal > 0 ? await this.#ctx.reserveSeq('pose_persons', personTotal) : 0;
    const frameDocs: FrameDoc[] = [];
    const personDocs: PersonDoc[] = [];
    for (const frame of frames) {
      const { timestamp, frameId, environmentId, processingTimeMs, persons, metadata, ...rest } = frame;
      const seq = frameSeq++;
      const summary = persons.map((p) => ({ confidence: p.confidence, activity: p.activity ?? null, trackId: p.trackId ?? null }));
      frameDocs.push({ ts: new Date(timestamp), env: environmentId, seq, frameId, personSeq, personCount: persons.length, processingTimeMs: processingTimeMs ?? 0, metadata: metadata ?? null, extra: Object.keys(rest).length ? rest : null, summary });
      for (const person of persons) personDocs.push(encodePerson(person as StoredPerson, frame, personSeq++, seq));
    }
    // Persons first: a frame is only visible once its persons are. The minutes last: a retried
    // batch (after a failure part-way) may count a frame twice there, which retention's rebuild
    // of a minute or rebuildMinute corrects; rows are never duplicated (fresh sequence numbers).
    if (personDocs.length) await this.#persons.insertMany(personDocs, { ordered: false });
    await this.#frames.insertMany(frameDocs, { ordered: false });
    await this.#minutes.bulkWrite(minuteUpserts(frames), { ordered: false });
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
    const doc = await this.#frames.find(rangeFilter({ environmentId: query.environmentId }), NO_ID).sort({ ts: -1, seq: -1 }).limit(1).next();
    if (!doc) return null;
    const [frame] = await this.#hydrate([doc], null);
    if (query.minConfidence !== undefined) frame!.persons = frame!.persons.filter((p) => p.confidence >= query.minConfidence!);
    return frame!;
  }

  async findFrames(query: PoseQuery, paging: PageRequest): Promise<Page<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const filter = await this.#frameFilter(query);
    const dir = query.order === 'desc' ? -1 : 1;
    const [total, docs] = await Promise.all([
      this.#total('frames', query, filter),
      this.#frames.find(filter, NO_ID).sort({ ts: dir, seq: dir }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(await this.#hydrate(docs, query), total, paging);
  }

  async scanFrames(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<StoredPoseFrame>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    await this.#ctx.beforeRead();
    const order = query.order ?? 'asc';
    const dir = order === 'desc' ? -1 : 1;
    const filter = await this.#frameFilter(query);
    const [total, docs] = await Promise.all([
      this.#total('frames', query, filter),
      this.#frames.find(afterCursor(filter, order, paging.cursor) as Filter<FrameDoc>, NO_ID).sort({ ts: dir, seq: dir }).limit(paging.limit + 1).toArray(),
    ]);
    const page = makeCursorPage(docs, paging, total, (doc) => [doc.ts.getTime(), doc.seq]);
    return { ...page, items: await this.#hydrate(page.items, query) };
  }

  async findRecords(query: PoseQuery, paging: PageRequest): Promise<Page<PersonRecord>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const filter = personFilter(query);
    const dir = query.order === 'desc' ? -1 : 1;
    const [total, docs] = await Promise.all([
      this.#total('persons', query, filter),
      this.#persons.find(filter, NO_ID).sort({ ts: dir, seq: dir }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map(toRecord), total, paging);
  }

  async scanRecords(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<PersonRecord>> {
    checkPoseQuery(query);
    checkCursorRequest(paging);
    await this.#ctx.beforeRead();
    const order = query.order ?? 'asc';
    const dir = order === 'desc' ? -1 : 1;
    const filter = personFilter(query);
    const [total, docs] = await Promise.all([
      this.#total('persons', query, filter),
      this.#persons.find(afterCursor(filter, order, paging.cursor) as Filter<PersonDoc>, NO_ID).sort({ ts: dir, seq: dir }).limit(paging.limit + 1).toArray(),
    ]);
    const page = makeCursorPage(docs, paging, total, (doc) => [doc.ts.getTime(), doc.seq]);
    return { ...page, items: page.items.map(toRecord) };
  }

  async availableRange(environmentId?: string): Promise<AvailableRange | null> {
    await this.#ctx.beforeRead();
    const match = environmentId === undefined ? {} : { env: environmentId };
    const [row] = await this.#frames.aggregate<{ earliest: Date; latest: Date; n: number }>([{ $match: match }, { $group: { _id: null, earliest: { $min: '$ts' }, latest: { $max: '$ts' }, n: { $sum: 1 } } }]).toArray();
    if (!row || row.n === 0) return null;
    return { environmentId: environmentId ?? '*', earliest: row.earliest.getTime(), latest: row.latest.getTime(), frameCount: row.n };
  }

  async environments(): Promise<AvailableRange[]> {
    await this.#ctx.beforeRead();
    const rows = await this.#frames
      .aggregate<{ _id: string; earliest: Date; latest: Date; n: number }>([{ $group: { _id: '$env', earliest: { $min: '$ts' }, latest: { $max: '$ts' }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }])
      .toArray();
    return rows.map((r) => ({ environmentId: r._id, earliest: r.earliest.getTime(), latest: r.latest.getTime(), frameCount: r.n }));
  }

  /**
   * POST /pose/query: without person or frame filters (and for whole-minute intervals) the
   * whole minutes come from `pose_minutes` and only the partial minutes at the ends are read
   * frame by frame, as in plugin-sqlite; with filters every frame in range is read.
   */
  async aggregate(query: PoseAggregateQuery): Promise<PoseAggregateResult> {
    const aggregator = new PoseAggregator(query);
    await this.#ctx.beforeRead();
    const interval = query.intervalMs ?? DEFAULT_AGGREGATE_INTERVAL_MS;
    const whole = PoseAggregator.summable(query) && interval % MINUTE_MS === 0 ? wholeMinutes(query.start, query.end) : null;
    if (!whole) {
      await this.#aggregateFrames(aggregator, query.environmentId, query.start, query.end);
      return aggregator.result();
    }
    if (query.start < whole.firstWhole) await this.#aggregateFrames(aggregator, query.environmentId, query.start, whole.firstWhole - 1);
    const match: Document = { minute: { $gte: new Date(whole.firstWhole), $lt: new Date(whole.afterWhole) } };
    if (query.environmentId !== undefined) match.env = query.environmentId;
    for await (const m of this.#minutes.find(match).sort({ minute: 1 })) {
      aggregator.addSummary(m.minute.getTime(), {
        frames: m.frames,
        persons: m.persons,
        maxPersons: m.maxPersons,
        confidenceSum: m.confidenceSum,
        framesByPersonCount: Object.entries(m.occupancy ?? {}).map(([count, n]) => [Number(count), n] as [number, number]),
        activities: Object.entries(m.activities ?? {}),
        trackIds: m.tracks ?? [],
      });
    }
    if (whole.afterWhole <= query.end) await this.#aggregateFrames(aggregator, query.environmentId, whole.afterWhole, query.end);
    return aggregator.result();
  }

  /**
   * Build `pose_minutes` from the frames once, for data written before the rollups existed
   * (the first open after the upgrade; an attempt that was cut off is redone from scratch).
   * Runs in open(), before anything is appended; in cluster mode let one instance open first.
   */
  async backfillMinutes(): Promise<void> {
    const counters = this.#ctx.db.collection<{ _id: string; built?: boolean }>('counters');
    if ((await counters.findOne({ _id: 'pose_minutes' }))?.built) return;
    await this.#minutes.deleteMany({});
    let batch: PoseFrame[] = [];
    for await (const f of this.#frames.find({}, { projection: { _id: 0, ts: 1, env: 1, summary: 1 } }).batchSize(10_000)) {
      batch.push({ timestamp: f.ts.getTime(), environmentId: f.env, persons: f.summary ?? [] } as unknown as PoseFrame);
      if (batch.length === 10_000) {
        await this.#minutes.bulkWrite(minuteUpserts(batch), { ordered: false });
        batch = [];
      }
    }
    if (batch.length > 0) await this.#minutes.bulkWrite(minuteUpserts(batch), { ordered: false });
    await counters.updateOne({ _id: 'pose_minutes' }, { $set: { built: true } }, { upsert: true });
  }

  /** Recompute one minute of one environment from its frames (retention calls it for the minute its cutoff cuts through). */
  async rebuildMinute(environmentId: string, minute: number): Promise<void> {
    const key = `${environmentId}|${minute}`;
    await this.#minutes.deleteOne({ _id: key });
    const frames = await this.#frames.find({ env: environmentId, ts: { $gte: new Date(minute), $lt: new Date(minute + MINUTE_MS) } }, { projection: { _id: 0, ts: 1, summary: 1 } }).toArray();
    if (frames.length === 0) return;
    const asFrames = frames.map((f) => ({ timestamp: f.ts.getTime(), environmentId, persons: f.summary ?? [] }) as unknown as PoseFrame);
    await this.#minutes.bulkWrite(minuteUpserts(asFrames), { ordered: false });
  }

  /** Drop minutes wholly before `cutoff`, rebuild the one it cuts through. */
  async pruneMinutes(cutoff: number): Promise<void> {
    const cutMinute = minuteOf(cutoff);
    await this.#minutes.deleteMany({ minute: { $lt: new Date(cutMinute) } });
    if (cutMinute === cutoff) return;
    for (const m of await this.#minutes.find({ minute: new Date(cutMinute) }, { projection: { env: 1 } }).toArray()) await this.rebuildMinute(m.env, cutMinute);
  }

  async #aggregateFrames(aggregator: PoseAggregator, environmentId: string | undefined, start: number, end: number): Promise<void> {
    const range = rangeFilter({ environmentId, start, end });
    const cursor = this.#frames.find(range, { projection: { _id: 0, ts: 1, summary: 1 } }).sort({ ts: 1, seq: 1 }).batchSize(5000);
    for await (const frame of cursor) aggregator.addFrame(frame.ts.getTime(), frame.summary ?? []);
  }

  /** Rows matching a query: from the minutes when no person filter applies (exact counts for the partial minutes at the ends), else counted. */
  async #total(kind: 'frames' | 'persons', query: PoseQuery, filter: Document): Promise<number> {
    const collection = kind === 'frames' ? this.#frames : this.#persons;
    if (hasPersonFilter(query)) return collection.countDocuments(filter);
    const start = query.start ?? -8.64e15;
    const end = query.end ?? 8.64e15;
    const whole = wholeMinutes(start, end);
    if (!whole) return collection.countDocuments(filter);
    const match: Document = { minute: { $gte: new Date(whole.firstWhole), $lt: new Date(whole.afterWhole) } };
    if (query.environmentId !== undefined) match.env = query.environmentId;
    const [sum] = await this.#minutes.aggregate<{ n: number }>([{ $match: match }, { $group: { _id: null, n: { $sum: `$${kind}` } } }]).toArray();
    let total = sum?.n ?? 0;
    if (start < whole.firstWhole) total += await collection.countDocuments(rangeFilter({ environmentId: query.environmentId, start, end: whole.firstWhole - 1 }));
    if (whole.afterWhole <= end) total += await collection.countDocuments(rangeFilter({ environmentId: query.environmentId, start: whole.afterWhole, end }));
    return total;
  }

  /** Frame filter; person filters become "has a matching person" via the frames' seqs. */
  async #frameFilter(query: PoseQuery): Promise<Filter<FrameDoc>> {
    const filter = rangeFilter(query);
    if (!hasPersonFilter(query)) return filter as Filter<FrameDoc>;
    // $group, not distinct: distinct cannot use indexes on a time-series collection.
    const groups = await this.#persons.aggregate<{ _id: number }>([{ $match: personFilter(query) }, { $group: { _id: '$frameSeq' } }]).toArray();
    const frameSeqs = groups.map((g) => g._id);
    return { ...filter, seq: { $in: frameSeqs } } as Filter<FrameDoc>;
  }

  async #hydrate(docs: FrameDoc[], query: PoseQuery | null): Promise<StoredPoseFrame[]> {
    // A frame's persons share its environment and timestamp: the (env, ts, seq) index finds them.
    const ranges = docs.filter((d) => d.personCount > 0).map((d) => ({ env: d.env, ts: d.ts, seq: { $gte: d.personSeq, $lt: d.personSeq + d.personCount } }));
    const persons = ranges.length ? await this.#persons.find({ $or: ranges }, NO_ID).sort({ seq: 1 }).toArray() : [];
    const byFrame = new Map<number, StoredPerson[]>();
    for (const p of persons) {
      let list = byFrame.get(p.frameSeq);
      if (!list) byFrame.set(p.frameSeq, (list = []));
      list.push(personOf(p));
    }
    return docs.map((d) => {
      let framePersons = byFrame.get(d.seq) ?? [];
      if (query && hasPersonFilter(query)) framePersons = framePersons.filter((p) => personMatches(p, query));
      return { ...(d.extra ?? {}), timestamp: d.ts.getTime(), frameId: d.frameId, environmentId: d.env, processingTimeMs: d.processingTimeMs, persons: framePersons, metadata: d.metadata } as StoredPoseFrame;
    });
  }
}
