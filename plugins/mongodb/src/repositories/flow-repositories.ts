import type { Document } from 'mongodb';
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
import { duplicateKeyFields, userKey, type MongoContext } from '../context.js';

function rethrowDuplicate(error: unknown, what: string, fields: { id?: string; name?: string | null; endpointName?: string | null }): never {
  const keys = duplicateKeyFields(error);
  if (!keys) throw error;
  if (keys.includes('endpointName')) throw StorageErrors.duplicate(what, 'endpoint name', String(fields.endpointName));
  if (keys.includes('name')) throw StorageErrors.duplicate(what, 'name', String(fields.name));
  throw StorageErrors.duplicate(what, 'id', String(fields.id));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Flows (collection `flows`) and their revisions (`flow_revisions`). */
export class MongoFlowRepository implements FlowRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #flows() {
    return this.#ctx.db.collection('flows');
  }

  async create(input: FlowCreate, options: { author?: string | null; message?: string | null } = {}): Promise<FlowRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a flow must be an object');
    const flow = buildFlow(input, this.#ctx.now());
    try {
      await this.#flows.insertOne(this.#doc(flow));
    } catch (error) {
      rethrowDuplicate(error, 'flow', flow);
    }
    await this.#saveRevision(flow, options.author ?? null, options.message ?? null);
    return flow;
  }

  async get(id: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#flows.findOne({ _id: id as never });
    return doc ? this.#ctx.openBody<FlowRecord>(doc.body) : null;
  }

  async getByName(userId: string | null, name: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#flows.findOne({ userKey: userKey(userId), name });
    return doc ? this.#ctx.openBody<FlowRecord>(doc.body) : null;
  }

  async getByEndpointName(userId: string | null, endpointName: string): Promise<FlowRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#flows.findOne({ userKey: userKey(userId), endpointName });
    return doc ? this.#ctx.openBody<FlowRecord>(doc.body) : null;
  }

  async list(query: FlowQuery, paging: PageRequest): Promise<Page<FlowRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const filter: Document = {};
    if (query.userId !== undefined) filter.userKey = userKey(query.userId);
    if (query.folderId !== undefined) filter.folderId = query.folderId;
    if (query.isComponent !== undefined) filter.isComponent = query.isComponent;
    if (query.mcpEnabled !== undefined) filter.mcpEnabled = query.mcpEnabled;
    if (query.accessType !== undefined) filter.accessType = query.accessType;
    if (query.search) filter.name = { $regex: escapeRegex(query.search), $options: 'i' };
    const [total, docs] = await Promise.all([
      this.#flows.countDocuments(filter),
      this.#flows.find(filter).sort({ updatedAt: -1, _id: 1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    const items = docs.map((d) => this.#ctx.openBody<FlowRecord>(d.body));
    if (query.includeData === false) for (const item of items) item.data = null;
    return makePage(items, total, paging);
  }

  async update(id: string, patch: FlowPatch, options: FlowUpdateOptions = {}): Promise<FlowRecord> {
    this.#ctx.ensureOpen();
    if (typeof patch !== 'object' || patch === null) throw StorageErrors.invalid('a flow patch must be an object');
    // Compare-and-set on the revision: retried when someone else wrote in between, unless the caller pinned a revision.
    for (let attempt = 0; attempt < 20; attempt++) {
      const doc = await this.#flows.findOne({ _id: id as never });
      if (!doc) throw StorageErrors.notFound('flow', id);
      const current = this.#ctx.openBody<FlowRecord>(doc.body);
      if (options.expectedRevision !== undefined && options.expectedRevision !== current.revision) throw StorageErrors.conflict(`flow ${id}`, options.expectedRevision, current.revision);
      const next = patchFlow(current, patch, this.#ctx.now());
      let result;
      try {
        const { _id, ...fields } = this.#doc(next);
        result = await this.#flows.updateOne({ _id: id as never, revision: current.revision }, { $set: fields });
      } catch (error) {
        rethrowDuplicate(error, 'flow', { ...patch, id });
      }
      if (result.matchedCount === 1) {
        await this.#saveRevision(next, options.author ?? null, options.message ?? null);
        return next;
      }
    }
    throw StorageErrors.backend('mongodb', `flow ${id} kept changing; update gave up`);
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    const result = await this.#flows.deleteOne({ _id: id as never });
    await this.#ctx.db.collection('flow_revisions').deleteMany({ flowId: id });
    return result.deletedCount > 0;
  }

  #doc(flow: FlowRecord): Document {
    return {
      _id: flow.id,
      userKey: userKey(flow.userId),
      name: flow.name,
      endpointName: flow.endpointName,
      folderId: flow.folderId,
      isComponent: flow.isComponent,
      mcpEnabled: flow.mcpEnabled,
      accessType: flow.accessType,
      updatedAt: flow.updatedAt,
      revision: flow.revision,
      body: this.#ctx.sealBody(flow),
    };
  }

  async #saveRevision(flow: FlowRecord, author: string | null, message: string | null): Promise<void> {
    await this.#ctx.db
      .collection('flow_revisions')
      .replaceOne({ _id: `${flow.id}:${flow.revision}` as never }, { flowId: flow.id, revision: flow.revision, createdAt: flow.updatedAt, author, message, body: this.#ctx.sealBody(flow) }, { upsert: true });
  }
}

/** Saved flow versions. */
export class MongoRevisionRepository implements RevisionRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  async list(flowId: string, paging: PageRequest): Promise<Page<FlowRevision>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const revisions = this.#ctx.db.collection('flow_revisions');
    const [total, docs] = await Promise.all([
      revisions.countDocuments({ flowId }),
      revisions.find({ flowId }).sort({ revision: -1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => this.#decode(d)), total, paging);
  }

  async get(flowId: string, revision: number): Promise<FlowRevision | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#ctx.db.collection('flow_revisions').findOne({ flowId, revision });
    return doc ? this.#decode(doc) : null;
  }

  #decode(doc: Document): FlowRevision {
    return { flowId: doc.flowId as string, revision: doc.revision as number, createdAt: doc.createdAt as number, author: doc.author ?? null, message: doc.message ?? null, flow: this.#ctx.openBody<FlowRecord>(doc.body) };
  }
}

/** Projects (collection `projects`). */
export class MongoProjectRepository implements ProjectRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #projects() {
    return this.#ctx.db.collection('projects');
  }

  async create(input: ProjectCreate): Promise<ProjectRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('a project must be an object');
    const project = buildProject(input, this.#ctx.now());
    try {
      await this.#projects.insertOne(this.#doc(project));
    } catch (error) {
      rethrowDuplicate(error, 'project', project);
    }
    return project;
  }

  async get(id: string): Promise<ProjectRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#projects.findOne({ _id: id as never });
    return doc ? this.#ctx.openBody<ProjectRecord>(doc.body) : null;
  }

  async getByName(userId: string | null, name: string): Promise<ProjectRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#projects.findOne({ userKey: userKey(userId), name });
    return doc ? this.#ctx.openBody<ProjectRecord>(doc.body) : null;
  }

  async list(query: ProjectQuery, paging: PageRequest): Promise<Page<ProjectRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const filter: Document = {};
    if (query.userId !== undefined) filter.userKey = userKey(query.userId);
    if (query.parentId !== undefined) filter.parentId = query.parentId;
    const [total, docs] = await Promise.all([
      this.#projects.countDocuments(filter),
      this.#projects.find(filter).sort({ name: 1, _id: 1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => this.#ctx.openBody<ProjectRecord>(d.body)), total, paging);
  }

  async update(id: string, patch: Partial<ProjectFields>): Promise<ProjectRecord> {
    this.#ctx.ensureOpen();
    const doc = await this.#projects.findOne({ _id: id as never });
    if (!doc) throw StorageErrors.notFound('project', id);
    const next = patchProject(this.#ctx.openBody<ProjectRecord>(doc.body), patch, this.#ctx.now());
    try {
      const { _id, ...fields } = this.#doc(next);
      await this.#projects.updateOne({ _id: id as never }, { $set: fields });
    } catch (error) {
      rethrowDuplicate(error, 'project', { ...patch, id });
    }
    return next;
  }

  async delete(id: string, options: { flows?: 'delete' | 'detach' } = {}): Promise<boolean> {
    this.#ctx.ensureOpen();
    const result = await this.#projects.deleteOne({ _id: id as never });
    if (result.deletedCount === 0) return false;
    const flows = this.#ctx.db.collection('flows');
    const docs = await flows.find({ folderId: id }).toArray();
    for (const doc of docs) {
      if (options.flows === 'delete') {
        await flows.deleteOne({ _id: doc._id });
        await this.#ctx.db.collection('flow_revisions').deleteMany({ flowId: doc._id as unknown as string });
      } else {
        const record = { ...this.#ctx.openBody<FlowRecord>(doc.body), folderId: null };
        await flows.updateOne({ _id: doc._id }, { $set: { folderId: null, body: this.#ctx.sealBody(record) } });
      }
    }
    return true;
  }

  #doc(project: ProjectRecord): Document {
    return { _id: project.id, userKey: userKey(project.userId), parentId: project.parentId, name: project.name, createdAt: project.createdAt, body: this.#ctx.sealBody(project) };
  }
}
