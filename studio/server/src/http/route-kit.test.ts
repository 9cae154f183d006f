import { describe, expect, it } from 'vitest';
import { testStudioForFile } from '../testing/test-plugins.js';

const s = await testStudioForFile();

describe('a flow service route on core\'s route kit (GET /api/v1/studio/jobs)', () => {
  it('answers in the flow service\'s terms: 401 {detail, code} with WWW-Authenticate, FastAPI 422 for a bad query, bare JSON', async () => {
    const anonymous = await fetch(`${s.url}/api/v1/studio/jobs`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toEqual({ detail: expect.any(String), code: 'WIFLOW_STUDIO_UNAUTHENTICATED' });
    expect((await fetch(`${s.url}/api/v1/studio/jobs`, { headers: { authorization: 'Bearer forged' } })).status).toBe(401);

    const bad = await s.http.get('/api/v1/studio/jobs?limit=0').set(s.alice.auth).expect(422);
    expect(bad.body).toMatchObject({ code: 'WIFLOW_STUDIO_VALIDATION', detail: [{ loc: ['query', 'limit'], msg: expect.any(String), type: expect.any(String) }] });
    expect((await s.http.get('/api/v1/studio/jobs').set(s.alice.auth).expect(200)).body).toEqual([]);
  });
});
