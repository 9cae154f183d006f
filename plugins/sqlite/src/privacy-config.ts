import { z } from 'zod';

/** The runtime `privacy` section is declared once, in @wiflow/storage-kit (snake_case keys accepted). */
export { PrivacyConfigSchema, toPrivacySettings } from '@wiflow/storage-kit';

/** SQLite options read from the core `storage` config section (extra keys beside `kind`). */
export const SqliteStorageConfigSchema = z.object({
  file: z.string().min(1).optional().describe('Database file; default <dataDir>/wiflow.db'),
  flushIntervalMs: z.number().int().min(1).max(60_000).default(100).describe('Longest a buffered record waits before it is written'),
  flushMaxRecords: z.number().int().min(1).max(1_000_000).default(10_000).describe('Buffered records that trigger a write before the interval'),
  retentionIntervalMs: z.number().int().min(1000).default(3_600_000).describe('How often retention runs'),
});
