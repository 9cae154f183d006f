import { param } from '../http/params.js';
import express, { Router } from 'express';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { writesNeedOperator } from '../http/roles.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import { makeZip, zipEntryName } from '../flows/flow-import.js';
import { toUserFile, type FileStore } from './file-store.js';
import { sanitizeFileName, singleFile } from './upload.js';

const IdList = z.array(z.guid()).min(1, 'give at least one file id');

/** `/api/v1/files` (files of a flow) and `/api/v2/files` (files of a user). */
export function fileRoutes(studio: StudioContext, files: FileStore): { v1: Router; v2: Router } {
  const v1 = Router();
  const v2 = Router();
  const json = jsonBody();
  const auth = requireUser(studio.runtime, () => studio.config.autoLogin);
  v1.use(auth, writesNeedOperator());
  v2.use(auth, writesNeedOperator([/^\/batch\/?$/]));

  v1.post('/upload/:flow_id', async (req, res, next) => {
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

  v1.get('/list/:flow_id', async (req, res) => {
    const userId = principalOf(res).userId;
    await studio.ownedFlow(userId, param(req, 'flow_id'));
    res.json({ files: (await files.list(userId, param(req, 'flow_id'))).map((f) => f.name) });
  });

  v1.get('/download/:flow_id/:file_name', async (req, res) => {
    const userId = principalOf(res).userId;
    await studio.ownedFlow(userId, param(req, 'flow_id'));
    const record = await files.byFlowAndName(userId, param(req, 'flow_id'), param(req, 'file_name'));
    if (!record) throw StudioErrors.fileNotFound(param(req, 'file_name'));
    res.download(files.absolutePath(record), record.name, { headers: { 'Content-Type': record.mimeType } });
  });

  v1.delete('/delete/:flow_id/:file_name', async (req, res) => {
    const userId = principalOf(res).userId;
    await studio.ownedFlow(userId, param(req, 'flow_id'));
    const record = await files.byFlowAndName(userId, param(req, 'flow_id'), param(req, 'file_name'));
    if (!record) throw StudioErrors.fileNotFound(param(req, 'file_name'));
    await files.remove(record);
    res.json({ message: `File ${record.name} deleted successfully` });
  });

  const uploadUserFile = [
    singleFile(studio, { required: true, toDisk: true }),
    async (req: express.Request, res: express.Response) => {
      const userId = principalOf(res).userId;
      const name = await files.uniqueName(userId, sanitizeFileName(req.file!.originalname));
      const record = await files.save({ userId, originalName: name, name, mimeType: req.file!.mimetype, tempPath: req.file!.path });
      res.status(201).json(toUserFile(record));
    },
  ];
  v2.post('/', ...uploadUserFile);

  v2.get('/', async (_req, res) => {
    res.json((await files.list(principalOf(res).userId)).map(toUserFile));
  });

  v2.delete('/batch/', ...json, async (req, res) => {
    const userId = principalOf(res).userId;
    const ids = parseWith(IdList, req.body, 'body');
    let deleted = 0;
    for (const id of ids) {
      const record = await files.owned(userId, id).catch(() => null);
      if (record) {
        await files.remove(record);
        deleted++;
      }
    }
    res.json({ message: `${deleted} files deleted successfully`, deleted });
  });

  v2.post('/batch/', ...json, async (req, res) => {
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

  v2.get('/:id', async (req, res) => {
    const record = await files.owned(principalOf(res).userId, param(req, 'id'));
    res.download(files.absolutePath(record), record.name, { headers: { 'Content-Type': record.mimeType } });
  });

  v2.put('/:id', ...json, async (req, res) => {
    const userId = principalOf(res).userId;
    const record = await files.owned(userId, param(req, 'id'));
    const wanted = parseWith(z.object({ name: z.string().min(1) }), { name: req.query.name ?? req.body?.name }, 'query').name;
    const name = sanitizeFileName(wanted);
    const updated = name === record.name ? record : await studio.storage.files.update(record.id, { name: await files.uniqueName(userId, name) });
    res.json(toUserFile(updated));
  });

  v2.delete('/:id', async (req, res) => {
    const record = await files.owned(principalOf(res).userId, param(req, 'id'));
    await files.remove(record);
    res.json({ message: `File ${record.name} deleted successfully` });
  });

  return { v1, v2 };
}
