import { describe, expect, it } from 'vitest';
import { StudioConfigSchema } from './index.js';

describe('studio config', () => {
  it('fills every default when the section is absent or partial', () => {
    const absent = StudioConfigSchema.parse(undefined);
    expect(absent).toMatchObject({ maxFileSizeUploadMb: 100, eventDelivery: 'streaming', defaultFolderName: 'Starter Project', autoLogin: false });
    expect(absent.featureFlags).toEqual({ mvp_components: false, ext_deployments: false });
    expect(absent.mcp).toEqual({ allowedOrigins: [], oauthCacheMs: 60_000 });
    expect(StudioConfigSchema.parse({ mcp: { installHome: '/h' } }).mcp).toEqual({ installHome: '/h', allowedOrigins: [], oauthCacheMs: 60_000 });
  });

  it('rejects unknown feature flags and bad values', () => {
    expect(StudioConfigSchema.safeParse({ featureFlags: { surprise: true } }).success).toBe(false);
    expect(StudioConfigSchema.safeParse({ eventDelivery: 'carrier-pigeon' }).success).toBe(false);
    expect(StudioConfigSchema.safeParse({ maxFileSizeUploadMb: 0 }).success).toBe(false);
  });
});
