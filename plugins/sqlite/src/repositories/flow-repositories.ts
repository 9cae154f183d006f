import {
  StorageErrors,
  type FlowCreate,
  type FlowPatch,
  type FlowQuery,
  type FlowRecord,
  type FlowRepository,
  type FlowRevision,
  type FlowUpdateOptions,
  type Page,
  type PageRequest,
  type ProjectCreate,
  type ProjectFields,
  type ProjectQuery,
  type ProjectRecord,
  type ProjectRepository,
  type RevisionRepository,
} from '@wiflow/core';
import {
  buildFlow,
  buildProject,
  checkPageRequest,
  makePage,
  patchFlow,
  patchProject,
} from '@wiflow/storage-kit';
import type { SqliteContext } from '../context.js';
import { userKey } from '../context.js';
import { SqlWhere } from '../sql-where.js';

/** Map a UNIQUE constraint failure to StorageErrors.duplicate; rethrow anything else. */
function rethrowUnique(error: unknown, what: string, fields: { id?: string; name?: string | null; endpointName?: string | null }): never {
  const message = error instanceof Error ? error.message : '';
  if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
    if (message.includes('.endpoint_name')) throw StorageErrors.duplicate(what, 'endpoint name', String(fields.endpointName));
    if (message.includes('.name')) throw StorageErrors.duplicate(what, 'name', String(fields.name));
    if (message.includes('.id')) throw StorageErrors.duplicate(what, 'id', String(fields.id));
    throw StorageErrors.duplicate(what, 'key', message);
  }
  throw error;
}

/** Flows and their revisions (one transaction per change). */
export class SqliteFlowRepository implements FlowRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async create(input: FlowCreate, options: { author?: string | null; message?: string | null } = {}): Promise<FlowRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a flow must be an object');
    const flow = buildFlow(input, this.#ctx.now());
    try {
      this.#ctx.db.transaction(() => {
        this.#ctx.db
          .prepare('INSERT INTO flows (id, user_key, name, endpoint_name, folder_id, is_component, mcp_enabled, access_type, updated_at, revision, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
          .run(...this.#columns(flow));
        this.#saveRevision(flow, options.author ?? null, options.message ?? null);
      })();
    } catch (error) {
      rethrowUnique(error, 'flow', flow);
    }
    return flow;
  }

  async get(id: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM flows WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? this.#ctx.openFlow(row.body) : null;
  }

  async getByName(userId: string | null, name: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM flows WHERE user_key = ? AND name = ?').get(userKey(userId), name) as { body: string } | undefined;
    return row ? this.#ctx.openFlow(row.body) : null;
  }

  async getByEndpointName(userId: string | null, endpointName: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM flows WHERE user_key = ? AND endpoint_name = ?').get(userKey(userId), endpointName) as { body: string } | undefined;
    return row ? this.#ctx.openFlow(row.body) : null;
  }

  async list(query: FlowQuery, paging: PageRequest): Promise<Page<FlowRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const where = new SqlWhere();
    if (query.userId !== undefined) where.add('user_key = ?', userKey(query.userId));
    if (query.folderId === null) where.add('folder_id IS NULL');
    else if (query.folderId !== undefined) where.add('folder_id = ?', query.folderId);
    if (query.isComponent !== undefined) where.add('is_component = ?', query.isComponent ? 1 : 0);
    if (query.mcpEnabled !== undefined) where.add('mcp_enabled = ?', query.mcpEnabled ? 1 : 0);
    if (query.accessType !== undefined) where.add('access_type = ?', query.accessType);
    if (query.search) where.add("instr(lower(name), lower(?)) > 0", query.search);
    const total = (this.#ctx.db.prepare(`SELECT COUNT(*) AS n FROM flows ${where.sql}`).get(...where.params) as { n: number }).n;
    const rows = this.#ctx.db
      .prepare(`SELECT body FROM flows ${where.sql} ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`)
      .all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    const items = rows.map((r) => this.#ctx.openFlow(r.body));
    if (query.includeData === false) for (const item of items) item.data = null;
    return makePage(items, total, paging);
  }

  async update(id: string, patch: FlowPatch, options: FlowUpdateOptions = {}): Promise<FlowRecord> {
    this.#ctx.ensureOpen();
    if (typeof patch !== 'object' || patch === null) throw StorageErrors.invalid('a flow patch must be an object');
    const db = this.#ctx.db;
    let next: FlowRecord | undefined;
    try {
      db.transaction(() => {
        const row = db.prepare('SELECT body FROM flows WHERE id = ?').get(id) as { body: string } | undefined;
        if (!row) throw StorageErrors.notFound('flow', id);
        const current = this.#ctx.openFlow(row.body);
        if (options.expectedRevision !== undefined && options.expectedRevision !== current.revision) throw StorageErrors.conflict(`flow ${id}`, options.expectedRevision, current.revision);
        next = patchFlow(current, patch, this.#ctx.now());
        const [, ...columns] = this.#columns(next);
        db.prepare('UPDATE flows SET user_key = ?, name = ?, endpoint_name = ?, folder_id = ?, is_component = ?, mcp_enabled = ?, access_type = ?, updated_at = ?, revision = ?, body = ? WHERE id = ?').run(...columns, id);
        this.#saveRevision(next, options.author ?? null, options.message ?? null);
      }).immediate();
    } catch (error) {
      rethrowUnique(error, 'flow', { ...patch, id });
    }
    return next!;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    let deleted = false;
    this.#ctx.db.transaction(() => {
      deleted = this.#ctx.db.prepare('DELETE FROM flows WHERE id = ?').run(id).changes > 0;
      this.#ctx.db.prepare('DELETE FROM flow_revisions WHERE flow_id = ?').run(id);
    })();
    return deleted;
  }

  #columns(flow: FlowRecord): unknown[] {
    return [flow.id, userKey(flow.userId), flow.name, flow.endpointName, flow.folderId, flow.isComponent ? 1 : 0, flow.mcpEnabled ? 1 : 0, flow.accessType, flow.updatedAt, flow.revision, this.#ctx.sealFlow(flow)];
  }

  #saveRevision(flow: FlowRecord, author: string | null, message: string | null): void {
    this.#ctx.db.prepare('INSERT INTO flow_revisions (flow_id, revision, created_at, author, message, body) VALUES (?, ?, ?, ?, ?, ?)').run(flow.id, flow.revision, flow.updatedAt, author, message, this.#ctx.sealFlow(flow));
  }
}

