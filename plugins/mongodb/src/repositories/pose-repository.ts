import type { Filter, Document } from 'mongodb';
import {
  PoseAggregator,
  StorageErrors,
  anonymizePerson,
  checkCursorRequest,
  checkPageRequest,
  checkPoseFrame,
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

/** A person document (time-series collection `pose_persons`, metaField `env`). */
interface PersonDoc {
  ts: Date;
  env: string;
  seq: number;
  frameSeq: number;
  frameId: number;
  personId: number | null;
  trackId: number | null;
  confidence: number;
  activity: string | null;
  trackStatus: string | null;
  x: number;
  y: number;
  cx: number;
  cy: number;
  person: StoredPerson;
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

function encodePerson(person: StoredPerson, frame: PoseFrame, seq: number, frameSeq: number): PersonDoc {
  const box = person.boundingBox;
  return {
    ts: new Date(frame.timestamp),
    env: frame.environmentId,
    seq,
    frameSeq,
    frameId: frame.frameId,
    personId: person.id ?? null,
    trackId: person.trackId ?? null,
    confidence: person.confidence,
    activity: person.activity ?? null,
    trackStatus: person.trackStatus ?? null,
    x: person.position?.x ?? 0,
    y: person.position?.y ?? 0,
    cx: box ? box.x + box.width / 2 : 0,
    cy: box ? box.y + box.height / 2 : 0,
    person,
  };
}

function toRecord(doc: PersonDoc): PersonRecord {
  return {
    timestamp: doc.ts.getTime(),
    frameId: doc.frameId,
    environmentId: doc.env,
    personId: doc.personId,
    trackId: doc.trackId,
    confidence: doc.confidence,
    boundingBox: doc.person.boundingBox,
    keypoints: doc.person.keypoints,
    position: doc.person.position,
    activity: doc.person.activity ?? null,
    person: doc.person,
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
    // Persons first: a frame is only visible once its persons are.
    if (personDocs.length) await this.#persons.insertMany(personDocs, { ordered: false });
    await this.#frames.insertMany(frameDocs, { ordered: false });
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
      this.#frames.countDocuments(filter),
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
      this.#frames.countDocuments(filter),
      this.#frames.find(afterCursor(filter, order, paging.cursor) as Filter<FrameDoc>, NO_ID).sort({ ts: dir, seq: dir }).limit(paging.limit + 1).toArray(),
    ]);
    const hasMore = docs.length > paging.limit;
    const items = docs.slice(0, paging.limit);
    const last = items[items.length - 1];
    return { items: await this.#hydrate(items, query), hasMore, nextCursor: hasMore && last ? encodeCursor([last.ts.getTime(), last.seq]) : null, totalCount: total };
  }

  async findRecords(query: PoseQuery, paging: PageRequest): Promise<Page<PersonRecord>> {
    checkPoseQuery(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const filter = personFilter(query);
    const dir = query.order === 'desc' ? -1 : 1;
    const [total, docs] = await Promise.all([
      this.#persons.countDocuments(filter),
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
      this.#persons.countDocuments(filter),
      this.#persons.find(afterCursor(filter, order, paging.cursor) as Filter<PersonDoc>, NO_ID).sort({ ts: dir, seq: dir }).limit(paging.limit + 1).toArray(),
    ]);
    const hasMore = docs.length > paging.limit;
    const items = docs.slice(0, paging.limit);
    const last = items[items.length - 1];
    return { items: items.map(toRecord), hasMore, nextCursor: hasMore && last ? encodeCursor([last.ts.getTime(), last.seq]) : null, totalCount: total };
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

  async aggregate(query: PoseAggregateQuery): Promise<PoseAggregateResult> {
    const aggregator = new PoseAggregator(query);
    await this.#ctx.beforeRead();
    const range = rangeFilter({ environmentId: query.environmentId, start: query.start, end: query.end });
    const cursor = this.#frames.find(range, { projection: { _id: 0, ts: 1, summary: 1 } }).sort({ ts: 1, seq: 1 }).batchSize(5000);
    for await (const frame of cursor) aggregator.addFrame(frame.ts.getTime(), frame.summary ?? []);
    return aggregator.result();
  }

  /** Frame filter; person filters become "has a matching person" via the frames' seqs. */
  async #frameFilter(query: PoseQuery): Promise<Filter<FrameDoc>> {
    const filter = rangeFilter(query);
    if (!hasPersonFilter(query)) return filter as Filter<FrameDoc>;
    const frameSeqs = await this.#persons.distinct('frameSeq', personFilter(query));
    return { ...filter, seq: { $in: frameSeqs } } as Filter<FrameDoc>;
  }

  async #hydrate(docs: FrameDoc[], query: PoseQuery | null): Promise<StoredPoseFrame[]> {
    const ranges = docs.filter((d) => d.personCount > 0).map((d) => ({ seq: { $gte: d.personSeq, $lt: d.personSeq + d.personCount } }));
    const persons = ranges.length ? await this.#persons.find({ $or: ranges }, NO_ID).sort({ seq: 1 }).toArray() : [];
    const byFrame = new Map<number, StoredPerson[]>();
    for (const p of persons) {
      let list = byFrame.get(p.frameSeq);
      if (!list) byFrame.set(p.frameSeq, (list = []));
      list.push(p.person);
    }
    return docs.map((d) => {
      let framePersons = byFrame.get(d.seq) ?? [];
      if (query && hasPersonFilter(query)) framePersons = framePersons.filter((p) => personMatches(p, query));
      return { ...(d.extra ?? {}), timestamp: d.ts.getTime(), frameId: d.frameId, environmentId: d.env, processingTimeMs: d.processingTimeMs, persons: framePersons, metadata: d.metadata } as StoredPoseFrame;
    });
  }
}
