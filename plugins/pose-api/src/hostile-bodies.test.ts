import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './fixtures.test-support.js';

/** `[[[…]]]` nested `depth` deep. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** `{"username":{"a":{"a":…}}}`: deep inside a field the schema validates (its value is echoed). */
const nestedField = (depth: number) => `{"username":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},"password":"x"}`;

for (const convention of ['A', 'B'] as const) {
  describe(`hostile JSON bodies, convention ${convention}`, () => {
    let s: TestServer;
    let admin: string;
    beforeAll(async () => {
      s = await startTestServer({ convention });
      admin = await s.token('admin');
    });
    afterAll(async () => {
      await s?.close();
    });
    /**
     * Send the headers of a `declared`-byte JSON body and only its first bytes; resolve with the
     * status once the server answers (it must answer without waiting for the rest of the body).
     */
    const answerToUnfinishedBody = (method: string, path: string, headers: Record<string, string>, declared: number) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${s.url}${path}`, { method, headers: { 'content-type': 'application/json', 'content-length': String(declared), ...headers } });
        const unanswered = setTimeout(() => (req.destroy(), reject(new Error(`${method} ${path}: no answer while the body was unfinished`))), 5000);
        req.on('response', (res) => {
          clearTimeout(unanswered);
          res.resume();
          req.destroy();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', (error) => (clearTimeout(unanswered), reject(error)));
        req.write('{"query":');
      });
    const errorOf = (body: any) => (convention === 'A' ? body.error : body.error);

    it('a body nested 5,000 deep is a 4xx in the envelope, never a crash, on public and protected routes', async () => {
      const routes: [string, string, string | undefined][] = [
        ['POST', '/api/v1/auth/token', undefined],
        ['POST', '/api/v1/auth/revoke', undefined],
        ['POST', '/api/v1/pose/query', admin],
        ['PUT', '/api/v1/config', admin],
        ['POST', '/api/v1/system/stop', admin],
        ['POST', '/api/v1/auth/api-keys', admin],
      ];
      for (const [method, path, token] of routes) {
        for (const body of [nested(5000), nestedField(5000), `{"refresh_token":${nested(5000)}}`]) {
          const res = await fetch(`${s.url}${path}`, { method, body, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
          expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `${method} ${path}`).toBeLessThan(500);
          const answer = (await res.json()) as any;
          expect(errorOf(answer).code).toBe('VALIDATION_ERROR');
          if (convention === 'B') expect(answer.success).toBe(false);
        }
      }
      expect((await fetch(`${s.url}/api/v1/health`)).status).toBe(200);
    });

    it('authenticates and authorises before reading the body: 401/403 arrive while the body is still unsent', async () => {
      expect(await answerToUnfinishedBody('POST', '/api/v1/pose/query', {}, 4_000_000)).toBe(401);
      expect(await answerToUnfinishedBody('PUT', '/api/v1/config', { authorization: `Bearer ${await s.token('viewer')}` }, 4_000_000)).toBe(403);
      expect(await answerToUnfinishedBody('POST', '/api/v1/system/stop', { authorization: 'Bearer not-a-token' }, 4_000_000)).toBe(401);
    });

    it('a body over the size limit is 413 and one that is not JSON 400, in the envelope', async () => {
      const big = await fetch(`${s.url}/api/v1/pose/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: `{"a":"${'x'.repeat(9 * 1024 * 1024)}"}` });
      expect(big.status).toBe(413);
      expect(errorOf(await big.json()).code).toBe('VALIDATION_ERROR');
      const bad = await fetch(`${s.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username": "a\u0000", nope' });
      expect(bad.status).toBe(400);
      expect(errorOf(await bad.json()).code).toBe('VALIDATION_ERROR');
      const gzipClaim = await fetch(`${s.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'br-nonsense' }, body: '{}' });
      expect(gzipClaim.status).toBe(415);
      expect(errorOf(await gzipClaim.json()).code).toBe('VALIDATION_ERROR');
    });

    it('valid JSON that is not an object (null, a number, a string) is 422 "must be a JSON object", not "not valid JSON"', async () => {
      for (const body of ['null', ' 42', '"admin"', 'true']) {
        // (pose/query, not auth/token: the authentication category allows 10 requests a minute and later tests need them)
        const res = await fetch(`${s.url}/api/v1/pose/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body });
        expect(res.status, body).toBe(422);
        const error = errorOf(await res.json());
        expect(error.code, body).toBe('VALIDATION_ERROR');
        expect(JSON.stringify(error), body).not.toContain('not valid JSON');
        expect(JSON.stringify(error.details.field_errors), body).toContain('must be a JSON object');
      }
    });

    it('a path parameter that is not valid percent-encoding is a 400 in the envelope', async () => {
      for (const path of ['/api/v1/pose/tracking/%C0%AE', '/api/v1/system/reference/%E0%A4%A', '/api/v1/pose/tracking/%ZZ']) {
        const answer = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
        expect(answer.status, path).toBe(400);
        const body = (await answer.json()) as any;
        expect(errorOf(body), path).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('Failed to decode param') });
        expect(convention === 'A' ? body.error.request_id : body.request_id, path).toBe(answer.headers.get('x-request-id'));
      }
    });

    it('a value echoed in a validation error is bounded: deep and long values are cut, never serialised whole', async () => {
      // 40 deep passes the depth limit but its echo is still cut short.
      const res = await fetch(`${s.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'x'.repeat(100_000), password: JSON.parse(nested(40)) }),
      });
      expect(res.status).toBe(422);
      const text = await res.text();
      expect(text.length).toBeLessThan(4000);
      if (convention === 'A') {
        const received = JSON.parse(text).error.details.field_errors.map((f: any) => f.received_value);
        expect(JSON.stringify(received)).toContain('truncated');
      }
    });
  });
}
