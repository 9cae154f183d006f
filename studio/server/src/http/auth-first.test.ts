import { describe, expect, it } from 'vitest';
import { testStudioForFile, upperFlow } from '../testing/test-plugins.js';

const s = await testStudioForFile({ studio: { webhookAuthEnable: true } });

/** POST a body as is, without credentials. */
function anonymous(path: string, body: string | Buffer, contentType = 'application/json'): Promise<Response> {
  return fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
}

describe('the flow service authenticates before it reads a body', () => {
  it('answers 401, not a parse or size error, to anonymous malformed or oversized bodies', async () => {
    const project = await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Guarded MCP' }).expect(201);
    await s.http.patch(`/api/v1/mcp/project/${project.body.id}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'apikey' } }).expect(200);
    const flow = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'hooked', data: upperFlow(), webhook: true }).expect(201);
    const paths = [
      '/api/v1/flows/',
      `/api/v1/build/${flow.body.id}/flow`,
      `/api/v1/run/${flow.body.id}`,
      `/api/v1/webhook/${flow.body.id}`,
      `/api/v1/mcp/project/${project.body.id}/streamable`,
      `/api/v1/mcp/project/${project.body.id}?sessionId=x`,
      '/api/v1/studio/validate',
    ];
    const huge = Buffer.alloc(60 * 1024 * 1024, 0x20);
    for (const path of paths) {
      const malformed = await anonymous(path, '{"not json');
      expect(malformed.status, path).toBe(401);
      expect(((await malformed.json()) as { code: string }).code).toBe('WIFLOW_STUDIO_UNAUTHENTICATED');
      const big = await anonymous(path, huge);
      expect(big.status, `${path} (60 MB)`).toBe(401);
    }
  });
});
