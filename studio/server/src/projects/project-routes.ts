import { param } from '../http/params.js';
import type { Router } from 'express';
import { defineRoute, Tokens, type Principal, type ProjectRecord, type SecretBox } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { writesNeedOperator } from '../http/roles.js';
import { parseWith } from '../http/validation.js';
import { JsonObject, flowServiceRouter, type FlowServiceRoute } from '../http/route-kit.js';
import { singleFile } from '../files/upload.js';
import { redactFlowSecrets } from '../flows/flow-data.js';
import { makeZip, readProjectImport, zipEntryName } from '../flows/flow-import.js';
import { FlowCreateSchema, toFlowExport, toPage } from '../flows/flow-model.js';
import type { FlowService } from '../flows/flow-service.js';
import { sealAuthSettings } from '../mcp/auth-settings.js';
import { FolderCreateSchema, FolderUpdateSchema, toFolderRead } from './project-model.js';

const boolParam = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');
const FolderQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  size: z.coerce.number().int().min(1).max(500).optional(),
  is_component: boolParam.optional(),
  is_flow: boolParam.optional(),
  search: z.string().optional(),
});

/** A free project name for the user: the wanted one or "name (n)". */
export async function uniqueProjectName(studio: StudioContext, userId: string, wanted: string): Promise<string> {
  if (!(await studio.storage.projects.getByName(userId, wanted))) return wanted;
  const base = wanted.replace(/ \(\d+\)$/, '');
  for (let n = 1; ; n++) {
    const candidate = `${base} (${n})`;
    if (!(await studio.storage.projects.getByName(userId, candidate))) return candidate;
  }
}

/** Every project of a user (all pages). */
export async function listProjects(studio: StudioContext, userId: string): Promise<ProjectRecord[]> {
  const out: ProjectRecord[] = [];
  for (let page = 1; ; page++) {
    const result = await studio.storage.projects.list({ userId }, { page, perPage: 500 });
    out.push(...result.items);
    if (!result.hasNext) return out;
  }
}

/** Viewers are read-only: the 403 every write of this router answers them. */
const WRITE = 'change anything (viewers are read-only)';
const ProjectId = z.object({ id: z.string() });

