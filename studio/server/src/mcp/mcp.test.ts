import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { flowIoSchemas, type CsiFrame, type Job, type WiflowPlugin } from '@wiflow/core';
import { StudioServerToken } from '../index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainFlow, startTestStudio, upperFlow, type TestStudio } from '../testing/test-plugins.js';
import { ANONYMOUS_MCP_PRINCIPAL } from './auth-settings.js';

const run = promisify(execFile);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The Inspector's own bin (what `npx @modelcontextprotocol/inspector` runs), without npx's start-up cost. */
const inspectorPackage = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
const inspectorBin = path.join(path.dirname(inspectorPackage), (JSON.parse(readFileSync(inspectorPackage, 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']);
const inspector = (args: string[]) => run(process.execPath, [inspectorBin, '--cli', ...args], { cwd: packageDir, timeout: 60_000 });

let s: TestStudio;
let projectId: string;
let base: string;
const flowIds: Record<string, string> = {};
let csi: { default: WiflowPlugin; encodeRecording(frames: CsiFrame[]): Uint8Array };

beforeAll(async () => {
  csi = (await import('@wiflow/plugin-csi')) as unknown as typeof csi;
  s = await startTestStudio({ plugins: [csi.default] });
  const project = await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Sensing tools' }).expect(201);
  projectId = project.body.id;
  base = `${s.url}/api/v1/mcp/project/${projectId}`;
  // Most tests here talk to the server without credentials: the owner opens the project explicitly.
  await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
  const make = async (key: string, body: Record<string, unknown>) => {
    flowIds[key] = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ folder_id: projectId, ...body }).expect(201)).body.id;
  };
  await make('shout', { name: 'Shout', action_name: 'Shout It!', action_description: 'Upper-cases text', mcp_enabled: true, data: upperFlow() });
  await make('shout2', { name: 'Shout again', action_name: 'shout_it', mcp_enabled: true, data: upperFlow({ suffix: '!' }) });
  await make('add', { name: 'Adder', description: 'Adds two', mcp_enabled: true, data: chainFlow([{ type: 'stest.add', config: { amount: 2 } }]) });
  await make('slow', { name: 'Slow', mcp_enabled: true, data: chainFlow([{ type: 'stest.slow', config: { steps: 5, delayMs: 30 } }]) });
  await make('long', { name: 'Long', mcp_enabled: true, data: chainFlow([{ type: 'stest.slow', config: { steps: 500, delayMs: 20 } }]) });
  await make('broken', { name: 'Broken', mcp_enabled: true, data: chainFlow([{ type: 'stest.fail', config: { message: 'sensor unplugged' } }]) });
  await make('hidden', { name: 'Hidden', mcp_enabled: false, data: upperFlow() });
});
afterAll(async () => {
  await s?.close();
});

async function connect(transport: 'streamable' | 'stateless' | 'sse', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'wiflow-test', version: '1.0.0' });
  const requestInit = { headers };
  if (transport === 'sse') await client.connect(new SSEClientTransport(new URL(`${base}/sse`), { requestInit }));
  else await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/streamable${transport === 'stateless' ? '?stateless=1' : ''}`), { requestInit }));
  return client;
}

describe('MCP settings', () => {
  it('GET lists MCPSettings of the project and AuthSettings without the secret', async () => {
    const res = await s.http.get(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).expect(200);
    expect(res.body.tools).toHaveLength(7);
    for (const t of res.body.tools) expect(Object.keys(t).sort()).toEqual(['action_description', 'action_name', 'description', 'id', 'mcp_enabled', 'name']);
    expect(res.body.tools.find((t: { id: string }) => t.id === flowIds.hidden).mcp_enabled).toBe(false);
    expect(res.body.auth_settings.auth_type).toBe('none');
    expect(res.body.auth_settings.oauth_client_secret).toBeNull();
    await s.http.get(`/api/v1/mcp/project/${projectId}`).expect(401);
    await s.http.get(`/api/v1/mcp/project/${projectId}`).set(s.bob.auth).expect(404);
  });

  it('PATCH updates flows and auth settings; oauth_client_secret is write-only and sealed at rest', async () => {
    const res = await s.http
      .patch(`/api/v1/mcp/project/${projectId}`)
      .set(s.alice.auth)
      .send({ settings: [{ id: flowIds.hidden, action_description: 'still hidden' }], auth_settings: { auth_type: 'none', oauth_client_id: 'cid', oauth_client_secret: 'super-secret-value' } })
      .expect(200);
    expect(res.body.auth_settings).toMatchObject({ auth_type: 'none', oauth_client_id: 'cid', oauth_client_secret: '********' });
    expect(JSON.stringify(res.body)).not.toContain('super-secret-value');
    const stored = await s.runtime.storage.projects.get(projectId);
    expect(JSON.stringify(stored)).not.toContain('super-secret-value');
    // the mask keeps the stored secret; FolderRead does not reveal it either
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none', oauth_client_secret: '********' } }).expect(200);
    expect((await s.runtime.storage.projects.get(projectId))!.authSettings!.oauth_client_secret_sealed).toBe(stored!.authSettings!.oauth_client_secret_sealed);
    const folder = await s.http.get(`/api/v1/projects/${projectId}`).set(s.alice.auth).expect(200);
    expect(JSON.stringify(folder.body)).not.toContain('super-secret-value');
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ auth_settings: { auth_type: 'none' } }).expect(422);
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'kerberos' } }).expect(422);
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.bob.auth).send({ settings: [] }).expect(404);
  });

  it('composer-url answers 200 with URLs, or with the error in the body', async () => {
    const res = await s.http.get(`/api/v1/mcp/project/${projectId}/composer-url`).set(s.alice.auth).expect(200);
    expect(res.body).toEqual({ project_id: projectId, uses_composer: false, streamable_http_url: `${base}/streamable`, legacy_sse_url: `${base}/sse`, error_message: null });
    const missing = await s.http.get('/api/v1/mcp/project/00000000-0000-4000-8000-000000000000/composer-url').set(s.alice.auth).expect(200);
    expect(missing.body.error_message).toContain('not found');
  });
});

describe('MCP over Streamable HTTP (SDK client)', () => {
  it('lists mcp-enabled flows as tools with sanitised unique names and schemas from flowIoSchemas', async () => {
    const client = await connect('streamable');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['adder', 'broken', 'long', 'shout_it', 'shout_it_2', 'slow']);
    const shout = tools.find((t) => t.name === 'shout_it')!;
    expect(shout.description).toBe('Upper-cases text');
    const io = flowIoSchemas(upperFlow());
    expect(shout.inputSchema).toEqual(io.input);
    expect(shout.outputSchema).toEqual(io.output);
    expect(tools.find((t) => t.name === 'adder')!.description).toBe('Adds two');
    await client.close();
  });

  it('calls a tool: structuredContent plus text; bad arguments and failing flows give isError', async () => {
    const client = await connect('streamable');
    const result = await client.callTool({ name: 'shout_it', arguments: { text: 'wifi sees you' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: 'WIFI SEES YOU' });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ result: 'WIFI SEES YOU' }) }]);
    const second = await client.callTool({ name: 'shout_it_2', arguments: { text: 'a' } });
    expect(second.structuredContent).toEqual({ result: 'A!' });
    const add = await client.callTool({ name: 'adder', arguments: { value: 40 } });
    expect(add.structuredContent).toEqual({ result: 42 });
    const wrongType = await client.callTool({ name: 'adder', arguments: { value: 'forty' } });
    expect(wrongType.isError).toBe(true);
    expect(JSON.stringify(wrongType.content)).toContain('/value');
    const extra = await client.callTool({ name: 'shout_it', arguments: { text: 'a', nope: 1 } });
    expect(extra.isError).toBe(true);
    const missing = await client.callTool({ name: 'shout_it', arguments: {} });
    expect(missing.isError).toBe(true);
    const broken = await client.callTool({ name: 'broken', arguments: { value: 1 } });
    expect(broken.isError).toBe(true);
    expect(JSON.stringify(broken.content)).toContain('sensor unplugged');
    await expect(client.callTool({ name: 'hidden', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: hidden') });
    await client.close();
  });

  it('answers a tools/call whose params do not fit CallToolRequest -32602 naming the field, without the validator dump', async () => {
    const call = async (params: unknown) => {
      const res = await fetch(`${base}/streamable?json=true`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }) });
      return ((await res.json()) as { error?: { code: number; message: string } }).error;
    };
    for (const [params, field] of [[{ name: 42, arguments: {} }, 'params.name'], [{ name: null }, 'params.name'], [{ arguments: {} }, 'params.name'], [{ name: 'shout_it', arguments: 'text' }, 'params.arguments'], [{ name: 'shout_it', arguments: [1] }, 'params.arguments']] as const) {
      const error = await call(params);
      expect(error?.code, JSON.stringify(params)).toBe(-32602);
      expect(error?.message).toContain(field);
      expect(error?.message.length).toBeLessThan(200);
      expect(error?.message).not.toMatch(/"code":|expected.*\n/);
    }
    const unknown = await call({ name: 'x'.repeat(5000), arguments: {} });
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: xxx') });
    expect(unknown!.message.length).toBeLessThan(1000);
  });

  it('sends real progress notifications for a progressToken', async () => {
    const client = await connect('streamable');
    const seen: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { value: 7 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    expect(result.structuredContent).toEqual({ result: 7 });
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.at(-1)).toBe(100);
    await client.close();
  });

  it('honours cancellation: aborting the request cancels the job', async () => {
    const client = await connect('streamable');
    const runner = s.runtime.services.get(StudioServerToken).runner;
    const started: Job[] = [];
    const original = runner.start.bind(runner);
    runner.start = async (request) => {
      const run = await original(request);
      started.push(run.job);
      return run;
    };
    const controller = new AbortController();
    const call = client.callTool({ name: 'long', arguments: { value: 1 } }, undefined, { signal: controller.signal, onprogress: () => controller.abort('enough') });
    await expect(call).rejects.toThrow();
    runner.start = original;
    expect(started).toHaveLength(1);
    const t0 = Date.now();
    const outcome = await started[0].done;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error).toBe('cancelled by the MCP client');
    expect(Date.now() - t0).toBeLessThan(2000);
    await client.close();
  });

  it('sends tools/list_changed when the project flows change', async () => {
    const client = await connect('streamable');
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await s.http.patch(`/api/v1/flows/${flowIds.hidden}`).set(s.alice.auth).send({ mcp_enabled: true }).expect(200);
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('hidden');
    await s.http.patch(`/api/v1/flows/${flowIds.hidden}`).set(s.alice.auth).send({ mcp_enabled: false }).expect(200);
    await client.close();
  });

  it('works stateless: no session id, each POST stands alone; GET and DELETE without a session are 405', async () => {
    const client = await connect('stateless');
    const result = await client.callTool({ name: 'shout_it', arguments: { text: 'stateless' } });
    expect(result.structuredContent).toEqual({ result: 'STATELESS' });
    await client.close();
    const raw = await fetch(`${base}/streamable`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    expect(await raw.text()).toContain('shout_it');
    expect((await fetch(`${base}/streamable`)).status).toBe(405);
    expect((await fetch(`${base}/streamable`, { method: 'DELETE' })).status).toBe(405);
    const stale = await fetch(`${base}/streamable`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(stale.status).toBe(404);
  });

  it('refuses unknown projects (404) and foreign browser origins (403)', async () => {
    const res = await fetch(`${s.url}/api/v1/mcp/project/00000000-0000-4000-8000-000000000000/streamable`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(404);
    const evil = await fetch(`${base}/streamable`, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(evil.status).toBe(403);
  });
});

describe('MCP session housekeeping', () => {
  it('closes Streamable HTTP sessions idle past the limit; the client then gets 404', async () => {
    const sessions = s.runtime.services.get(StudioServerToken).mcpSessions;
    const client = await connect('streamable');
    await client.listTools();
    const before = sessions.size;
    expect(sessions.sweep(Date.now() + 31 * 60_000)).toBeGreaterThanOrEqual(1);
    expect(sessions.size).toBeLessThan(before);
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => {});
  });
});

describe('MCP over legacy SSE (SDK client)', () => {
  it('lists and calls tools', async () => {
    const client = await connect('sse');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('shout_it');
    const result = await client.callTool({ name: 'shout_it', arguments: { text: 'legacy' } });
    expect(result.structuredContent).toEqual({ result: 'LEGACY' });
    await client.close();
  });
});

describe('MCP Inspector CLI 0.15', () => {
  // The commands docs/mcp.md gives: 0.15 speaks Streamable HTTP only to a path ending in /mcp (the alias).
  it('lists and calls a flow tool over Streamable HTTP', { timeout: 120_000 }, async () => {
    const list = await inspector([`${base}/mcp`, '--method', 'tools/list']);
    const tools = JSON.parse(list.stdout).tools as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('shout_it');
    const call = await inspector([`${base}/mcp`, '--method', 'tools/call', '--tool-name', 'shout_it', '--tool-arg', 'text=from the inspector']);
    const result = JSON.parse(call.stdout);
    expect(result.structuredContent).toEqual({ result: 'FROM THE INSPECTOR' });
    expect(result.isError).toBeFalsy();
  });
});

describe('MCP auth: apikey', () => {
  it('rejects clients without a key or with a foreign key; accepts the owner key over both transports', async () => {
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'apikey' } }).expect(200);
    await expect(connect('streamable')).rejects.toThrow();
    await expect(connect('sse')).rejects.toThrow();
    await expect(connect('streamable', { 'x-api-key': 'wf_wrong' })).rejects.toThrow();
    await expect(connect('streamable', { 'x-api-key': s.bob.apiKey })).rejects.toThrow();
    const noKey = await fetch(`${base}/streamable`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(noKey.status).toBe(401);
    for (const transport of ['streamable', 'sse'] as const) {
      const client = await connect(transport, { 'x-api-key': s.alice.apiKey });
      const result = await client.callTool({ name: 'shout_it', arguments: { text: transport } });
      expect(result.structuredContent).toEqual({ result: transport.toUpperCase() });
      await client.close();
    }
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
  });

  // docs/mcp.md: the Inspector 0.15 CLI sends no headers, so the key rides in the URL's query.
  it('lets the Inspector 0.15 CLI in with the key in the URL', { timeout: 120_000 }, async () => {
    await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'apikey' } }).expect(200);
    try {
      await expect(inspector([`${base}/mcp`, '--method', 'tools/list'])).rejects.toThrow();
      const list = await inspector([`${base}/mcp?x-api-key=${encodeURIComponent(s.alice.apiKey)}`, '--method', 'tools/list']);
      expect((JSON.parse(list.stdout).tools as { name: string }[]).map((t) => t.name)).toContain('shout_it');
    } finally {
      await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
    }
  });
});

describe('MCP auth: defaults and anonymous callers', () => {
  it('a new project requires the owner\'s API key; none must be chosen; anonymous calls never run as the owner', async () => {
    const project = (await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Fresh tools' }).expect(201)).body;
    await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ folder_id: project.id, name: 'Broken here', mcp_enabled: true, data: chainFlow([{ type: 'stest.fail', config: { message: 'sensor unplugged' } }]) }).expect(201);
    const settings = await s.http.get(`/api/v1/mcp/project/${project.id}`).set(s.alice.auth).expect(200);
    expect(settings.body.auth_settings.auth_type).toBe('apikey');
    const url = new URL(`${s.url}/api/v1/mcp/project/${project.id}/streamable`);
    const open = async (headers: Record<string, string> = {}) => {
      const client = new Client({ name: 'wiflow-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      return client;
    };
    await expect(open()).rejects.toThrow();
    const owner = await open({ 'x-api-key': s.alice.apiKey });
    const ownerCall = await owner.callTool({ name: 'broken_here', arguments: { value: 1 } });
    await owner.close();
    const jobOf = (result: Record<string, unknown>) => s.runtime.jobs.get(/\(job ([\w-]+)\)/.exec(JSON.stringify(result.content))![1])!;
    expect(jobOf(ownerCall).request.userId).toBe(s.alice.id);

    // The owner opens it explicitly: anonymous calls now run, as the anonymous principal, not as the owner.
    await s.http.patch(`/api/v1/mcp/project/${project.id}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
    const anonymous = await open();
    const anonymousCall = await anonymous.callTool({ name: 'broken_here', arguments: { value: 1 } });
    await anonymous.close();
    expect(anonymousCall.isError).toBe(true);
    const job = jobOf(anonymousCall);
    expect(job.request.userId).toBe(ANONYMOUS_MCP_PRINCIPAL.userId);
    expect(job.request.userId).not.toBe(s.alice.id);
    expect(ANONYMOUS_MCP_PRINCIPAL.roles).toEqual([]);
  });

  it("an anonymous caller cannot run a tool whose flow reads files: the error names the capability, nothing of the owner's is read", async () => {
    const project = (await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Open file tools' }).expect(201)).body;
    const own = path.join(s.dataDir, 'studio-files', s.alice.id);
    mkdirSync(own, { recursive: true });
    const frame: CsiFrame = {
      timestamp: 1_000_000, time: 1_000, sourceId: 'hand', link: { tx: 'a', rx: 'b' }, centerFrequencyHz: 2.412e9, bandwidthHz: 20e6,
      subcarriers: Int16Array.from([-1, 1]), ntx: 1, nrx: 1, nsc: 2, csi: { re: Float32Array.from([1, 2]), im: Float32Array.from([0, 1]) }, format: 'wiflow', provenance: 'replay',
    };
    writeFileSync(path.join(own, 'private.wfr'), csi.encodeRecording([frame, { ...frame, timestamp: 1_010_000, time: 1_010 }]));
    const copy = path.join(own, 'copied.wfr');
    const data = {
      nodes: [
        { id: 'reader', position: { x: 0, y: 0 }, data: { nodeType: 'csi.file', config: { path: path.join(own, 'private.wfr') } } },
        { id: 'rec', position: { x: 200, y: 0 }, data: { nodeType: 'csi.record', config: { path: copy } } },
      ],
      edges: [{ id: 'e', source: 'reader', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' }],
    };
    await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ folder_id: project.id, name: 'Copy capture', mcp_enabled: true, data }).expect(201);
    const url = new URL(`${s.url}/api/v1/mcp/project/${project.id}/streamable`);
    const open = async (headers: Record<string, string> = {}) => {
      const client = new Client({ name: 'wiflow-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      return client;
    };
    // With her key (the default auth) the flow does read and copy her file.
    const owner = await open({ 'x-api-key': s.alice.apiKey });
    const ownerCall = await owner.callTool({ name: 'copy_capture', arguments: {} });
    await owner.close();
    expect(ownerCall.isError, JSON.stringify(ownerCall.content)).toBeFalsy();
    expect(existsSync(copy)).toBe(true);
    rmSync(copy);

    await s.http.patch(`/api/v1/mcp/project/${project.id}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
    const anonymous = await open();
    const anonymousCall = await anonymous.callTool({ name: 'copy_capture', arguments: {} });
    await anonymous.close();
    expect(anonymousCall.isError).toBe(true);
    const text = JSON.stringify(anonymousCall.content);
    expect(text).toContain('needs capability fs.read, which an anonymous MCP caller does not allow');
    expect(existsSync(copy)).toBe(false);
  });
});

describe('MCP install', () => {
  it('writes a client config from loopback, merging with what is there', async () => {
    const home = path.join(s.dataDir, 'home');
    expect(s.runtime.config.update({ studio: { mcp: { installHome: home } } }).errors).toEqual([]);
    const res = await s.http.post(`/api/v1/mcp/project/${projectId}/install`).set(s.alice.auth).send({ client: 'cursor', transport: 'streamablehttp' }).expect(200);
    expect(res.body.config_path).toBe(path.join(home, '.cursor', 'mcp.json'));
    const config = JSON.parse(readFileSync(res.body.config_path, 'utf8'));
    expect(config.mcpServers[res.body.server_name]).toEqual({ url: `${base}/streamable` });
    const claude = await s.http.post(`/api/v1/mcp/project/${projectId}/install`).set(s.alice.auth).send({ client: 'claude', transport: 'sse' }).expect(200);
    const claudeConfig = JSON.parse(readFileSync(claude.body.config_path, 'utf8'));
    expect(claudeConfig.mcpServers[claude.body.server_name]).toEqual({ command: 'npx', args: ['-y', 'mcp-remote', `${base}/sse`] });
    const installed = await s.http.get(`/api/v1/mcp/project/${projectId}/installed`).set(s.alice.auth).expect(200);
    expect(installed.body).toEqual([{ name: 'claude', installed: true }, { name: 'cursor', installed: true }, { name: 'windsurf', installed: false }]);
    await s.http.post(`/api/v1/mcp/project/${projectId}/install`).set(s.alice.auth).send({ client: 'notepad' }).expect(422);
    await s.http.post(`/api/v1/mcp/project/${projectId}/install`).set(s.bob.auth).send({ client: 'cursor' }).expect(404);
  });
});

async function waitFor<T>(probe: () => T | null, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
