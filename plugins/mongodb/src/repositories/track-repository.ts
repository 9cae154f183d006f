import type { Document } from 'mongodb';
import { StorageErrors, type Page, type PageRequest, type TrackQuery, type TrackRepository, type TrackSummary } from '@wiflow/core';
import { checkPageRequest, checkTimeRange, makePage, summarizeTrack } from '@wiflow/storage-kit';
import type { MongoContext } from '../context.js';

/** Tracks summarised from `pose_persons`. */
export class MongoTrackRepository implements TrackRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #persons() {
    return this.#ctx.db.collection('pose_persons');
  }

  async get(trackId: number, query: TrackQuery & { includeTrajectory?: boolean } = {}): Promise<TrackSummary | null> {
    if (!Number.isInteger(trackId)) throw StorageErrors.invalid('trackId must be an integer');
    checkTimeRange(query);
    await this.#ctx.beforeRead();
    const filter: Document = { trackId, ...this.#range(query) };
    let environmentId = query.environmentId;
    if (environmentId === undefined) {
      const latest = await this.#persons.find(filter, { projection: { env: 1 } }).sort({ ts: -1, seq: -1 }).limit(1).next();
      if (!latest) return null;
      environmentId = latest.env as string;
    }
    const docs = await this.#persons
      .find({ ...filter, env: environmentId }, { projection: { _id: 0, ts: 1, env: 1, personId: 1, confidence: 1, x: 1, y: 1, cx: 1, cy: 1, trackStatus: 1 } })
      .sort({ ts: 1, seq: 1 })
      .toArray();
    if (docs.length === 0) return null;
    const points = docs.map((d) => ({ timestamp: (d.ts as Date).getTime(), environmentId: d.env as string, personId: d.personId as number | null, confidence: d.confidence as number, position: { x: d.x as number, y: d.y as number }, centerX: d.cx as number, centerY: d.cy as number }));
    return summarizeTrack(trackId, points, (docs[docs.length - 1]!.trackStatus as string | null) ?? null, query.includeTrajectory === true);
  }

  async list(query: TrackQuery, paging: PageRequest): Promise<Page<TrackSummary>> {
    checkTimeRange(query);
    checkPageRequest(paging);
    await this.#ctx.beforeRead();
    const match: Document = { trackId: { $ne: null }, ...this.#range(query) };
    if (query.environmentId !== undefined) match.env = query.environmentId;
    const [result] = await this.#persons
      .aggregate<{ total: { n: number }[]; page: { _id: { env: string; trackId: number } }[] }>([
        { $match: match },
        { $group: { _id: { env: '$env', trackId: '$trackId' }, last: { $max: '$ts' } } },
        { $sort: { last: -1, '_id.env': 1, '_id.trackId': 1 } },
        { $facet: { total: [{ $count: 'n' }], page: [{ $skip: (paging.page - 1) * paging.perPage }, { $limit: paging.perPage }] } },
      ])
      .toArray();
    const items: TrackSummary[] = [];
    for (const group of result?.page ?? []) {
      const summary = await this.get(group._id.trackId, { environmentId: group._id.env, start: query.start, end: query.end });
      if (summary) items.push(summary);
    }
    return makePage(items, result?.total[0]?.n ?? 0, paging);
  }

  #range(query: TrackQuery): Document {
    if (query.start === undefined && query.end === undefined) return {};
    const ts: Document = {};
    if (query.start !== undefined) ts.$gte = new Date(query.start);
    if (query.end !== undefined) ts.$lte = new Date(query.end);
    return { ts };
  }
}
