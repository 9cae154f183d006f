import { z } from 'zod';

/** `api.auth`: token lifetimes, issuer and how long a server trusts what it read about revocations. */
export const AuthConfigSchema = z
  .object({
    accessTokenTtlSeconds: z.number().int().min(30).max(86_400).default(3600).describe('Lifetime of an access token (expires_in)'),
    refreshTokenTtlSeconds: z.number().int().min(60).max(90 * 86_400).default(14 * 86_400).describe('Lifetime of a refresh token'),
    issuer: z.string().default('wiflow').describe('JWT issuer (iss) and audience (aud)'),
    revocationCheckSeconds: z
      .number()
      .min(0)
      .max(60)
      .default(2)
      .describe('Longest a server trusts what it read about revoked sessions, password changes and disabled users (revocations elsewhere take effect within this time)'),
  })
  .prefault({});

/** The validated `api.auth` section. */
export type AuthConfig = z.output<typeof AuthConfigSchema>;
