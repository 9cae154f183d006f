import { z } from 'zod';
import { HttpErrors, ROLES, defineRoute, roleRank, type RouteDefinition } from '@wiflow/core';
import type { IdentityService } from './identity-service.js';

/** ms since the epoch → ISO 8601 with milliseconds. */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const TokenGrant = {
  A: z.object({ access_token: z.string(), token_type: z.literal('bearer'), expires_in: z.number().int(), refresh_token: z.string(), refresh_expires_in: z.number().int() }),
  B: z.object({ access_token: z.string(), token_type: z.literal('bearer'), expires_in: z.number().int(), refresh_token: z.string(), refresh_expires_in: z.number().int() }),
};

const TokenBody = z.union([
  z.object({ grant_type: z.literal('password').optional(), username: z.string().min(1).max(256), password: z.string().min(1).max(1024) }).strict(),
  z.object({ grant_type: z.literal('refresh_token'), refresh_token: z.string().min(1).max(1024) }).strict(),
]);

const ApiKeyRecord = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  roles: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

/**
 * The identity routes (relative to /api/v1): tokens (password and refresh grants), revoke,
 * API keys. They name the rate-limit categories `auth` (token and revoke, limited by client
 * address) and `config` (keys), which the API serving them limits.
 */
export function identityRoutes(identity: IdentityService): RouteDefinition[] {
  const token = defineRoute({
    method: 'post',
    path: '/auth/token',
    summary: 'Obtain an access token',
    description:
      'Password grant: {username, password}. Refresh grant: {grant_type: "refresh_token", refresh_token}; the refresh token is single use and rotates (a reused one revokes its session).',
    tags: ['auth'],
    spec: true,
    access: 'public',
    category: 'auth',
    body: TokenBody,
    success: { status: 200, description: 'Tokens', ...TokenGrant },
    errors: [400, 401, 422, 503],
    async handler({ body }) {
      const b = body as z.output<typeof TokenBody>;
      const grant = 'refresh_token' in b ? await identity.refresh(b.refresh_token) : await identity.login(b.username, b.password);
      return { body: grant };
    },
  });

  const revoke = defineRoute({
    method: 'post',
    path: '/auth/revoke',
    summary: 'Revoke a refresh token and its session (logout)',
    tags: ['auth'],
    spec: false,
    access: 'public',
    category: 'auth',
    body: z.object({ refresh_token: z.string().min(1).max(1024) }).strict(),
    success: { status: 200, description: 'Revoked', A: z.object({ revoked: z.boolean() }), B: z.object({ revoked: z.boolean() }) },
    errors: [422, 503],
    async handler({ body }) {
      return { body: { revoked: await identity.revoke(body.refresh_token) } };
    },
  });

  const shapeKey = (r: { id: string; name: string; prefix: string; scopes: string[]; createdAt: number; expiresAt: number | null; lastUsedAt: number | null; revokedAt: number | null }) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    roles: r.scopes,
    created_at: iso(r.createdAt),
    expires_at: r.expiresAt === null ? null : iso(r.expiresAt),
    last_used_at: r.lastUsedAt === null ? null : iso(r.lastUsedAt),
    revoked_at: r.revokedAt === null ? null : iso(r.revokedAt),
  });

  const KeyBody = z
    .object({
      name: z.string().min(1).max(128),
      roles: z.array(z.enum(ROLES)).max(3).optional().describe('Roles the key carries (default: the caller\'s); never more than the caller has'),
      expires_in_days: z.number().int().min(1).max(3650).optional(),
    })
    .strict();
  const createKey = defineRoute({
    method: 'post',
    path: '/auth/api-keys',
    summary: 'Create an API key for the caller (shown once)',
    tags: ['auth'],
    spec: false,
    access: 'viewer',
    category: 'config',
    body: KeyBody,
    success: { status: 201, description: 'The key, shown only in this answer', A: ApiKeyRecord.extend({ key: z.string() }), B: ApiKeyRecord.extend({ key: z.string() }) },
    errors: [403, 422, 503],
    async handler({ body, principal }) {
      const b = body as z.output<typeof KeyBody>;
      const roles = b.roles ?? principal!.roles;
      if (roleRank(roles) > roleRank(principal!.roles)) throw HttpErrors.forbidden(ROLES[roleRank(roles)], principal!.roles);
      const created = await identity.storage().apiKeys.create({
        userId: principal!.userId,
        name: b.name,
        scopes: roles,
        expiresAt: b.expires_in_days ? Date.now() + b.expires_in_days * 86_400_000 : null,
      });
      return { status: 201, body: { ...shapeKey(created.record), key: created.key } };
    },
  });

  const listKeys = defineRoute({
    method: 'get',
    path: '/auth/api-keys',
    summary: "The caller's API keys (never the keys themselves)",
    tags: ['auth'],
    spec: false,
    access: 'viewer',
    category: 'config',
    success: { status: 200, description: 'Keys', A: z.object({ api_keys: z.array(ApiKeyRecord) }), B: z.array(ApiKeyRecord) },
    errors: [503],
    async handler({ principal, convention }) {
      const keys = (await identity.storage().apiKeys.list(principal!.userId)).map(shapeKey);
      return { body: convention === 'A' ? { api_keys: keys } : keys };
    },
  });

  const revokeKey = defineRoute({
    method: 'delete',
    path: '/auth/api-keys/{key_id}',
    summary: 'Revoke one of the caller\'s API keys (admins: anyone\'s)',
    tags: ['auth'],
    spec: false,
    access: 'viewer',
    category: 'config',
    params: z.object({ key_id: z.string().min(1).max(128) }),
    success: { status: 200, description: 'Revoked', A: z.object({ revoked: z.literal(true) }), B: z.object({ revoked: z.literal(true) }) },
    errors: [404, 503],
    async handler({ params, principal }) {
      const storage = identity.storage();
      const record = await storage.apiKeys.get(params.key_id);
      if (!record || (record.userId !== principal!.userId && !principal!.roles.includes('admin'))) throw HttpErrors.notFound('API key', params.key_id);
      await storage.apiKeys.revoke(record.id);
      return { body: { revoked: true as const } };
    },
  });

  return [token, revoke, createKey, listKeys, revokeKey];
}
