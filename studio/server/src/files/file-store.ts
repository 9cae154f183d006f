import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileRecord } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { isUuid } from '../context.js';
import { StudioErrors } from '../errors.js';
import { sanitizeFileName } from './upload.js';

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Uploaded files: bytes under `<dataDir>/studio-files/<user>/<file id>/<safe name>`, metadata
 * in storage. A flow's file inputs name a file by its id (v2) or `flow_id/file_name` (v1).
 */
export class FileStore {
  constructor(private readonly studio: StudioContext) {}

  /** Absolute path of a stored file. */
  absolutePath(record: FileRecord): string {
    const full = path.resolve(this.studio.dataDir, record.path);
    if (!full.startsWith(path.resolve(this.studio.filesDir) + path.sep)) throw StudioErrors.fileNotFound(record.name);
    return full;
  }

  /** Store an upload (a temporary file or bytes) for a user, optionally attached to a flow. */
  async save(input: { userId: string; flowId?: string | null; originalName: string; mimeType: string; tempPath?: string; buffer?: Buffer; name?: string }): Promise<FileRecord> {
    const id = randomUUID();
    const name = input.name ?? sanitizeFileName(input.originalName);
    const relative = path.join('studio-files', input.userId, id, name);
    const full = path.join(this.studio.dataDir, relative);
    await mkdir(path.dirname(full), { recursive: true });
    if (input.tempPath) await rename(input.tempPath, full);
    else await writeFile(full, input.buffer ?? Buffer.alloc(0));
    const size = (await stat(full)).size;
    try {
      return await this.studio.storage.files.create({ id, userId: input.userId, flowId: input.flowId ?? null, name, path: relative, size, mimeType: input.mimeType || 'application/octet-stream', sha256: await sha256Of(full) });
    } catch (error) {
      await rm(path.dirname(full), { recursive: true, force: true });
      throw error;
    }
  }

  /** Every file of a user (optionally of one flow). */
  async list(userId: string, flowId?: string | null): Promise<FileRecord[]> {
    const out: FileRecord[] = [];
    for (let page = 1; ; page++) {
      const result = await this.studio.storage.files.list({ userId, ...(flowId !== undefined ? { flowId } : {}) }, { page, perPage: 500 });
      out.push(...result.items);
      if (!result.hasNext) return out;
    }
  }

  /** A user's file by id, or 404. */
  async owned(userId: string, id: string): Promise<FileRecord> {
    const record = isUuid(id) ? await this.studio.storage.files.get(id) : null;
    if (!record || record.userId !== userId) throw StudioErrors.fileNotFound(id);
    return record;
  }

  /** A flow's file by its (sanitised) name, or null. */
  async byFlowAndName(userId: string, flowId: string, name: string): Promise<FileRecord | null> {
    const safe = sanitizeFileName(name);
    return (await this.list(userId, flowId)).find((f) => f.name === safe) ?? null;
  }

  /** Delete the bytes and the metadata. */
  async remove(record: FileRecord): Promise<void> {
    await rm(path.dirname(this.absolutePath(record)), { recursive: true, force: true });
    await this.studio.storage.files.delete(record.id);
  }

  /** A name not yet used among the user's files: the wanted one or "base (n).ext". */
  async uniqueName(userId: string, wanted: string): Promise<string> {
    const names = new Set((await this.list(userId)).map((f) => f.name));
    if (!names.has(wanted)) return wanted;
    const ext = path.extname(wanted);
    const base = wanted.slice(0, wanted.length - ext.length);
    for (let n = 1; ; n++) {
      const candidate = `${base} (${n})${ext}`;
      if (!names.has(candidate)) return candidate;
    }
  }

  /**
   * Resolve what a caller passed for a file input to the absolute path a node can read: a
   * file id, a v1 `flow_id/file_name`, or a stored file's path. Anything else is an error.
   */
  async resolveReference(userId: string, reference: unknown, field: string, onlyFlowId?: string): Promise<string> {
    if (typeof reference !== 'string' || !reference) throw StudioErrors.invalidBody(`${field}: a file input needs a file id or a "flow_id/file_name" from the files API`);
    if (isUuid(reference)) {
      const record = await this.studio.storage.files.get(reference);
      if (record && record.userId === userId && (!onlyFlowId || record.flowId === onlyFlowId)) return this.absolutePath(record);
    }
    const v1 = /^([0-9a-f-]{36})\/(.+)$/i.exec(reference);
    if (v1 && (!onlyFlowId || v1[1] === onlyFlowId)) {
      const record = await this.byFlowAndName(userId, v1[1], v1[2]);
      if (record) return this.absolutePath(record);
    }
    const byPath = (await this.list(userId, onlyFlowId)).find((f) => f.path === reference || f.path.split(path.sep).join('/') === reference);
    if (byPath) return this.absolutePath(byPath);
    throw StudioErrors.invalidBody(`${field}: no uploaded file "${reference}" of yours (upload it with POST /api/v2/files or /api/v1/files/upload/{flow_id})`);
  }
}

/** UserFile as returned by the v2 files API. */
export function toUserFile(record: FileRecord): Record<string, unknown> {
  return {
    id: record.id,
    user_id: record.userId,
    name: record.name,
    path: record.path.split(path.sep).join('/'),
    size: record.size,
    provider: null,
    mime_type: record.mimeType,
    sha256: record.sha256,
    flow_id: record.flowId,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}
