import { param } from '../http/params.js';
import type { Request, Router } from 'express';
import { defineRoute } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { writesNeedOperator } from '../http/roles.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import { JsonObject, flowServiceRouter, type FlowServiceRoute } from '../http/route-kit.js';
import { singleFile } from '../files/upload.js';
import { redactFlowSecrets } from './flow-data.js';
import { FLOW_EVENT_TYPES } from './flow-events.js';
import { readFlowImport, makeZip, zipEntryName } from './flow-import.js';
import { flowFieldsOfBody, FlowCreateSchema, FlowIdListSchema, FlowListCreateSchema, FlowUpdateSchema, toFlowExport, toPage } from './flow-model.js';
import type { FlowService } from './flow-service.js';

const boolParam = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1');

const ListQuery = z.object({
  remove_example_flows: boolParam.optional(),
  components_only: boolParam.optional(),
  get_all: boolParam.default(true),
  folder_id: z.guid().optional(),
  header_flows: boolParam.default(false),
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(500).default(50),
});

const RevisionQuery = z.object({ page: z.coerce.number().int().min(1).default(1), size: z.coerce.number().int().min(1).max(500).default(50) });

/** FlowEventCreate: type required, summary at most 500 characters (default ''). */
export const FlowEventCreateSchema = z.object({ type: z.enum(FLOW_EVENT_TYPES), summary: z.string().max(500).default('') });

