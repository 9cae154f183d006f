import { param } from '../http/params.js';
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { writesNeedOperator } from '../http/roles.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
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

/** `/api/v1/flows`: CRUD, batch, upload/download, delete many, revisions, flow events, public flows. */
export function flowRoutes(studio: StudioContext, flows: FlowService): Router {
  const router = Router();
  const json = jsonBody('50mb');
  const auth = requireUser(studio.runtime, () => studio.config.autoLogin);

  router.get('/public_flow/:id', async (req, res) => {
    const flow = await studio.storage.flows.get(param(req, 'id')).catch(() => null);
    if (!flow || flow.accessType !== 'PUBLIC') throw StudioErrors.flowNotFound(param(req, 'id'));
    res.json(flows.read(flow));
  });

  router.use(auth, writesNeedOperator([/^\/download\/?$/]));

  router.post('/', ...json, async (req, res) => {
    const body = parseWith(FlowCreateSchema, req.body, 'body');
    const flow = await flows.create(principalOf(res), body);
    res.status(201).json(flows.read(flow));
  });

  router.get('/', async (req, res) => {
    const q = parseWith(ListQuery, req.query, 'query');
    const userId = principalOf(res).userId;
    const query = { folderId: q.folder_id, ...(q.components_only ? { isComponent: true } : {}) };
    if (q.header_flows) {
      const all = await flows.listAll(userId, query);
      res.json(all.map((f) => flows.header(f)));
      return;
    }
    if (q.get_all) {
      const all = await flows.listAll(userId, query);
      res.json(all.map((f) => flows.read(f)));
      return;
    }
    const page = await studio.storage.flows.list({ userId, ...query }, { page: q.page, perPage: q.size });
    res.json(toPage(page.items.map((f) => flows.read(f)), page.total, q.page, q.size));
  });

  router.post('/batch/', ...json, async (req, res) => {
    const body = parseWith(FlowListCreateSchema, req.body, 'body');
    const ids = body.flows.map((f) => f.id).filter((id): id is string => Boolean(id));
    const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (dupes.length) throw StudioErrors.duplicateIds([...new Set(dupes)].join(', '));
    const created = [];
    for (const flow of body.flows) created.push(await flows.create(principalOf(res), flow));
    res.status(201).json(created.map((f) => flows.read(f)));
  });

  router.post('/upload/', singleFile(studio, { required: true }), async (req, res) => {
    const folderId = typeof req.query.folder_id === 'string' && req.query.folder_id ? req.query.folder_id : undefined;
    const documents = await readFlowImport(req.file!.buffer, studio.archiveLimits);
    const parsed = documents.map((doc, i) => parseWith(FlowCreateSchema, doc, `file[${i}]`));
    const created = [];
    for (const flow of parsed) created.push(await flows.create(principalOf(res), { ...flow, id: null }, { folderId }));
    res.status(201).json(created.map((f) => flows.read(f)));
  });

  router.post('/download/', ...json, async (req, res) => {
    const ids = parseWith(FlowIdListSchema, req.body, 'body');
    const userId = principalOf(res).userId;
    const taken = new Set<string>();
    const files = [];
    for (const id of ids) {
      const flow = await studio.ownedFlow(userId, id);
      files.push({ name: zipEntryName(flow.name, taken), content: JSON.stringify(toFlowExport(flow, redactFlowSecrets(studio.runtime, flow.data, 'remove')), null, 2) });
    }
    const zip = await makeZip(files);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="flows_${new Date().toISOString().replace(/[:.]/g, '-')}.zip"`);
    res.send(zip);
  });

  router.delete('/', ...json, async (req, res) => {
    const ids = parseWith(FlowIdListSchema, req.body, 'body');
    res.json({ deleted: await flows.delete(principalOf(res).userId, ids) });
  });

  router.get('/:id', async (req, res) => {
    const flow = await studio.ownedFlow(principalOf(res).userId, param(req, 'id'));
    res.setHeader('ETag', `"${flow.revision}"`);
    res.json(flows.read(flow));
  });

  router.patch('/:id', ...json, async (req, res) => {
    const principal = principalOf(res);
    const flow = await studio.ownedFlow(principal.userId, param(req, 'id'));
    const body = parseWith(FlowUpdateSchema, req.body, 'body');
    const updated = await flows.update(principal, flow, body, baseRevisionOf(req));
    res.setHeader('ETag', `"${updated.revision}"`);
    res.json(flows.read(updated));
  });

  router.put('/:id', ...json, async (req, res) => {
    const principal = principalOf(res);
    const body = parseWith(FlowCreateSchema, req.body, 'body');
    const existing = await studio.storage.flows.get(param(req, 'id')).catch(() => null);
    if (!existing) {
      if (!/^[0-9a-f-]{36}$/i.test(param(req, 'id'))) throw StudioErrors.flowNotFound(param(req, 'id'));
      const created = await flows.create(principal, { ...body, id: param(req, 'id') });
      res.status(201).json(flows.read(created));
      return;
    }
    if (existing.userId !== principal.userId) throw StudioErrors.flowNotFound(param(req, 'id'));
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
      baseRevisionOf(req),
      'replaced',
    );
    res.status(200).json(flows.read(updated));
  });

  router.delete('/:id', async (req, res) => {
    const userId = principalOf(res).userId;
    await studio.ownedFlow(userId, param(req, 'id'));
    await flows.delete(userId, [param(req, 'id')]);
    res.json({ message: 'Flow deleted successfully' });
  });

  router.get('/:id/revisions', async (req, res) => {
    const flow = await studio.ownedFlow(principalOf(res).userId, param(req, 'id'));
    const q = parseWith(RevisionQuery, req.query, 'query');
    const page = await studio.storage.revisions.list(flow.id, { page: q.page, perPage: q.size });
    res.json(
      toPage(
        page.items.map((r) => ({ revision: r.revision, created_at: new Date(r.createdAt).toISOString(), author: r.author, message: r.message, name: r.flow.name })),
        page.total,
        q.page,
        q.size,
      ),
    );
  });

  router.get('/:id/revisions/:revision', async (req, res) => {
    const flow = await studio.ownedFlow(principalOf(res).userId, param(req, 'id'));
    const revision = await loadRevision(studio, flow.id, param(req, 'revision'));
    res.json({ revision: revision.revision, created_at: new Date(revision.createdAt).toISOString(), author: revision.author, message: revision.message, flow: flows.read(revision.flow) });
  });

  router.post('/:id/revisions/:revision/restore', async (req, res) => {
    const principal = principalOf(res);
    const flow = await studio.ownedFlow(principal.userId, param(req, 'id'));
    const revision = await loadRevision(studio, flow.id, param(req, 'revision'));
    const old = revision.flow;
    const updated = await flows.applyPatch(
      principal,
      flow,
      {
        name: old.name, description: old.description, data: old.data, accessType: old.accessType, actionName: old.actionName,
        actionDescription: old.actionDescription, endpointName: old.endpointName, gradient: old.gradient, icon: old.icon,
        iconBgColor: old.iconBgColor, isComponent: old.isComponent, locked: old.locked, mcpEnabled: old.mcpEnabled, tags: old.tags, webhook: old.webhook,
      },
      baseRevisionOf(req),
      `restored revision ${revision.revision}`,
    );
    res.json(flows.read(updated));
  });

  router.post('/:id/events', ...json, async (req, res) => {
    const flow = await studio.ownedFlow(principalOf(res).userId, param(req, 'id'));
    const body = parseWith(FlowEventCreateSchema, req.body, 'body');
    res.status(201).json(studio.flowEvents.add(flow.id, body.type, body.summary));
  });

  router.get('/:id/events', async (req, res) => {
    const flow = await studio.ownedFlow(principalOf(res).userId, param(req, 'id'));
    const since = parseWith(z.object({ since: z.coerce.number().min(0).default(0) }), req.query, 'query').since;
    res.json(studio.flowEvents.list(flow.id, since));
  });

  return router;
}

async function loadRevision(studio: StudioContext, flowId: string, raw: string) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw StudioErrors.revisionNotFound(flowId, Number.isFinite(n) ? n : 0);
  const revision = await studio.storage.revisions.get(flowId, n);
  if (!revision) throw StudioErrors.revisionNotFound(flowId, n);
  return revision;
}
