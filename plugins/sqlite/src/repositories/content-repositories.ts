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
import type { SqliteContext } from '../context.js';
import { SqlWhere } from '../sql-where.js';

/** Chat/run messages. */
export class SqliteMessageRepository implements MessageRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async append(input: MessageCreate): Promise<MessageRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a message must be an object');
    const message = buildMessage(input, this.#ctx.now());
    try {
      this.#write(message, 'INSERT');
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('message', 'id', message.id);
      throw error;
    }
    return message;
  }

  async get(id: string): Promise<MessageRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM messages WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? this.#ctx.openBody<MessageRecord>(row.body) : null;
  }

  async find(query: MessageQuery, paging: PageRequest): Promise<Page<MessageRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    checkTimeRange(query);
    const order = query.order === 'desc' ? 'DESC' : 'ASC';
    const where = new SqlWhere().range('ts', query);
    if (query.flowId !== undefined) where.add('flow_id = ?', query.flowId);
    if (query.sessionId !== undefined) where.add('session_id = ?', query.sessionId);
    if (query.sender !== undefined) where.add('sender = ?', query.sender);
    if (query.senderName !== undefined) where.add('sender_name = ?', query.senderName);
    const total = (this.#ctx.db.prepare(`SELECT COUNT(*) AS n FROM messages ${where.sql}`).get(...where.params) as { n: number }).n;
    const rows = this.#ctx.db.prepare(`SELECT body FROM messages ${where.sql} ORDER BY ts ${order}, seq ${order} LIMIT ? OFFSET ?`).all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => this.#ctx.openBody<MessageRecord>(r.body)), total, paging);
  }

  async update(id: string, patch: Partial<Omit<MessageRecord, 'id'>>): Promise<MessageRecord> {
    this.#ctx.ensureOpen();
    let next: MessageRecord | undefined;
    this.#ctx.db.transaction(() => {
      const current = this.#ctx.db.prepare('SELECT body FROM messages WHERE id = ?').get(id) as { body: string } | undefined;
      if (!current) throw StorageErrors.notFound('message', id);
      const merged: MessageRecord = { ...this.#ctx.openBody<MessageRecord>(current.body) };
      for (const [key, value] of Object.entries(patch)) if (value !== undefined && key !== 'id') (merged as unknown as Record<string, unknown>)[key] = value;
      next = buildMessage(merged, merged.timestamp);
      this.#write(next, 'UPDATE');
    })();
    return next!;
  }

  async delete(ids: string[]): Promise<number> {
    this.#ctx.ensureOpen();
    let count = 0;
    const statement = this.#ctx.db.prepare('DELETE FROM messages WHERE id = ?');
    this.#ctx.db.transaction(() => {
      for (const id of ids) count += statement.run(id).changes;
    })();
    return count;
  }

  async deleteSession(sessionId: string): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM messages WHERE session_id = ?').run(sessionId).changes;
  }

  async sessions(flowId?: string): Promise<string[]> {
    this.#ctx.ensureOpen();
    const rows = (flowId === undefined
      ? this.#ctx.db.prepare('SELECT session_id, MAX(ts) AS last FROM messages GROUP BY session_id ORDER BY last DESC, session_id').all()
      : this.#ctx.db.prepare('SELECT session_id, MAX(ts) AS last FROM messages WHERE flow_id = ? GROUP BY session_id ORDER BY last DESC, session_id').all(flowId)) as { session_id: string }[];
    return rows.map((r) => r.session_id);
  }

  #write(message: MessageRecord, mode: 'INSERT' | 'UPDATE'): void {
    const values = [message.flowId, message.sessionId, message.sender, message.senderName, message.timestamp, this.#ctx.sealBody(message)];
    if (mode === 'INSERT') this.#ctx.db.prepare('INSERT INTO messages (id, flow_id, session_id, sender, sender_name, ts, body) VALUES (?, ?, ?, ?, ?, ?, ?)').run(message.id, ...values);
    else this.#ctx.db.prepare('UPDATE messages SET flow_id = ?, session_id = ?, sender = ?, sender_name = ?, ts = ?, body = ? WHERE id = ?').run(...values, message.id);
  }
}

/** Uploaded file metadata. */
export class SqliteFileRepository implements FileRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async create(input: FileCreate): Promise<FileRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a file must be an object');
    const file = buildFile(input, this.#ctx.now());
    try {
      this.#ctx.db.prepare('INSERT INTO files (id, user_id, flow_id, created_at, body) VALUES (?, ?, ?, ?, ?)').run(file.id, file.userId, file.flowId, file.createdAt, JSON.stringify(file));
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('file', 'id', file.id);
      throw error;
    }
    return file;
  }

  async get(id: string): Promise<FileRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM files WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as FileRecord) : null;
  }

  async list(query: FileQuery, paging: PageRequest): Promise<Page<FileRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const where = new SqlWhere();
    if (query.userId === null) where.add('user_id IS NULL');
    else if (query.userId !== undefined) where.add('user_id = ?', query.userId);
    if (query.flowId === null) where.add('flow_id IS NULL');
    else if (query.flowId !== undefined) where.add('flow_id = ?', query.flowId);
    const total = (this.#ctx.db.prepare(`SELECT COUNT(*) AS n FROM files ${where.sql}`).get(...where.params) as { n: number }).n;
    const rows = this.#ctx.db.prepare(`SELECT body FROM files ${where.sql} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`).all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => JSON.parse(r.body) as FileRecord), total, paging);
  }

  async update(id: string, patch: Partial<Pick<FileRecord, 'name' | 'path' | 'size' | 'mimeType' | 'sha256' | 'flowId'>>): Promise<FileRecord> {
    this.#ctx.ensureOpen();
    let next: FileRecord | undefined;
    this.#ctx.db.transaction(() => {
      const row = this.#ctx.db.prepare('SELECT body FROM files WHERE id = ?').get(id) as { body: string } | undefined;
      if (!row) throw StorageErrors.notFound('file', id);
      const current = JSON.parse(row.body) as FileRecord;
      const merged = { ...current };
      for (const key of ['name', 'path', 'size', 'mimeType', 'sha256', 'flowId'] as const) if (patch[key] !== undefined) (merged as Record<string, unknown>)[key] = patch[key];
      next = { ...buildFile(merged, current.createdAt), id: current.id, userId: current.userId, createdAt: current.createdAt, updatedAt: Math.max(this.#ctx.now(), current.updatedAt) };
      this.#ctx.db.prepare('UPDATE files SET flow_id = ?, body = ? WHERE id = ?').run(next.flowId, JSON.stringify(next), id);
    })();
    return next!;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM files WHERE id = ?').run(id).changes > 0;
  }
}