/** The revision a PATCH is based on: `If-Match: "3"` (or W/"3") or `?revision=3`. */
export function baseRevisionOf(req: Request): number | undefined {
  const header = req.get('if-match');
  const raw = header ? header.replace(/^W\//, '').replace(/"/g, '').trim() : typeof req.query.revision === 'string' ? req.query.revision : undefined;
  if (raw === undefined || raw === '' || raw === '*') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw StudioErrors.invalidBody(`If-Match / revision must be a positive integer revision, got ${raw}`);
  return n;
}

/** Viewers are read-only: the 403 every write of this router answers them. */
const WRITE = 'change anything (viewers are read-only)';
const FlowId = z.object({ id: z.string() });
const RevisionId = z.object({ id: z.string(), revision: z.string() });
const EventsQuery = z.object({ since: z.coerce.number().min(0).default(0) });
const Deleted = z.object({ deleted: z.number() });

/** `/api/v1/flows`: CRUD, batch, upload/download, delete many, revisions, flow events, public flows. */
export function flowRoutes(studio: StudioContext, flows: FlowService): Router {
  const routes: FlowServiceRoute[] = [
    defineRoute({
      method: 'get',
      path: '/public_flow/{id}',
      summary: 'A public flow, to anyone',
      tags: ['flows'],
      spec: true,
      access: 'public',
      params: FlowId,
      success: { status: 200, description: 'FlowRead', A: JsonObject, B: JsonObject },
      errors: [404],
      async handler({ params }) {
        const flow = await studio.storage.flows.get(params.id).catch(() => null);
        if (!flow || flow.accessType !== 'PUBLIC') throw StudioErrors.flowNotFound(params.id);
        return { body: flows.read(flow) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/',
      summary: 'Create a flow',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      body: FlowCreateSchema,
      success: { status: 201, description: 'FlowRead', A: JsonObject, B: JsonObject },
      errors: [404, 409, 413, 422],
      async handler({ body, principal }) {
        const flow = await flows.create(principal!, body as z.output<typeof FlowCreateSchema>);
        return { body: flows.read(flow) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/',
      summary: "The caller's flows (all, headers only, or a page)",
      tags: ['flows'],
      spec: true,
      access: 'viewer',
      query: ListQuery,
      success: { status: 200, description: 'FlowRead list, FlowHeader list or a page', A: z.unknown(), B: z.unknown() },
      errors: [422],
      async handler({ query, principal }) {
        const q = query as z.output<typeof ListQuery>;
        const userId = principal!.userId;
        const filter = { folderId: q.folder_id, ...(q.components_only ? { isComponent: true } : {}) };
        if (q.header_flows) return { body: (await flows.listAll(userId, filter)).map((f) => flows.header(f)) };
        if (q.get_all) return { body: (await flows.listAll(userId, filter)).map((f) => flows.read(f)) };
        const page = await studio.storage.flows.list({ userId, ...filter }, { page: q.page, perPage: q.size });
        return { body: toPage(page.items.map((f) => flows.read(f)), page.total, q.page, q.size) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/batch/',
      summary: 'Create several flows',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      body: FlowListCreateSchema,
      success: { status: 201, description: 'FlowRead list', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [400, 404, 409, 413, 422],
      async handler({ body: raw, principal }) {
        const body = raw as z.output<typeof FlowListCreateSchema>;
        const ids = body.flows.map((f) => f.id).filter((id): id is string => Boolean(id));
        const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
        if (dupes.length) throw StudioErrors.duplicateIds([...new Set(dupes)].join(', '));
        const created = [];
        for (const flow of body.flows) created.push(await flows.create(principal!, flow));
        return { body: created.map((f) => flows.read(f)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/',
      summary: 'Delete flows by id',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      body: FlowIdListSchema,
      success: { status: 200, description: 'How many were deleted', A: Deleted, B: Deleted },
      errors: [404, 413, 422],
      handler: async ({ body, principal }) => ({ body: { deleted: await flows.delete(principal!.userId, body as z.output<typeof FlowIdListSchema>) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/{id}',
      summary: 'One flow (ETag: its revision)',
      tags: ['flows'],
      spec: true,
      access: 'viewer',
      params: FlowId,
      success: { status: 200, description: 'FlowRead', A: JsonObject, B: JsonObject },
      errors: [404],
      async handler({ params, principal }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        return { body: flows.read(flow), headers: { ETag: `"${flow.revision}"` } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/{id}',
      summary: 'Change a flow (If-Match or ?revision guards against lost updates)',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FlowId,
      // Read here (size and JSON refusals first, as before); FlowUpdateSchema is checked after the flow is found.
      body: z.unknown(),
      success: { status: 200, description: 'FlowRead', A: JsonObject, B: JsonObject },
      errors: [400, 404, 409, 413, 422],
      async handler({ params, body, principal, request }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        const update = parseWith(FlowUpdateSchema, body, 'body');
        const updated = await flows.update(principal!, flow, update, baseRevisionOf(request));
        return { body: flows.read(updated), headers: { ETag: `"${updated.revision}"` } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/{id}',
      summary: 'Replace a flow, or create it under this id',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FlowId,
      body: FlowCreateSchema,
      success: { status: 200, description: 'FlowRead (201 when created)', A: JsonObject, B: JsonObject },
      errors: [400, 404, 409, 413, 422],
      async handler({ params, body: raw, principal: caller, request }) {
        const principal = caller!;
        const id = params.id as string;
        const body = raw as z.output<typeof FlowCreateSchema>;
        const existing = await studio.storage.flows.get(id).catch(() => null);
        if (!existing) {
          if (!/^[0-9a-f-]{36}$/i.test(id)) throw StudioErrors.flowNotFound(id);
          const created = await flows.create(principal, { ...body, id });
          return { status: 201, body: flows.read(created) };
        }
        if (existing.userId !== principal.userId) throw StudioErrors.flowNotFound(id);
        const folderId = body.folder_id ? (await studio.ownedProject(principal.userId, body.folder_id)).id : existing.folderId;
        const updated = await flows.applyPatch(
          principal,
          existing,
          {
            ...flowFieldsOfBody(body),
            name: body.name,
            data: body.data === undefined ? existing.data : body.data,
            accessType: body.access_type,
            endpointName: body.endpoint_name ?? null,
            folderId,
          },
          baseRevisionOf(request),
          'replaced',
        );
        return { status: 200, body: flows.read(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/{id}',
      summary: 'Delete a flow',
      tags: ['flows'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FlowId,
      success: { status: 200, description: 'Deleted', A: z.object({ message: z.string() }), B: z.object({ message: z.string() }) },
      errors: [404],
      async handler({ params, principal }) {
        const userId = principal!.userId;
        await studio.ownedFlow(userId, params.id);
        await flows.delete(userId, [params.id]);
        return { body: { message: 'Flow deleted successfully' } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/{id}/revisions',
      summary: "A flow's revisions, newest first, a page",
      tags: ['flows'],
      spec: false,
      access: 'viewer',
      params: FlowId,
      success: { status: 200, description: 'A page of revisions', A: JsonObject, B: JsonObject },
      errors: [404, 422],
      async handler({ params, principal, request }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        // RevisionQuery is checked after the flow is found, as it always was.
        const q = parseWith(RevisionQuery, request.query, 'query');
        const page = await studio.storage.revisions.list(flow.id, { page: q.page, perPage: q.size });
        return {
          body: toPage(
            page.items.map((r) => ({ revision: r.revision, created_at: new Date(r.createdAt).toISOString(), author: r.author, message: r.message, name: r.flow.name })),
            page.total,
            q.page,
            q.size,
          ),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/{id}/revisions/{revision}',
      summary: 'One revision of a flow',
      tags: ['flows'],
      spec: false,
      access: 'viewer',
      params: RevisionId,
      success: { status: 200, description: 'The revision', A: JsonObject, B: JsonObject },
      errors: [404],
      async handler({ params, principal }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        const revision = await loadRevision(studio, flow.id, params.revision);
        return { body: { revision: revision.revision, created_at: new Date(revision.createdAt).toISOString(), author: revision.author, message: revision.message, flow: flows.read(revision.flow) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/{id}/revisions/{revision}/restore',
      summary: 'Restore a revision as the newest',
      tags: ['flows'],
      spec: false,
      access: 'operator',
      action: WRITE,
      params: RevisionId,
      success: { status: 200, description: 'FlowRead', A: JsonObject, B: JsonObject },
      errors: [400, 404, 409],
      async handler({ params, principal, request }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        const revision = await loadRevision(studio, flow.id, params.revision);
        const old = revision.flow;
        const updated = await flows.applyPatch(
          principal!,
          flow,
          {
            name: old.name, description: old.description, data: old.data, accessType: old.accessType, actionName: old.actionName,
            actionDescription: old.actionDescription, endpointName: old.endpointName, gradient: old.gradient, icon: old.icon,
            iconBgColor: old.iconBgColor, isComponent: old.isComponent, locked: old.locked, mcpEnabled: old.mcpEnabled, tags: old.tags, webhook: old.webhook,
          },
          baseRevisionOf(request),
          `restored revision ${revision.revision}`,
        );
        return { body: flows.read(updated) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/{id}/events',
      summary: 'Record a flow event',
      tags: ['flows'],
      spec: false,
      access: 'operator',
      action: WRITE,
      params: FlowId,
      // Read here; FlowEventCreateSchema is checked after the flow is found, as before.
      body: z.unknown(),
      success: { status: 201, description: 'The event', A: JsonObject, B: JsonObject },
      errors: [404, 413, 422],
      async handler({ params, body, principal }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        const event = parseWith(FlowEventCreateSchema, body, 'body');
        return { body: studio.flowEvents.add(flow.id, event.type, event.summary) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/{id}/events',
      summary: "A flow's events since a time",
      tags: ['flows'],
      spec: false,
      access: 'viewer',
      params: FlowId,
      success: { status: 200, description: 'FlowEventListResponse', A: JsonObject, B: JsonObject },
      errors: [404, 422],
      async handler({ params, principal, request }) {
        const flow = await studio.ownedFlow(principal!.userId, params.id);
        const since = parseWith(EventsQuery, request.query, 'query').since;
        return { body: studio.flowEvents.list(flow.id, since) };
      },
    }),
  ];

  const router = flowServiceRouter(studio, routes, { bodyLimit: '50mb' });
  // A multipart upload and a zip download stay bare handlers: core's route kit reads JSON bodies and answers JSON.
  const auth = requireUser(studio, () => studio.config.autoLogin);
  router.post('/upload/', auth, writesNeedOperator(), singleFile(studio, { required: true }), async (req, res) => {
    const folderId = typeof req.query.folder_id === 'string' && req.query.folder_id ? req.query.folder_id : undefined;
    const documents = await readFlowImport(req.file!.buffer, studio.archiveLimits);
    const parsed = documents.map((doc, i) => parseWith(FlowCreateSchema, doc, `file[${i}]`));
    const created = [];
    for (const flow of parsed) created.push(await flows.create(principalOf(res), { ...flow, id: null }, { folderId }));
    res.status(201).json(created.map((f) => flows.read(f)));
  });

  // A download of ids is a read, for viewers too.
  router.post('/download/', auth, ...jsonBody('50mb'), async (req, res) => {
    const ids = parseWith(FlowIdListSchema, req.body, 'body');
    const userId = principalOf(res).userId;
    const taken = new Set<string>();
    const files = [];
    for (const id of ids) {
      const flow = await studio.ownedFlow(userId, id);
      files.push({ name: zipEntryName(flow.name, taken), content: JSON.stringify(toFlowExport(flow, redactFlowSecrets(studio.flows, flow.data, 'remove')), null, 2) });
    }
    const zip = await makeZip(files);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="flows_${new Date().toISOString().replace(/[:.]/g, '-')}.zip"`);
    res.send(zip);
  });

  // Any other path under the mount answers as the router always has: 401 to nobody, 403 to a viewer's write, else on to 404.
  router.use(auth, writesNeedOperator([/^\/download\/?$/]));
  return router;
}

async function loadRevision(studio: StudioContext, flowId: string, raw: string) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw StudioErrors.revisionNotFound(flowId, Number.isFinite(n) ? n : 0);
  const revision = await studio.storage.revisions.get(flowId, n);
  if (!revision) throw StudioErrors.revisionNotFound(flowId, n);
  return revision;
}
