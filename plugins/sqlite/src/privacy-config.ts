import { z } from 'zod';
import type { PrivacySettings } from '@wiflow/core';

const SNAKE_TO_CAMEL: Record<string, string> = {
  data_retention_days: 'dataRetentionDays',
  anonymize_data: 'anonymizeData',
  enable_encryption: 'enableEncryption',
};

/**
 * The runtime `privacy` section storage honours (pose spec: privacy). Keys are camelCase like
 * every runtime config section; the spec's snake_case names are accepted too.
 */
export const PrivacyConfigSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[SNAKE_TO_CAMEL[key] ?? key] = v;
    return out;
  },
  z
    .object({
      dataRetentionDays: z.number().int().min(1).max(3650).default(30).describe('Pose, event, alert and metric data older than this is deleted'),
      anonymizeData: z.boolean().default(false).describe('Never store person or track ids'),
      enableEncryption: z.boolean().default(false).describe('Seal flows, projects and messages at rest with the runtime secret key'),
    })
    .prefault({}),
);

/** Read privacy settings from a validated `privacy` config value. */
export function toPrivacySettings(value: unknown): PrivacySettings {
  return PrivacyConfigSchema.parse(value) as PrivacySettings;
}

/** SQLite options read from the core `storage` config section (extra keys beside `kind`). */
export const SqliteStorageConfigSchema = z.object({
  file: z.string().min(1).optional().describe('Database file; default <dataDir>/wiflow.db'),
  flushIntervalMs: z.number().int().min(1).max(60_000).default(100).describe('Longest a buffered record waits before it is written'),
  flushMaxRecords: z.number().int().min(1).max(1_000_000).default(10_000).describe('Buffered records that trigger a write before the interval'),
  retentionIntervalMs: z.number().int().min(1000).default(3_600_000).describe('How often retention runs'),
});