/** `/api/v1/projects` (and its alias `/api/v1/folders`): CRUD, flows of a project, upload/download. */
export function projectRoutes(studio: StudioContext, flows: FlowService): Router {
  const box = () => studio.services.get(Tokens.SecretBox);

  /** Move flows (owned by the user) into a project. */
  async function moveInto(principal: Principal, projectId: string, ids: string[]): Promise<void> {
    for (const id of ids) {
      const flow = await studio.ownedFlow(principal.userId, id);
      if (flow.folderId !== projectId) await flows.applyPatch(principal, flow, { folderId: projectId }, undefined, 'moved');
    }
  }

  const routes: FlowServiceRoute[] = [
    defineRoute({
      method: 'post',
      path: '/',
      summary: 'Create a project (moving the listed flows into it)',
      tags: ['projects'],
      spec: true,
      access: 'operator',
      action: WRITE,
      body: FolderCreateSchema,
      success: { status: 201, description: 'FolderRead', A: JsonObject, B: JsonObject },
      errors: [404, 413, 422],
      async handler({ body: raw, principal }) {
        const body = raw as z.output<typeof FolderCreateSchema>;
        const project = await studio.storage.projects.create({
          name: await uniqueProjectName(studio, principal!.userId, body.name),
          description: body.description ?? null,
          userId: principal!.userId,
          authSettings: body.auth_settings ? sealAuthSettings(box(), body.auth_settings, null) : null,
        });
        await moveInto(principal!, project.id, [...(body.flows_list ?? []), ...(body.components_list ?? [])]);
        return { body: toFolderRead(project) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/',
      summary: "The caller's projects",
      tags: ['projects'],
      spec: true,
      access: 'viewer',
      success: { status: 200, description: 'FolderRead list', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [],
      async handler({ principal }) {
        const userId = principal!.userId;
        await studio.defaultProject(userId);
        return { body: (await listProjects(studio, userId)).map(toFolderRead) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/{id}',
      summary: 'A project with its flows (paginated with ?page, ?size)',
      tags: ['projects'],
      spec: true,
      access: 'viewer',
      params: ProjectId,
      success: { status: 200, description: 'FolderWithPaginatedFlows or the project with every flow', A: JsonObject, B: JsonObject },
      errors: [404, 422],
      async handler({ params, principal, request }) {
        const userId = principal!.userId;
        const project = await studio.ownedProject(userId, params.id);
        // FolderQuery is checked after the project is found, as it always was: a stranger's project is 404 whatever the query.
        const q = parseWith(FolderQuery, request.query, 'query');
        let list = await flows.listAll(userId, { folderId: project.id });
        if (q.is_component === true && q.is_flow !== true) list = list.filter((f) => f.isComponent);
        if (q.is_flow === true && q.is_component !== true) list = list.filter((f) => !f.isComponent);
        if (q.search) list = list.filter((f) => f.name.toLowerCase().includes(q.search!.toLowerCase()));
        if (q.page !== undefined || q.size !== undefined) {
          const page = q.page ?? 1;
          const size = q.size ?? 50;
          const items = list.slice((page - 1) * size, page * size).map((f) => flows.read(f));
          return { body: { folder: toFolderRead(project), flows: toPage(items, list.length, page, size) } };
        }
        return { body: { ...toFolderRead(project), flows: list.map((f) => flows.read(f)) } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/{id}',
      summary: 'Rename, describe, re-parent a project or set its flows',
      tags: ['projects'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: ProjectId,
      // Read here (size and JSON refusals first, as before); FolderUpdateSchema is checked after the project is found.
      body: z.unknown(),
      success: { status: 200, description: 'FolderRead', A: JsonObject, B: JsonObject },
      errors: [400, 404, 413, 422],
      async handler({ params, body: raw, principal: caller }) {
        const principal = caller!;
        const project = await studio.ownedProject(principal.userId, params.id);
        const body = parseWith(FolderUpdateSchema, raw, 'body');
        const patch: Partial<ProjectRecord> = {};
        if (body.name != null && body.name !== project.name) patch.name = await uniqueProjectName(studio, principal.userId, body.name);
        if (body.description !== undefined) patch.description = body.description;
        if (body.parent_id !== undefined) {
          if (body.parent_id === project.id) throw StudioErrors.invalidBody('a project cannot be its own parent');
          patch.parentId = body.parent_id ? (await studio.ownedProject(principal.userId, body.parent_id)).id : null;
        }
        if (body.auth_settings !== undefined) patch.authSettings = body.auth_settings ? sealAuthSettings(box(), body.auth_settings, project.authSettings) : null;
        const updated = Object.keys(patch).length ? await studio.storage.projects.update(project.id, patch) : project;
        if (body.flows !== undefined || body.components !== undefined) {
          const wanted = [...(body.flows ?? []), ...(body.components ?? [])];
          await moveInto(principal, project.id, wanted);
          const keep = new Set(wanted);
          const fallback = await studio.defaultProject(principal.userId);
          if (fallback.id !== project.id) {
            for (const flow of await flows.listAll(principal.userId, { folderId: project.id, includeData: false })) {
              if (keep.has(flow.id)) continue;
              const full = await studio.ownedFlow(principal.userId, flow.id);
              await flows.applyPatch(principal, full, { folderId: fallback.id }, undefined, 'moved');
            }
          }
        }
        studio.projectsChanged(project.id);
        return { body: toFolderRead(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/{id}',
      summary: 'Delete a project and its flows',
      tags: ['projects'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: ProjectId,
      success: { status: 204, description: 'Deleted', A: z.undefined(), B: z.undefined() },
      errors: [404],
      async handler({ params, principal }) {
        const project = await studio.ownedProject(principal!.userId, params.id);
        const ids = (await flows.listAll(principal!.userId, { folderId: project.id, includeData: false })).map((f) => f.id);
        await flows.delete(principal!.userId, ids);
        await studio.storage.projects.delete(project.id, { flows: 'delete' });
        await studio.storage.settings.delete('mcp-project', project.id).catch(() => false);
        studio.projectsChanged(project.id);
        return { body: undefined };
      },
    }),
  ];

  const router = flowServiceRouter(studio, routes, { bodyLimit: '50mb' });
  // A multipart upload and a zip download stay bare handlers: core's route kit reads JSON bodies and answers JSON.
  const auth = requireUser(studio, () => studio.config.autoLogin);
  router.post('/upload/', auth, writesNeedOperator(), singleFile(studio, { required: true }), async (req, res) => {
    const principal = principalOf(res);
    const imported = await readProjectImport(req.file!.buffer, req.file!.originalname, studio.archiveLimits);
    const parsed = imported.flows.map((doc, i) => parseWith(FlowCreateSchema, doc, `file.flows[${i}]`));
    const project = await studio.storage.projects.create({
      name: await uniqueProjectName(studio, principal.userId, imported.name?.trim() || 'Imported project'),
      description: imported.description,
      userId: principal.userId,
    });
    const created = [];
    for (const flow of parsed) created.push(await flows.create(principal, { ...flow, id: null }, { folderId: project.id }));
    res.status(201).json(created.map((f) => flows.read(f)));
  });

  router.get('/download/:id', auth, async (req, res) => {
    const userId = principalOf(res).userId;
    const project = await studio.ownedProject(userId, param(req, 'id'));
    const taken = new Set<string>(['project.json']);
    const files: { name: string; content: string }[] = [{ name: 'project.json', content: JSON.stringify({ folder_name: project.name, folder_description: project.description }, null, 2) }];
    for (const flow of await flows.listAll(userId, { folderId: project.id })) {
      files.push({ name: `flows/${zipEntryName(flow.name, taken)}`, content: JSON.stringify(toFlowExport(flow, redactFlowSecrets(studio.flows, flow.data, 'remove')), null, 2) });
    }
    const zip = await makeZip(files);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${zipEntryName(project.name, new Set(), '.zip').replace(/"/g, '')}"`);
    res.send(zip);
  });

  // Any other path under the mount answers as the router always has: 401 to nobody, 403 to a viewer's write, else on to 404.
  router.use(auth, writesNeedOperator());
  return router;
}
