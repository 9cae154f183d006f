import { z } from 'zod';
import type { PrivacySettings } from '@wiflow/core';

const SNAKE_TO_CAMEL: Record<string, string> = {
  data_retention_days: 'dataRetentionDays',
  anonymize_data: 'anonymizeData',
  enable_encryption: 'enableEncryption',
};

/** The runtime `privacy` section (same schema as plugin-sqlite's and the pose API's; snake_case keys accepted). */
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

/** Read privacy settings from the `privacy` config value. */
export function toPrivacySettings(value: unknown): PrivacySettings {
  return PrivacyConfigSchema.parse(value) as PrivacySettings;
}
