import { WiflowError, type FlowPatch, type FlowRecord, type Principal } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { mergeFlowSecrets, redactFlowSecrets, validateFlowData } from './flow-data.js';
import { flowFieldsOfBody, toFlowHeader, toFlowRead, type FlowCreateBody, type FlowUpdateBody } from './flow-model.js';

/** Flows: create with unique names, update with revision checks, read with validity. */
export class FlowService {
  constructor(private readonly studio: StudioContext) {}

  /** FlowRead of a record: secrets masked, validity from the compiler. */
  read(flow: FlowRecord): Record<string, unknown> {
    const flows = this.studio.flows;
    return toFlowRead(flow, redactFlowSecrets(flows, flow.data, 'mask'), validateFlowData(flows, flow.data));
  }

  /** FlowHeader of a record. */
  header(flow: FlowRecord): Record<string, unknown> {
    return toFlowHeader(flow, redactFlowSecrets(this.studio.flows, flow.data, 'mask'));
  }

  /** Every flow of a user matching a query (all pages). */
  async listAll(userId: string, query: { folderId?: string | null; isComponent?: boolean; mcpEnabled?: boolean; includeData?: boolean } = {}): Promise<FlowRecord[]> {
    const out: FlowRecord[] = [];
    for (let page = 1; ; page++) {
      const result = await this.studio.storage.flows.list({ userId, ...query }, { page, perPage: 500 });
      out.push(...result.items);
      if (!result.hasNext) return out;
    }
  }

  /** A free name: the wanted one, or "name (n)" like Langflow. */
  async uniqueName(userId: string, wanted: string): Promise<string> {
    const flows = this.studio.storage.flows;
    if (!(await flows.getByName(userId, wanted))) return wanted;
    const base = wanted.replace(/ \(\d+\)$/, '');
    for (let n = 1; ; n++) {
      const candidate = `${base} (${n})`;
      if (!(await flows.getByName(userId, candidate))) return candidate;
    }
  }

  /** A free endpoint name: the wanted one, or "name-n". */
  async uniqueEndpointName(userId: string, wanted: string): Promise<string> {
    const flows = this.studio.storage.flows;
    if (!(await flows.getByEndpointName(userId, wanted))) return wanted;
    const base = wanted.replace(/-\d+$/, '');
    for (let n = 1; ; n++) {
      const candidate = `${base}-${n}`;
      if (!(await flows.getByEndpointName(userId, candidate))) return candidate;
    }
  }

  /** The project a new flow goes to: the given one (owned) or the user's default project. */
  async targetProject(userId: string, folderId: string | null | undefined): Promise<string> {
    if (folderId) return (await this.studio.ownedProject(userId, folderId)).id;
    return (await this.studio.defaultProject(userId)).id;
  }

  /**
   * Create a flow owned by the caller. Taken names and endpoint names get a suffix
   * (Langflow's behaviour for imports and copies); drafts with problems are stored as they are.
   */
  async create(principal: Principal, body: FlowCreateBody, options: { folderId?: string | null; keepId?: boolean } = {}): Promise<FlowRecord> {
    const userId = principal.userId;
    const storage = this.studio.storage;
    if (body.id && options.keepId !== false) {
      const existing = await storage.flows.get(body.id);
      if (existing) throw existing.userId === userId ? StudioErrors.nameTaken('Flow id', body.id) : StudioErrors.flowNotFound(body.id);
    }
    const folderId = await this.targetProject(userId, options.folderId !== undefined ? options.folderId : body.folder_id);
    const name = await this.uniqueName(userId, body.name);
    const endpointName = body.endpoint_name ? await this.uniqueEndpointName(userId, body.endpoint_name) : null;
    const flow = await storage.flows.create(
      {
        ...(body.id && options.keepId !== false ? { id: body.id } : {}),
        userId,
        ...flowFieldsOfBody(body),
        name,
        data: body.data ?? null,
        accessType: body.access_type ?? 'PRIVATE',
        endpointName,
        folderId,
      },
      { author: userId, message: 'created' },
    );
    this.studio.projectsChanged(flow.folderId);
    return flow;
  }

