import { z } from 'zod';
import type { PrivacySettings } from '@wiflow/core';

/** The pose spec names these keys in snake_case; runtime config sections are camelCase. Both are accepted. */
const SNAKE_TO_CAMEL: Record<string, string> = {
  data_retention_days: 'dataRetentionDays',
  anonymize_data: 'anonymizeData',
  enable_encryption: 'enableEncryption',
};

/**
 * The runtime `privacy` section every storage honours (pose spec: privacy). One schema for
 * every plugin that declares the section, so whichever registers it, the same keys are read.
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

/** Privacy settings from a `privacy` config value (camelCase or snake_case keys). */
export function toPrivacySettings(value: unknown): PrivacySettings {
  return PrivacyConfigSchema.parse(value) as PrivacySettings;
}
