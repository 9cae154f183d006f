import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer, waitFor, type TestServer } from './fixtures.test-support.js';
import { revokeUserTokens } from '@wiflow/plugin-identity';

/** Avoid a fixed window rolling over in the middle of a count. */
async function awayFromHourBoundary(): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('identity: proxies, revocation and rate-limit buckets', () => {
  let s: TestServer;
  const status = (headers: Record<string, string>) => fetch(`${s.url}/api/v1/system/status`, { headers }).then((r) => r.status);
  const login = async (username: string, password: string) => {
    const res = await fetch(`${s.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string; refresh_token: string };
  };
  beforeAll(async () => {
    s = await startTestServer({ config: { api: { rateLimits: { auth: { limit: 1000, windowSeconds: 3600 } } } } });
    await s.token('viewer');
    await s.token('operator');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an access token stops working once its session is revoked (HTTP and an open WebSocket)', async () => {
    const grant = await login('viewer', 'viewer-password-123');
    const bearer = { authorization: `Bearer ${grant.access_token}` };
    expect(await status(bearer)).toBe(200);
    const socket = new WebSocket(`${s.url.replace('http', 'ws')}/ws/pose?token=${grant.access_token}`);
    await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const revoked = await fetch(`${s.url}/api/v1/auth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: grant.refresh_token }) });
    expect(((await revoked.json()) as { revoked: boolean }).revoked).toBe(true);
    // The instance that revoked knows at once.
    expect(await status(bearer)).toBe(401);
    const t0 = Date.now();
    expect(await closed).toEqual({ code: 4001, reason: 'credentials revoked or expired' });
    expect(Date.now() - t0).toBeLessThan(5000);
    // Another session of the same user is untouched.
    const other = await login('viewer', 'viewer-password-123');
    expect(await status({ authorization: `Bearer ${other.access_token}` })).toBe(200);
  });

  it('a password change made by another process (the CLI, straight in storage) kills older access tokens within revocationCheckSeconds', async () => {
    const grant = await login('operator', 'operator-password-123');
    const bearer = { authorization: `Bearer ${grant.access_token}` };
    expect(await status(bearer)).toBe(200);
    const user = (await s.runtime.storage.users.getByUsername('operator'))!;
    await s.runtime.storage.users.setPassword(user.id, 'a-new-operator-password');
    const changedAt = Date.now();
    await revokeUserTokens(s.runtime.storage, user.id);
    await waitFor(async () => (await status(bearer)) === 401, 5000);
    expect(Date.now() - changedAt).toBeLessThan(s.api.apiConfig().auth.revocationCheckSeconds * 1000 + 1000);
    // The refresh token is dead too, and a fresh login works.
    const refreshed = await fetch(`${s.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: grant.refresh_token }) });
    expect(refreshed.status).toBe(401);
    const fresh = await login('operator', 'a-new-operator-password');
    expect(await status({ authorization: `Bearer ${fresh.access_token}` })).toBe(200);
  });

  it('the login limit keys on the TCP peer: rotating X-Forwarded-For from loopback gains nothing', async () => {
    s.runtime.config.update({ api: { rateLimits: { auth: { limit: 10, windowSeconds: 3600 } } } });
    await awayFromHourBoundary();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${s.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((st) => st === 429).length).toBeGreaterThanOrEqual(2);
    s.runtime.config.update({ api: { rateLimits: { auth: { limit: 1000, windowSeconds: 3600 } } } });
  });

  it('a user\'s API keys share the user\'s bucket: minting keys does not multiply the limit; 429 carries the spec headers', async () => {
    const viewer = await s.token('viewer');
    const keys: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const res = await fetch(`${s.url}/api/v1/auth/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${viewer}` }, body: JSON.stringify({ name }) });
      keys.push(((await res.json()) as { key: string }).key);
    }
    s.runtime.config.update({ api: { rateLimits: { analytics: { limit: 4, windowSeconds: 3600 } } } });
    await awayFromHourBoundary();
    const answers: Response[] = [];
    for (let i = 0; i < 9; i++) answers.push(await fetch(`${s.url}/api/v1/analytics/summary`, { headers: { 'x-api-key': keys[i % keys.length] } }));
    expect(answers.filter((r) => r.status !== 429)).toHaveLength(4);
    const limited = answers.at(-1)!;
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('4');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(limited.headers.get('x-ratelimit-window')).toBe('3600');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as any).error.code).toBe('RATE_LIMIT_EXCEEDED');
    // The same user with a token is in the same bucket.
    expect((await fetch(`${s.url}/api/v1/analytics/summary`, { headers: { authorization: `Bearer ${viewer}` } })).status).toBe(429);
    s.runtime.config.update({ api: { rateLimits: { analytics: { limit: 500, windowSeconds: 3600 } } } });
  });
});

describe('a configured trusted proxy', () => {
  it('server.trustProxy makes the forwarded address the client address (its own bucket)', async () => {
    const s = await startTestServer({ config: { server: { trustProxy: 'loopback' }, api: { rateLimits: { auth: { limit: 2, windowSeconds: 3600 } } } } });
    try {
      await awayFromHourBoundary();
      const attempt = (forwarded: string) =>
        fetch(`${s.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded }, body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }) }).then((r) => r.status);
      expect([await attempt('198.51.100.1'), await attempt('198.51.100.1'), await attempt('198.51.100.1')]).toEqual([401, 401, 429]);
      expect(await attempt('198.51.100.2')).toBe(401);
    } finally {
      await s.close();
    }
  });
});
