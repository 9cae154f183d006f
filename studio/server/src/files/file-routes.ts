import { param } from '../http/params.js';
import type { Request, Response, Router } from 'express';
import { defineRoute } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { writesNeedOperator } from '../http/roles.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import { JsonObject, flowServiceRouter } from '../http/route-kit.js';
import { makeZip, zipEntryName } from '../flows/flow-import.js';
import { toUserFile, type FileStore } from './file-store.js';
import { sanitizeFileName, singleFile } from './upload.js';

const IdList = z.array(z.guid()).min(1, 'give at least one file id');

/** Viewers are read-only: the 403 every write of these routers answers them. */
const WRITE = 'change anything (viewers are read-only)';
const FlowFile = z.object({ flow_id: z.string(), file_name: z.string() });
const FileId = z.object({ id: z.string() });
const Message = z.object({ message: z.string() });

/** `/api/v1/files` (files of a flow) and `/api/v2/files` (files of a user). */
export function fileRoutes(studio: StudioContext, files: FileStore): { v1: Router; v2: Router } {
  const json = jsonBody();
  const auth = requireUser(studio, () => studio.config.autoLogin);

  const v1 = flowServiceRouter(studio, [
    defineRoute({
      method: 'get',
      path: '/list/{flow_id}',
      summary: "Names of a flow's files",
      tags: ['files'],
      spec: true,
      access: 'viewer',
      params: z.object({ flow_id: z.string() }),
      success: { status: 200, description: 'File names', A: z.object({ files: z.array(z.string()) }), B: z.object({ files: z.array(z.string()) }) },
      errors: [404],
      async handler({ params, principal }) {
        const userId = principal!.userId;
        await studio.ownedFlow(userId, params.flow_id);
        return { body: { files: (await files.list(userId, params.flow_id)).map((f) => f.name) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/delete/{flow_id}/{file_name}',
      summary: "Delete one of a flow's files",
      tags: ['files'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FlowFile,
      success: { status: 200, description: 'Deleted', A: Message, B: Message },
      errors: [404],
      async handler({ params, principal }) {
        const userId = principal!.userId;
        await studio.ownedFlow(userId, params.flow_id);
        const record = await files.byFlowAndName(userId, params.flow_id, params.file_name);
        if (!record) throw StudioErrors.fileNotFound(params.file_name);
        await files.remove(record);
        return { body: { message: `File ${record.name} deleted successfully` } };
      },
    }),
  ]);

  const v2 = flowServiceRouter(studio, [
    defineRoute({
      method: 'get',
      path: '/',
      summary: "The caller's files",
      tags: ['files'],
      spec: true,
      access: 'viewer',
      success: { status: 200, description: 'UserFile list', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [],
      handler: async ({ principal }) => ({ body: (await files.list(principal!.userId)).map(toUserFile) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/batch/',
      summary: 'Delete files by id (those the caller does not own are skipped)',
      tags: ['files'],
      spec: true,
      // Like POST /batch/ (a zip of ids), this path has always counted as a read for the viewer rule.
      access: 'viewer',
      body: IdList,
      success: { status: 200, description: 'How many were deleted', A: z.object({ message: z.string(), deleted: z.number() }), B: z.object({ message: z.string(), deleted: z.number() }) },
      errors: [413, 422],
      async handler({ body, principal }) {
        const userId = principal!.userId;
        let deleted = 0;
        for (const id of body as z.output<typeof IdList>) {
          const record = await files.owned(userId, id).catch(() => null);
          if (record) {
            await files.remove(record);
            deleted++;
          }
        }
        return { body: { message: `${deleted} files deleted successfully`, deleted } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/{id}',
      summary: 'Rename a file (?name= or {"name"})',
      tags: ['files'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FileId,
      // Read here; the name is checked after the file is found, as before.
      body: z.unknown(),
      success: { status: 200, description: 'UserFile', A: JsonObject, B: JsonObject },
      errors: [404, 413, 422],
      async handler({ params, body, principal, request }) {
        const userId = principal!.userId;
        const record = await files.owned(userId, params.id);
        const wanted = parseWith(z.object({ name: z.string().min(1) }), { name: request.query.name ?? (body as { name?: unknown } | undefined)?.name }, 'query').name;
        const name = sanitizeFileName(wanted);
        const updated = name === record.name ? record : await studio.storage.files.update(record.id, { name: await files.uniqueName(userId, name) });
        return { body: toUserFile(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/{id}',
      summary: 'Delete a file',
      tags: ['files'],
      spec: true,
      access: 'operator',
      action: WRITE,
      params: FileId,
      success: { status: 200, description: 'Deleted', A: Message, B: Message },
      errors: [404],
      async handler({ params, principal }) {
        const record = await files.owned(principal!.userId, params.id);
        await files.remove(record);
        return { body: { message: `File ${record.name} deleted successfully` } };
      },
    }),
  ]);

  // Multipart uploads and file or zip downloads stay bare handlers: core's route kit reads JSON bodies and answers JSON.
  v1.post('/upload/:flow_id', auth, writesNeedOperator(), async (req, res, next) => {
    await studio.ownedFlow(principalOf(res).userId, param(req, 'flow_id'));
    next();
  }, singleFile(studio, { required: true, toDisk: true }), async (req, res) => {
    const userId = principalOf(res).userId;
    const flowId = param(req, 'flow_id');
    const name = sanitizeFileName(req.file!.originalname);
    const previous = await files.byFlowAndName(userId, flowId, name);
    const record = await files.save({ userId, flowId, originalName: name, mimeType: req.file!.mimetype, tempPath: req.file!.path });
    if (previous) await files.remove(previous);
    // Langflow serialises UploadFileResponse.flow_id as `flowId` (its clients read that); `flow_id` stays for wiflow's own users.
    res.status(201).json({ flowId, flow_id: flowId, file_path: `${flowId}/${record.name}`, id: record.id, size: record.size });
  });

  v1.get('/download/:flow_id/:file_name', auth, async (req, res) => {
    const userId = principalOf(res).userId;
    await studio.ownedFlow(userId, param(req, 'flow_id'));
    const record = await files.byFlowAndName(userId, param(req, 'flow_id'), param(req, 'file_name'));
    if (!record) throw StudioErrors.fileNotFound(param(req, 'file_name'));
    res.download(files.absolutePath(record), record.name, { headers: { 'Content-Type': record.mimeType } });
  });

  v2.post('/', auth, writesNeedOperator(), singleFile(studio, { required: true, toDisk: true }), async (req: Request, res: Response) => {
    const userId = principalOf(res).userId;
    const name = await files.uniqueName(userId, sanitizeFileName(req.file!.originalname));
    const record = await files.save({ userId, originalName: name, name, mimeType: req.file!.mimetype, tempPath: req.file!.path });
    res.status(201).json(toUserFile(record));
  });

  v2.post('/batch/', auth, ...json, async (req, res) => {
    const userId = principalOf(res).userId;
    const ids = parseWith(IdList, req.body, 'body');
    const taken = new Set<string>();
    const entries = [];
    for (const id of ids) {
      const record = await files.owned(userId, id);
      const { readFile } = await import('node:fs/promises');
      const ext = record.name.includes('.') ? record.name.slice(record.name.lastIndexOf('.')) : '';
      entries.push({ name: zipEntryName(record.name.slice(0, record.name.length - ext.length), taken, ext), content: await readFile(files.absolutePath(record)) });
    }
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', 'attachment; filename="files.zip"');
    res.send(await makeZip(entries));
  });

  v2.get('/:id', auth, async (req, res) => {
    const record = await files.owned(principalOf(res).userId, param(req, 'id'));
    res.download(files.absolutePath(record), record.name, { headers: { 'Content-Type': record.mimeType } });
  });

  // Any other path under the mounts answers as the routers always have: 401 to nobody, 403 to a viewer's write, else on to 404.
  v1.use(auth, writesNeedOperator());
  v2.use(auth, writesNeedOperator([/^\/batch\/?$/]));
  return { v1, v2 };
}
