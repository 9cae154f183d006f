import type { Document } from 'mongodb';
import {
  StorageErrors,
  type FileCreate,
  type FileQuery,
  type FileRecord,
  type FileRepository,
  type MessageCreate,
  type MessageQuery,
  type MessageRecord,
  type MessageRepository,
  type Page,
  type PageRequest,
} from '@wiflow/core';
import {
  buildFile,
  buildMessage,
  checkPageRequest,
  checkTimeRange,
  makePage,
} from '@wiflow/storage-kit';
import { duplicateKeyFields, type MongoContext } from '../context.js';

/** Messages (collection `messages`, _id = message id). */
export class MongoMessageRepository implements MessageRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #messages() {
    return this.#ctx.db.collection('messages');
  }

  async append(input: MessageCreate): Promise<MessageRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a message must be an object');
    const message = buildMessage(input, this.#ctx.now());
    const seq = await this.#ctx.reserveSeq('messages', 1);
    try {
      await this.#messages.insertOne({ ...this.#doc(message), seq });
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('message', 'id', message.id);
      throw error;
    }
    return message;
  }

  async get(id: string): Promise<MessageRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#messages.findOne({ _id: id as never });
    return doc ? this.#ctx.openBody<MessageRecord>(doc.body) : null;
  }

  async find(query: MessageQuery, paging: PageRequest): Promise<Page<MessageRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    checkTimeRange(query);
    const filter: Document = {};
    if (query.start !== undefined || query.end !== undefined) {
      filter.ts = {};
      if (query.start !== undefined) filter.ts.$gte = query.start;
      if (query.end !== undefined) filter.ts.$lte = query.end;
    }
    if (query.flowId !== undefined) filter.flowId = query.flowId;
    if (query.sessionId !== undefined) filter.sessionId = query.sessionId;
    if (query.sender !== undefined) filter.sender = query.sender;
    if (query.senderName !== undefined) filter.senderName = query.senderName;
    const dir = query.order === 'desc' ? -1 : 1;
    const [total, docs] = await Promise.all([
      this.#messages.countDocuments(filter),
      this.#messages.find(filter).sort({ ts: dir, seq: dir }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => this.#ctx.openBody<MessageRecord>(d.body)), total, paging);
  }

  async update(id: string, patch: Partial<Omit<MessageRecord, 'id'>>): Promise<MessageRecord> {
    this.#ctx.ensureOpen();
    const current = await this.get(id);
    if (!current) throw StorageErrors.notFound('message', id);
    const merged: MessageRecord = { ...current };
    for (const [key, value] of Object.entries(patch)) if (value !== undefined && key !== 'id') (merged as unknown as Record<string, unknown>)[key] = value;
    const next = buildMessage(merged, merged.timestamp);
    const { _id, ...fields } = this.#doc(next);
    await this.#messages.updateOne({ _id: id as never }, { $set: fields });
    return next;
  }

  async delete(ids: string[]): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#messages.deleteMany({ _id: { $in: ids as never[] } })).deletedCount;
  }

  async deleteSession(sessionId: string): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#messages.deleteMany({ sessionId })).deletedCount;
  }

  async sessions(flowId?: string): Promise<string[]> {
    this.#ctx.ensureOpen();
    const rows = await this.#messages
      .aggregate<{ _id: string }>([{ $match: flowId === undefined ? {} : { flowId } }, { $group: { _id: '$sessionId', last: { $max: '$ts' } } }, { $sort: { last: -1, _id: 1 } }])
      .toArray();
    return rows.map((r) => r._id);
  }

  #doc(message: MessageRecord): Document {
    return { _id: message.id, flowId: message.flowId, sessionId: message.sessionId, sender: message.sender, senderName: message.senderName, ts: message.timestamp, body: this.#ctx.sealBody(message) };
  }
}

/** File metadata (collection `files`, _id = file id). */
export class MongoFileRepository implements FileRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #files() {
    return this.#ctx.db.collection('files');
  }

  async create(input: FileCreate): Promise<FileRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a file must be an object');
    const file = buildFile(input, this.#ctx.now());
    const seq = await this.#ctx.reserveSeq('files', 1);
    try {
      await this.#files.insertOne({ _id: file.id as never, userId: file.userId, flowId: file.flowId, createdAt: file.createdAt, seq, body: file });
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('file', 'id', file.id);
      throw error;
    }
    return file;
  }

  async get(id: string): Promise<FileRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#files.findOne({ _id: id as never });
    return doc ? (doc.body as FileRecord) : null;
  }

  async list(query: FileQuery, paging: PageRequest): Promise<Page<FileRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const filter: Document = {};
    if (query.userId !== undefined) filter.userId = query.userId;
    if (query.flowId !== undefined) filter.flowId = query.flowId;
    const [total, docs] = await Promise.all([
      this.#files.countDocuments(filter),
      this.#files.find(filter).sort({ createdAt: -1, seq: -1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => d.body as FileRecord), total, paging);
  }

  async update(id: string, patch: Partial<Pick<FileRecord, 'name' | 'path' | 'size' | 'mimeType' | 'sha256' | 'flowId'>>): Promise<FileRecord> {
    this.#ctx.ensureOpen();
    const current = await this.get(id);
    if (!current) throw StorageErrors.notFound('file', id);
    const merged = { ...current };
    for (const key of ['name', 'path', 'size', 'mimeType', 'sha256', 'flowId'] as const) if (patch[key] !== undefined) (merged as Record<string, unknown>)[key] = patch[key];
    const next: FileRecord = { ...buildFile(merged, current.createdAt), id: current.id, userId: current.userId, createdAt: current.createdAt, updatedAt: Math.max(this.#ctx.now(), current.updatedAt) };
    await this.#files.updateOne({ _id: id as never }, { $set: { flowId: next.flowId, body: next } });
    return next;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#files.deleteOne({ _id: id as never })).deletedCount > 0;
  }
}
