import { describe, expect, it } from 'vitest';
import { PrivacyConfigSchema, toPrivacySettings } from './index.js';

describe('privacy config section', () => {
  it('reads the spec snake_case keys and the runtime camelCase keys alike', () => {
    const snake = toPrivacySettings({ data_retention_days: 7, anonymize_data: true, enable_encryption: true });
    const camel = toPrivacySettings({ dataRetentionDays: 7, anonymizeData: true, enableEncryption: true });
    expect(snake).toEqual({ dataRetentionDays: 7, anonymizeData: true, enableEncryption: true });
    expect(camel).toEqual(snake);
  });

  it('defaults every key and rejects out-of-range retention', () => {
    expect(toPrivacySettings(undefined)).toEqual({ dataRetentionDays: 30, anonymizeData: false, enableEncryption: false });
    const bad = PrivacyConfigSchema.safeParse({ data_retention_days: 0 });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('dataRetentionDays');
  });
});