  /**
   * Apply a FlowUpdate. `baseRevision` (If-Match) makes the update fail with 409 when the
   * flow was saved since; taken names and endpoint names are 409 too.
   */
  async update(principal: Principal, flow: FlowRecord, body: FlowUpdateBody, baseRevision?: number): Promise<FlowRecord> {
    const patch: FlowPatch = {};
    if (body.name != null) patch.name = body.name;
    if (body.description !== undefined) patch.description = body.description;
    if (body.data !== undefined) patch.data = mergeFlowSecrets(this.studio.flows, body.data, flow.data);
    if (body.access_type != null) patch.accessType = body.access_type;
    if (body.action_name !== undefined) patch.actionName = body.action_name;
    if (body.action_description !== undefined) patch.actionDescription = body.action_description;
    if (body.endpoint_name !== undefined) patch.endpointName = body.endpoint_name;
    if (body.folder_id !== undefined) patch.folderId = body.folder_id ? (await this.studio.ownedProject(principal.userId, body.folder_id)).id : (await this.studio.defaultProject(principal.userId)).id;
    if (body.fs_path !== undefined) patch.fsPath = body.fs_path;
    if (body.locked != null) patch.locked = body.locked;
    if (body.mcp_enabled != null) patch.mcpEnabled = body.mcp_enabled;
    return this.applyPatch(principal, flow, patch, baseRevision, 'updated');
  }

  /** Write a patch with the storage's optimistic concurrency, mapping its errors to the API's. */
  async applyPatch(principal: Principal, flow: FlowRecord, patch: FlowPatch, baseRevision: number | undefined, message: string): Promise<FlowRecord> {
    const userId = principal.userId;
    const flows = this.studio.storage.flows;
    if (patch.name !== undefined && patch.name !== flow.name) {
      const other = await flows.getByName(userId, patch.name);
      if (other && other.id !== flow.id) throw StudioErrors.nameTaken('Flow name', patch.name);
    }
    if (patch.endpointName && patch.endpointName !== flow.endpointName) {
      const other = await flows.getByEndpointName(userId, patch.endpointName);
      if (other && other.id !== flow.id) throw StudioErrors.nameTaken('Endpoint name', patch.endpointName);
    }
    if (baseRevision !== undefined && baseRevision !== flow.revision) throw staleError(flow, baseRevision);
    try {
      const updated = await flows.update(flow.id, patch, { expectedRevision: baseRevision ?? flow.revision, author: userId, message });
      this.studio.projectsChanged(flow.folderId, updated.folderId);
      return updated;
    } catch (error) {
      if (error instanceof WiflowError && error.code === 'WIFLOW_STORAGE_CONFLICT') {
        const current = await flows.get(flow.id);
        throw staleError(current ?? flow, baseRevision ?? flow.revision);
      }
      throw error;
    }
  }

  /** Delete flows the user owns; returns how many were deleted. */
  async delete(userId: string, ids: string[]): Promise<number> {
    let deleted = 0;
    const projects: (string | null)[] = [];
    for (const id of ids) {
      const flow = await this.studio.storage.flows.get(id);
      if (!flow || flow.userId !== userId) continue;
      if (await this.studio.storage.flows.delete(id)) {
        deleted++;
        projects.push(flow.folderId);
        this.studio.flowEvents.forget(id);
      }
    }
    this.studio.projectsChanged(...projects);
    return deleted;
  }
}

function staleError(flow: FlowRecord, based: number): WiflowError {
  const error = StudioErrors.staleRevision(flow.id, based, flow.revision);
  Object.assign(error, { details: { current_revision: flow.revision, based_on_revision: based } });
  return error;
}