type RevisionRow = { flow_id: string; revision: number; created_at: number; author: string | null; message: string | null; body: string };

/** Saved flow versions. */
export class SqliteRevisionRepository implements RevisionRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async list(flowId: string, paging: PageRequest): Promise<Page<FlowRevision>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const total = (this.#ctx.db.prepare('SELECT COUNT(*) AS n FROM flow_revisions WHERE flow_id = ?').get(flowId) as { n: number }).n;
    const rows = this.#ctx.db.prepare('SELECT * FROM flow_revisions WHERE flow_id = ? ORDER BY revision DESC LIMIT ? OFFSET ?').all(flowId, paging.perPage, (paging.page - 1) * paging.perPage) as RevisionRow[];
    return makePage(rows.map((r) => this.#decode(r)), total, paging);
  }

  async get(flowId: string, revision: number): Promise<FlowRevision | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT * FROM flow_revisions WHERE flow_id = ? AND revision = ?').get(flowId, revision) as RevisionRow | undefined;
    return row ? this.#decode(row) : null;
  }

  #decode(row: RevisionRow): FlowRevision {
    return { flowId: row.flow_id, revision: row.revision, createdAt: row.created_at, author: row.author, message: row.message, flow: this.#ctx.openFlow(row.body) };
  }
}

/** Projects (folders). */
export class SqliteProjectRepository implements ProjectRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async create(input: ProjectCreate): Promise<ProjectRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a project must be an object');
    const project = buildProject(input, this.#ctx.now());
    try {
      this.#ctx.db.prepare('INSERT INTO projects (id, user_key, parent_id, name, created_at, body) VALUES (?, ?, ?, ?, ?, ?)').run(project.id, userKey(project.userId), project.parentId, project.name, project.createdAt, this.#ctx.sealBody(project));
    } catch (error) {
      rethrowUnique(error, 'project', project);
    }
    return project;
  }

  async get(id: string): Promise<ProjectRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM projects WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? this.#ctx.openBody<ProjectRecord>(row.body) : null;
  }

  async getByName(userId: string | null, name: string): Promise<ProjectRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM projects WHERE user_key = ? AND name = ?').get(userKey(userId), name) as { body: string } | undefined;
    return row ? this.#ctx.openBody<ProjectRecord>(row.body) : null;
  }

  async list(query: ProjectQuery, paging: PageRequest): Promise<Page<ProjectRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const where = new SqlWhere();
    if (query.userId !== undefined) where.add('user_key = ?', userKey(query.userId));
    if (query.parentId === null) where.add('parent_id IS NULL');
    else if (query.parentId !== undefined) where.add('parent_id = ?', query.parentId);
    const total = (this.#ctx.db.prepare(`SELECT COUNT(*) AS n FROM projects ${where.sql}`).get(...where.params) as { n: number }).n;
    const rows = this.#ctx.db.prepare(`SELECT body FROM projects ${where.sql} ORDER BY name, id LIMIT ? OFFSET ?`).all(...where.params, paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => this.#ctx.openBody<ProjectRecord>(r.body)), total, paging);
  }

  async update(id: string, patch: Partial<ProjectFields>): Promise<ProjectRecord> {
    this.#ctx.ensureOpen();
    const db = this.#ctx.db;
    let next: ProjectRecord | undefined;
    try {
      db.transaction(() => {
        const row = db.prepare('SELECT body FROM projects WHERE id = ?').get(id) as { body: string } | undefined;
        if (!row) throw StorageErrors.notFound('project', id);
        next = patchProject(this.#ctx.openBody<ProjectRecord>(row.body), patch, this.#ctx.now());
        db.prepare('UPDATE projects SET parent_id = ?, name = ?, body = ? WHERE id = ?').run(next.parentId, next.name, this.#ctx.sealBody(next), id);
      }).immediate();
    } catch (error) {
      rethrowUnique(error, 'project', { ...patch, id });
    }
    return next!;
  }

  async delete(id: string, options: { flows?: 'delete' | 'detach' } = {}): Promise<boolean> {
    this.#ctx.ensureOpen();
    const db = this.#ctx.db;
    let deleted = false;
    db.transaction(() => {
      deleted = db.prepare('DELETE FROM projects WHERE id = ?').run(id).changes > 0;
      if (!deleted) return;
      const flows = db.prepare('SELECT id, body FROM flows WHERE folder_id = ?').all(id) as { id: string; body: string }[];
      for (const flow of flows) {
        if (options.flows === 'delete') {
          db.prepare('DELETE FROM flows WHERE id = ?').run(flow.id);
          db.prepare('DELETE FROM flow_revisions WHERE flow_id = ?').run(flow.id);
        } else {
          const record = { ...this.#ctx.openFlow(flow.body), folderId: null };
          db.prepare('UPDATE flows SET folder_id = NULL, body = ? WHERE id = ?').run(this.#ctx.sealFlow(record), flow.id);
        }
      }
    })();
    return deleted;
  }
}
