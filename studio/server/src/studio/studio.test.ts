import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testStudioForFile, upperFlow } from '../testing/test-plugins.js';
import { OAuthValidator, studioErrorCatalogue } from '../index.js';
import { isLoopback } from '../http/auth.js';

const s = await testStudioForFile();

describe('studio endpoints', () => {
  it('describes node types', async () => {
    const res = await s.http.get('/api/v1/studio/node-types').set(s.alice.auth).expect(200);
    const upper = res.body.find((t: { type: string }) => t.type === 'stest.upper');
    expect(upper).toMatchObject({ title: 'Upper case', plugin: 'studio-test-nodes', inputs: { text: { type: 'any' } } });
    expect(upper.configSchema.properties.suffix).toBeDefined();
    expect(res.body.find((t: { type: string }) => t.type === 'stest.secret').configSchema.properties.apiKey).toMatchObject({ writeOnly: true, format: 'password' });
    await s.http.get('/api/v1/studio/node-types').expect(401);
  });

  it('validates a flow: every problem at once, and the io schemas', async () => {
    const ok = await s.http.post('/api/v1/studio/validate').set(s.alice.auth).send({ data: upperFlow() }).expect(200);
    expect(ok.body).toMatchObject({ valid: true, problems: [] });
    expect(ok.body.io.input.properties.text).toMatchObject({ type: 'string' });
    const broken = upperFlow();
    broken.nodes[1].data.config = { suffix: 42 };
    broken.edges.push({ id: 'bad', source: 'ghost', sourceHandle: 'x', target: 'out', targetHandle: 'value' });
    const bad = await s.http.post('/api/v1/studio/validate').set(s.alice.auth).send({ data: broken }).expect(200);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.problems.map((p: { code: string }) => p.code).sort()).toEqual(['dangling_edge', 'invalid_config']);
    await s.http.post('/api/v1/studio/validate').set(s.alice.auth).send({ data: { nodes: 'x' } }).expect(422);
  });

  it('deploys a flow as a stream pipeline with live counters (JSON and SSE), undeploys it', async () => {
    const data = {
      nodes: [
        { id: 'tick', position: { x: 0, y: 0 }, data: { nodeType: 'stest.ticker', config: { everyMs: 2 } } },
        { id: 'sink', position: { x: 200, y: 0 }, data: { nodeType: 'stest.sink', config: {} } },
      ],
      edges: [{ id: 'e', source: 'tick', sourceHandle: 'value', target: 'sink', targetHandle: 'value' }],
    };
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Live', data }).expect(201)).body;
    const dep = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flow.id }).expect(201);
    expect(dep.body).toMatchObject({ flow_id: flow.id, id: expect.any(String) });
    const list = await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200);
    expect(list.body.map((d: { id: string }) => d.id)).toContain(dep.body.id);
    expect((await s.http.get('/api/v1/studio/deployments').set(s.bob.auth).expect(200)).body).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    const counters = await s.http.get(`/api/v1/studio/deployments/${dep.body.id}/counters`).set(s.alice.auth).expect(200);
    expect(counters.body.counters.sink.in).toBeGreaterThan(0);
    expect(counters.body.counters.tick.out).toBeGreaterThan(0);
    await s.http.get(`/api/v1/studio/deployments/${dep.body.id}/counters`).set(s.bob.auth).expect(404);

    const frames: { counters: { sink: { in: number } } }[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${s.url}/api/v1/studio/deployments/${dep.body.id}/counters/stream?interval_ms=100`, { headers: s.alice.auth }, (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (const block of buffer.split('\n\n').slice(0, -1)) {
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (data) frames.push(JSON.parse(data.slice(6)));
          }
          buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
          if (frames.length >= 2) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', (e) => (frames.length >= 2 ? resolve() : reject(e)));
    });
    expect(frames[1].counters.sink.in).toBeGreaterThanOrEqual(frames[0].counters.sink.in);

    await s.http.delete(`/api/v1/studio/deployments/${dep.body.id}`).set(s.alice.auth).expect(204);
    await s.http.get(`/api/v1/studio/deployments/${dep.body.id}`).set(s.alice.auth).expect(404);
    expect(s.runtime.pipelines.has(dep.body.id)).toBe(false);
    const draft = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Not deployable', data: { nodes: [{ id: 'x', position: { x: 0, y: 0 }, data: { nodeType: 'nope' } }], edges: [] } }).expect(201)).body;
    const refused = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: draft.id }).expect(422);
    expect(refused.body.details.problems[0].code).toBe('unknown_node_type');
  });

  it('refuses to deploy a job flow with a message that says to run it, and runs it as a job', async () => {
    const data = {
      nodes: [
        { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'text', kind: 'text' } } },
        { id: 'out', position: { x: 200, y: 0 }, data: { nodeType: 'io.output', config: { name: 'echo' } } },
      ],
      edges: [{ id: 'e', source: 'in', sourceHandle: 'value', target: 'out', targetHandle: 'value' }],
    };
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Echo job', data }).expect(201)).body;
    const before = s.runtime.pipelines.size;
    const refused = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flow.id }).expect(422);
    expect(refused.body.code).toBe('WIFLOW_STUDIO_JOB_FLOW_NOT_DEPLOYABLE');
    expect(refused.body.detail).toBe('Not deployed: "Echo job" is a job flow (it has Job input or Job output nodes), which runs once per request; run it as a job (Run… in the studio, POST /api/v1/run/{id}) instead');
    expect(s.runtime.pipelines.size).toBe(before);
    const ran = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { text: 'hello' } }).expect(200);
    expect(JSON.stringify(ran.body)).toContain('hello');
  });
});

describe('deployments: the server\'s own pipelines and conflicts', () => {
  // A ticker → sink flow whose nodes name an environment (as csi.signal-chain's environmentId does).
  const tickerFlow = (environmentId: string) => ({
    nodes: [
      { id: 'tick', position: { x: 0, y: 0 }, data: { nodeType: 'stest.ticker', config: { everyMs: 5, environmentId } } },
      { id: 'sink', position: { x: 200, y: 0 }, data: { nodeType: 'stest.sink', config: {} } },
    ],
    edges: [{ id: 'e', source: 'tick', sourceHandle: 'value', target: 'sink', targetHandle: 'value' }],
  });

  it('lists the pipeline the server started as a running deployment linked to a stored flow, and refuses a second writer', async () => {
    expect(s.runtime.config.update({ studio: { examplesOwner: 'alice' } }).errors).toEqual([]);
    // What `wiflow serve` does with its pipeline file (plugin-pose-api's SystemController).
    const source = path.join(s.dataDir, 'server-pipeline.json');
    const serverPipeline = await s.runtime.deploy(tickerFlow('lab'), { id: 'pose-api:system', name: 'Server demo', source });
    try {
      const listed = (await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200)).body as Record<string, unknown>[];
      const server = listed.find((d) => d.id === 'pose-api:system');
      expect(server).toEqual({
        id: 'pose-api:system', flow_id: expect.stringMatching(/^[0-9a-f-]{36}$/), flow_name: 'Server demo', status: 'running', error: null, origin: 'server',
        environment_id: 'lab', environment_ids: ['lab'], started_at: new Date(serverPipeline.startedAt).toISOString(), counters: expect.objectContaining({ tick: expect.any(Object) }),
      });
      // The linked flow is a stored flow of the examples owner, so the editor can open it; the link holds.
      const flow = (await s.http.get(`/api/v1/flows/${server!.flow_id}`).set(s.alice.auth).expect(200)).body;
      expect(flow).toMatchObject({ name: 'Server demo' });
      expect(flow.data.nodes.map((n: { id: string }) => n.id)).toEqual(['tick', 'sink']);
      expect((await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200)).body.find((d: { id: string }) => d.id === 'pose-api:system').flow_id).toBe(server!.flow_id);
      // Every user sees the server's pipelines; a flow filter finds it.
      expect((await s.http.get('/api/v1/studio/deployments').set(s.bob.auth).expect(200)).body.map((d: { id: string }) => d.id)).toContain('pose-api:system');
      expect((await s.http.get(`/api/v1/studio/deployments?flow_id=${server!.flow_id}`).set(s.alice.auth).expect(200)).body.map((d: { id: string }) => d.id)).toEqual(['pose-api:system']);
      expect((await s.http.get(`/api/v1/studio/deployments?flow_id=${flow.folder_id}`).set(s.alice.auth).expect(200)).body).toEqual([]);
      await s.http.get('/api/v1/studio/deployments?flow_id=nope').set(s.alice.auth).expect(422);

      // Deploying the running flow again, or another flow writing the same environment: 409 naming the running one.
      const again = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: server!.flow_id }).expect(409);
      expect(again.body.code).toBe('WIFLOW_STUDIO_DEPLOYMENT_CONFLICT');
      expect(again.body.detail).toBe('Not deployed: deployment pose-api:system ("Server demo", started by the server) is running and it runs this flow; stop it first');
      const sameRoom = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Also the lab', data: tickerFlow('lab') }).expect(201)).body;
      const clash = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: sameRoom.id }).expect(409);
      expect(clash.body.detail).toContain('deployment pose-api:system ("Server demo", started by the server) is running and it writes environment "lab"');
      expect(s.runtime.pipelines.size).toBe(1);

      // Another environment deploys; its second deployment is refused naming the first.
      const other = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Garage', data: tickerFlow('garage') }).expect(201)).body;
      const first = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: other.id }).expect(201)).body;
      expect(first).toMatchObject({ flow_id: other.id, flow_name: 'Garage', status: 'running', origin: 'studio', environment_id: 'garage' });
      const second = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: other.id }).expect(409);
      expect(second.body.detail).toContain(`deployment ${first.id} ("Garage", started by the studio) is running and it runs this flow`);
      await s.http.delete(`/api/v1/studio/deployments/${first.id}`).set(s.alice.auth).expect(204);

      // A flow writing two environments names both (environment_id keeps the first).
      const wards = tickerFlow('ward-a');
      wards.nodes.push({ id: 'tick2', position: { x: 0, y: 200 }, data: { nodeType: 'stest.ticker', config: { everyMs: 5, environmentId: 'ward-b' } } });
      wards.edges.push({ id: 'e2', source: 'tick2', sourceHandle: 'value', target: 'sink', targetHandle: 'value' });
      const twoWards = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Wards A and B', data: wards }).expect(201)).body;
      const both = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: twoWards.id }).expect(201)).body;
      expect(both).toMatchObject({ environment_id: 'ward-a', environment_ids: ['ward-a', 'ward-b'] });
      await s.http.delete(`/api/v1/studio/deployments/${both.id}`).set(s.alice.auth).expect(204);

      // The server's pipeline is stopped through the system API, not the studio.
      const stop = await s.http.delete('/api/v1/studio/deployments/pose-api:system').set(s.alice.auth).expect(409);
      expect(stop.body.code).toBe('WIFLOW_STUDIO_SERVER_DEPLOYMENT');
    } finally {
      await s.runtime.undeploy('pose-api:system', 0);
    }
    // A restarted server pipeline from the same file links to the same flow.
    const before = (await s.http.get('/api/v1/flows/?header_flows=true').set(s.alice.auth).expect(200)).body.filter((f: { name: string }) => f.name === 'Server demo');
    await s.runtime.deploy(tickerFlow('lab'), { id: 'pose-api:system', name: 'Server demo', source });
    try {
      const listed = (await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200)).body;
      expect(listed.find((d: { id: string }) => d.id === 'pose-api:system').flow_id).toBe(before[0].id);
      expect(before).toHaveLength(1);
    } finally {
      await s.runtime.undeploy('pose-api:system', 0);
    }
  });

  it('says a deployment whose pipeline failed is failed, and one that ended by itself stopped', async () => {
    const reading = (file: string) => ({
      nodes: [
        { id: 'file', position: { x: 0, y: 0 }, data: { nodeType: 'stest.filesource', config: { path: file } } },
        { id: 'sink', position: { x: 200, y: 0 }, data: { nodeType: 'stest.sink', config: {} } },
      ],
      edges: [{ id: 'e', source: 'file', sourceHandle: 'size', target: 'sink', targetHandle: 'value' }],
    });
    const ends = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Ends', data: reading(fileURLToPath(import.meta.url)) }).expect(201)).body;
    const ended = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: ends.id }).expect(201)).body;
    await s.runtime.pipelines.get(ended.id)!.pipeline.done;
    expect((await s.http.get(`/api/v1/studio/deployments/${ended.id}`).set(s.alice.auth).expect(200)).body).toMatchObject({ status: 'stopped', error: null, flow_name: 'Ends' });
    await s.http.delete(`/api/v1/studio/deployments/${ended.id}`).set(s.alice.auth).expect(204);

    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Fails', data: reading(path.join(s.dataDir, 'missing.bin')) }).expect(201)).body;
    const dep = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flow.id }).expect(201)).body;
    await s.runtime.pipelines.get(dep.id)!.pipeline.done;
    expect((await s.http.get(`/api/v1/studio/deployments/${dep.id}`).set(s.alice.auth).expect(200)).body).toMatchObject({ status: 'failed', flow_name: 'Fails', error: expect.stringMatching(/^source file \(stest\.filesource\) failed: [^]*missing\.bin/) });
    // The counters say that it failed, and why, too.
    const counters = (await s.http.get(`/api/v1/studio/deployments/${dep.id}/counters`).set(s.alice.auth).expect(200)).body;
    expect(counters).toMatchObject({ status: 'failed', error: expect.stringMatching(/missing\.bin/) });
    // So does the stream the editor reads, once (the counters of an ended pipeline do not change),
    // and then only the removal.
    const stream = await fetch(`${s.url}/api/v1/studio/deployments/${dep.id}/counters/stream?interval_ms=100`, { headers: s.alice.auth });
    const reader = stream.body!.getReader();
    let text = '';
    // Read for `ms` (true when the stream ended); a read still pending then is kept for the next call.
    let pending: ReturnType<typeof reader.read> | null = null;
    const readFor = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        pending ??= reader.read();
        const chunk = await Promise.race([pending, new Promise<null>((resolve) => setTimeout(() => resolve(null), until - Date.now()))]);
        if (!chunk) break;
        pending = null;
        if (chunk.done) return true;
        text += Buffer.from(chunk.value).toString('utf8');
      }
      return false;
    };
    expect(await readFor(800)).toBe(false);
    const events = () => text.split('\n\n').filter((b) => b.includes('data: ')).map((b) => ({ event: /event: (\w+)/.exec(b)?.[1], data: JSON.parse(/data: (.*)/.exec(b)![1]) }));
    expect(events()).toEqual([{ event: 'counters', data: expect.objectContaining({ status: 'failed', error: expect.stringMatching(/missing\.bin/) }) }]);
    // A failed pipeline does not block a new deployment of its flow.
    const next = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flow.id }).expect(201)).body;
    await s.http.delete(`/api/v1/studio/deployments/${dep.id}`).set(s.alice.auth).expect(204);
    expect(await readFor(2000)).toBe(true);
    expect(events().map((e) => e.event)).toEqual(['counters', 'undeployed']);
    await s.http.delete(`/api/v1/studio/deployments/${next.id}`).set(s.alice.auth).expect(204);
  });
});

describe('MCP auth: oauth', () => {
  it('validates bearer tokens against the provider JWKS (signature, expiry, issuer, scope)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
    const provider = http.createServer((req, res) => {
      const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
      if (req.url === '/.well-known/oauth-authorization-server') return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      if (req.url === '/jwks') return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] }));
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    try {
      const project = (await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'OAuth tools' }).expect(201)).body;
      await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Shout', mcp_enabled: true, folder_id: project.id, data: upperFlow() }).expect(201);
      await s.http
        .patch(`/api/v1/mcp/project/${project.id}`)
        .set(s.alice.auth)
        .send({ settings: [], auth_settings: { auth_type: 'oauth', oauth_server_url: issuer, oauth_client_id: 'wiflow', oauth_mcp_scope: 'mcp:tools' } })
        .expect(200);
      const url = new URL(`${s.url}/api/v1/mcp/project/${project.id}/streamable`);
      const sign = (claims: Record<string, unknown>, options: { iss?: string; exp?: string } = {}) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(options.iss ?? issuer).setIssuedAt().setExpirationTime(options.exp ?? '5m').sign(privateKey);
      const tryConnect = async (token?: string) => {
        const client = new Client({ name: 't', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} } }));
        return client;
      };
      await expect(tryConnect()).rejects.toThrow();
      await expect(tryConnect(await sign({ scope: 'other' }))).rejects.toThrow();
      await expect(tryConnect(await sign({ scope: 'mcp:tools' }, { iss: 'http://someone-else' }))).rejects.toThrow();
      await expect(tryConnect(await sign({ scope: 'mcp:tools' }, { exp: '-1m' }))).rejects.toThrow();
      const client = await tryConnect(await sign({ scope: 'openid mcp:tools' }));
      const result = await client.callTool({ name: 'shout', arguments: { text: 'oauth' } });
      expect(result.structuredContent).toEqual({ result: 'OAUTH' });
      await client.close();
    } finally {
      provider.close();
    }
  });
});

describe('OAuthValidator with token introspection (RFC 7662)', () => {
  it('accepts active tokens with the scope, using the client id and secret; rejects the rest', async () => {
    const seen: string[] = [];
    const provider = http.createServer((req, res) => {
      const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.statusCode = 404;
        return void res.end();
      }
      if (req.url === '/.well-known/openid-configuration') return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ issuer: base, introspection_endpoint: `${base}/introspect` }));
      if (req.url === '/introspect') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          seen.push(String(req.headers.authorization));
          const token = new URLSearchParams(body).get('token');
          const ok = req.headers.authorization === `Basic ${Buffer.from('cid:csecret').toString('base64')}`;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(ok && token === 'good' ? { active: true, scope: 'mcp:tools' } : ok && token === 'narrow' ? { active: true, scope: 'other' } : { active: false }));
        });
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const serverUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    try {
      const validator = new OAuthValidator(() => 60_000);
      const settings = { serverUrl, clientId: 'cid', clientSecret: 'csecret', scope: 'mcp:tools' };
      expect(await validator.validate(settings, 'good')).toBe(true);
      expect(await validator.validate(settings, 'narrow')).toBe(false);
      expect(await validator.validate(settings, 'revoked')).toBe(false);
      expect(await validator.validate({ ...settings, clientSecret: 'wrong' }, 'fresh')).toBe(false);
      await expect(validator.validate({ ...settings, clientSecret: null }, 'other')).rejects.toThrow(/client_secret/);
      const calls = seen.length;
      expect(await validator.validate(settings, 'good')).toBe(true);
      expect(seen.length).toBe(calls);
    } finally {
      provider.close();
    }
  });
});

describe('install is loopback only', () => {
  it('recognises loopback peers', () => {
    const req = (remoteAddress: string) => ({ socket: { remoteAddress } }) as unknown as http.IncomingMessage;
    expect(isLoopback(req('127.0.0.1'))).toBe(true);
    expect(isLoopback(req('::1'))).toBe(true);
    expect(isLoopback(req('::ffff:127.0.0.1'))).toBe(true);
    expect(isLoopback(req('192.168.1.20'))).toBe(false);
    expect(isLoopback(req('::ffff:10.0.0.1'))).toBe(false);
  });
});

describe('health_check failure', () => {
  it('answers 500 with the failing check when storage is down', async () => {
    await s.runtime.storage.close();
    const res = await s.http.get('/health_check').expect(500);
    expect(res.body.detail.status).toBe('nok');
    expect(res.body.detail.db).toMatch(/^error/);
    expect(res.body.detail.chat).toBe('ok');
    await s.runtime.storage.open();
    await s.http.get('/health_check').expect(200);
  });
});

describe('error catalogue', () => {
  it('documents every error code in docs/flow-service.md', () => {
    const doc = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/flow-service.md'), 'utf8');
    for (const { code } of studioErrorCatalogue) expect(doc, code).toContain(code);
    const codes = studioErrorCatalogue.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

