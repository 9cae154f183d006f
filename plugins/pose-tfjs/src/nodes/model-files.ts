import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess } from '@wiflow/core';
import { LOCATOR_JSON } from '../locate/locator-model.js';
import { MODEL_SPEC_JSON } from '../model/contract.js';
import { MODEL_JSON } from '../model/file-io-handler.js';

/**
 * A pose model folder named by a flow, resolved through the run's file access. When the run
 * is confined, every file the loader opens (model.json, wiflow-model.json, each weight file)
 * is resolved too, so a symlink inside an allowed folder cannot lead the loader outside.
 * Returns the folder's real path, for the loader.
 */
export async function resolvePoseModelFolder(files: FileAccess, requested: string): Promise<string> {
  const folder = await files.resolve(requested, 'read');
  if (!files.confined) return folder;
  const modelJson = await files.resolve(path.join(requested, MODEL_JSON), 'read');
  await files.resolve(path.join(requested, MODEL_SPEC_JSON), 'read');
  let manifest: unknown;
  try {
    manifest = (JSON.parse(await readFile(modelJson, 'utf8')) as { weightsManifest?: unknown }).weightsManifest;
  } catch {
    return folder; // the loader reports the unreadable model.json with its own error
  }
  for (const group of Array.isArray(manifest) ? manifest : []) {
    for (const relative of Array.isArray(group?.paths) ? (group.paths as unknown[]) : []) {
      if (typeof relative === 'string') await files.resolve(path.join(requested, relative), 'read');
    }
  }
  return folder;
}

/** A locator model folder named by a flow, resolved (with its locator.json when confined) through the run's file access. */
export async function resolveLocatorModelFolder(files: FileAccess, requested: string): Promise<string> {
  const folder = await files.resolve(requested, 'read');
  if (files.confined) await files.resolve(path.join(requested, LOCATOR_JSON), 'read');
  return folder;
}
