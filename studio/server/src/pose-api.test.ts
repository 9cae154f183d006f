// The flow service with the real authentication of the pose API plugin (users, JWT, API keys).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Runtime } from '@wiflow/core';
import { createIdentityPlugin } from '@wiflow/plugin-identity';
import { createPoseApiPlugin } from '@wiflow/plugin-pose-api';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import studioServerPlugin from './index.js';
import { testNodesPlugin, upperFlow } from './testing/test-plugins.js';

let runtime: Runtime;
let http: supertest.Agent;
let url: string;

beforeAll(async () => {
  const env = { WIFLOW_ADMIN_USER: 'admin', WIFLOW_ADMIN_PASSWORD: 'admin-password-123' };
  runtime = await Runtime.create({
    discover: false,
    dataDir: mkdtempSync(path.join(tmpdir(), 'wiflow-studio-poseapi-')),
    config: { storage: { kind: 'sqlite' } },
    // the pose API is set up first, so its /api/v1 router sits in front of the flow service's routes
    plugins: [sqlitePlugin, createIdentityPlugin({ env, print: () => {} }), createPoseApiPlugin({ env }), studioServerPlugin, testNodesPlugin],
  });
  url = (await runtime.listen(0, '127.0.0.1')).url;
  http = supertest.agent(url);
});
afterAll(async () => {
  await runtime?.stop(3000);
});

describe('with the pose API plugin', () => {
  it('a revoked login\'s access token stops working on the flow service too', async () => {
    const login = await http.post('/api/v1/auth/token').send({ username: 'admin', password: 'admin-password-123' }).expect(200);
    const auth = { Authorization: `Bearer ${login.body.access_token as string}` };
    await http.get('/api/v1/flows/').set(auth).expect(200);
    await http.post('/api/v1/auth/revoke').send({ refresh_token: login.body.refresh_token }).expect(200);
    await http.get('/api/v1/flows/').set(auth).expect(401);
  });

  it('authenticates flow service calls with its JWTs and API keys, and owns /api/v1/config', async () => {
    const login = await http.post('/api/v1/auth/token').send({ username: 'admin', password: 'admin-password-123' }).expect(200);
    const token = login.body.access_token as string;
    expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    const auth = { Authorization: `Bearer ${token}` };
    const created = await http.post('/api/v1/flows/').set(auth).send({ name: 'Real auth', data: upperFlow(), mcp_enabled: true }).expect(201);
    await http.get('/api/v1/flows/').expect(401);
    await http.get('/api/v1/flows/').set({ Authorization: `Bearer ${token}x` }).expect(401);
    const key = (await http.post('/api/v1/auth/api-keys').set(auth).send({ name: 'flows' }).expect(201)).body.key as string;
    const run = await http.post(`/api/v1/run/${created.body.id}`).set('x-api-key', key).send({ input_value: 'real' }).expect(200);
    expect(run.body.outputs[0].outputs[0].results.result).toBe('REAL');
    // the pose service keeps /api/v1/config; the flow service's ConfigResponse is at /api/v1/studio/config
    const poseConfig = await http.get('/api/v1/config').set(auth);
    expect(poseConfig.body).not.toHaveProperty('default_folder_name');
    expect((await http.get('/api/v1/studio/config').expect(200)).body).toHaveProperty('default_folder_name');

    // an apikey-protected project accepts the owner's key
    const projectId = created.body.folder_id as string;
    await http.patch(`/api/v1/mcp/project/${projectId}`).set(auth).send({ settings: [], auth_settings: { auth_type: 'apikey' } }).expect(200);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp/project/${projectId}/streamable`), { requestInit: { headers: { 'x-api-key': key } } }));
    const result = await client.callTool({ name: 'real_auth', arguments: { text: 'mcp' } });
    expect(result.structuredContent).toEqual({ result: 'MCP' });
    await client.close();
    await expect(
      new Client({ name: 't', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp/project/${projectId}/streamable`))),
    ).rejects.toThrow();
  });
});
