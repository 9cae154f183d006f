import path from 'node:path';
import { SqliteStorageConfigSchema } from './privacy-config.js';

/** The database file from the `storage` config section: `storage.file` (relative to the data dir) or <dataDir>/wiflow.db. */
export function resolveDatabaseFile(dataDir: string, storageSection: unknown): string {
  const config = SqliteStorageConfigSchema.parse(storageSection ?? {});
  return path.resolve(dataDir, config.file ?? 'wiflow.db');
}
