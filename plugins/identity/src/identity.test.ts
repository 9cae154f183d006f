import { afterEach, describe, expect, it } from 'vitest';
import { apiConventionInForce, definePlugin, routeRouter, type Runtime } from '@wiflow/core';
import { createTestRuntime } from '@wiflow/core/testing';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import { createIdentityPlugin, identityOf, identityRoutes } from './index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An API of its own that mounts the identity routes with core's route kit, as the pose API does. */
const hostPlugin = definePlugin({
  name: 'test:identity-host',
  dependencies: ['@wiflow/plugin-identity'],
  setup(ctx) {
    ctx.registerRoutes((http) => {
      http.app.use('/api/v1', routeRouter(identityRoutes(identityOf(ctx)), { hooks: ctx.hooks, logger: ctx.logger, convention: () => apiConventionInForce({}, undefined) }));
    });
  },
});

async function start(): Promise<{ runtime: Runtime; url: string; password: string }> {
  const printed: string[] = [];
  const runtime = await createTestRuntime({
    plugins: [sqlitePlugin, createIdentityPlugin({ print: (line) => printed.push(line), env: { WIFLOW_ADMIN_USER: 'root' } }), hostPlugin],
  });
  const { url } = await runtime.listen(0, '127.0.0.1');
  cleanups.push(() => runtime.stop(5000));
  const password = printed.find((line) => /^wiflow: \S+$/.test(line))!.slice('wiflow: '.length);
  return { runtime, url, password };
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

describe('plugin-identity without the pose API', () => {
  it('creates the first admin, grants tokens over its routes, and vouches for tokens and API keys through hooks.authenticate', async () => {
    const { runtime, url, password } = await start();
    expect(await runtime.storage.users.getByUsername('root')).toMatchObject({ roles: ['admin'] });

    expect((await call(url, 'POST', '/auth/token', { username: 'root', password: 'wrong-password' })).status).toBe(401);
    const grant = await call(url, 'POST', '/auth/token', { username: 'root', password });
    expect(grant.status).toBe(200);
    expect(grant.json).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), refresh_token: expect.stringMatching(/^wfr_/) });
    const bearer = { authorization: `Bearer ${grant.json.access_token}` };

    const created = await call(url, 'POST', '/auth/api-keys', { name: 'ci', roles: ['viewer'] }, bearer);
    expect(created.status).toBe(201);
    const principal = await runtime.hooks.authenticate.promise({ apiKey: created.json.key, request: undefined as never });
    expect(principal).toMatchObject({ username: 'root', roles: ['viewer'] });
    expect(await runtime.hooks.authenticate.promise({ bearer: grant.json.access_token, request: undefined as never })).toMatchObject({ username: 'root', roles: ['admin'] });

    // Refresh rotation: the used refresh token is refused, and its session (the access token too) is revoked.
    const rotated = await call(url, 'POST', '/auth/token', { grant_type: 'refresh_token', refresh_token: grant.json.refresh_token });
    expect(rotated.status).toBe(200);
    const reused = await call(url, 'POST', '/auth/token', { grant_type: 'refresh_token', refresh_token: grant.json.refresh_token });
    expect(reused.status).toBe(401);
    expect((await call(url, 'GET', '/auth/api-keys', undefined, bearer)).status).toBe(401);
    expect(JSON.stringify(await call(url, 'GET', '/auth/api-keys', undefined, { 'x-api-key': created.json.key }))).not.toContain(created.json.key);
  });
});
