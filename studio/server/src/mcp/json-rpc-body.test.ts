// Body-level refusals on the MCP endpoints, over real HTTP: MCP clients read JSON-RPC errors
// (JSON-RPC 2.0 §5.1; the SDK's Streamable HTTP transport answers the same statuses and shapes),
// not the flow service's `{detail, code}` envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, upperFlow, type TestStudio } from '../testing/test-plugins.js';

let s: TestStudio;
let projectId: string;
let base: string;
let sse: { url: string; close(): void };

/** Open a legacy SSE session and read its `endpoint` event (the POST URL with the session id). */
async function openSse(): Promise<{ url: string; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${base}/sse`, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/event: endpoint\ndata: (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`SSE stream ended before its endpoint event: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const endpoint = /event: endpoint\ndata: (\S+)/.exec(text)![1];
  return { url: new URL(endpoint, s.url).href, close: () => controller.abort() };
}

beforeAll(async () => {
  s = await startTestStudio();
  const project = await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Body refusals' }).expect(201);
  projectId = project.body.id;
  base = `${s.url}/api/v1/mcp/project/${projectId}`;
  await s.http.patch(`/api/v1/mcp/project/${projectId}`).set(s.alice.auth).send({ settings: [], auth_settings: { auth_type: 'none' } }).expect(200);
  await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ folder_id: projectId, name: 'Shout', action_name: 'shout', mcp_enabled: true, data: upperFlow() }).expect(201);
  sse = await openSse();
});
afterAll(async () => {
  sse?.close();
  await s?.close();
});

const accept = 'application/json, text/event-stream';

/** POST raw bytes to an MCP endpoint; the answer's status, content type and parsed body. */
async function post(url: string, body: string | Uint8Array, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType, accept }, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // left null: the assertion below shows the text
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: json as { jsonrpc?: string; id?: unknown; error?: { code: number; message: string } } | null };
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const request = (extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'ping', ...extra });

/** Each body-level problem, the HTTP status and JSON-RPC code it must get. */
const cases: { name: string; body: string | Uint8Array; contentType?: string; status: number; code: number; sseStatus?: number }[] = [
  { name: 'invalid JSON', body: '{"jsonrpc": "2.0", "id": 1, "method": ', status: 400, code: -32700 },
  { name: 'invalid UTF-8', body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), status: 400, code: -32700 },
  { name: 'JSON null', body: 'null', status: 400, code: -32600 },
  { name: 'a JSON number', body: '42', status: 400, code: -32600 },
  { name: 'an object that is not JSON-RPC', body: '{"hello": "world"}', status: 400, code: -32600 },
  { name: 'jsonrpc "1.0"', body: JSON.stringify(request({ jsonrpc: '1.0' })), status: 400, code: -32600 },
  { name: 'no jsonrpc member', body: JSON.stringify({ id: 1, method: 'ping' }), status: 400, code: -32600 },
  { name: 'a method that is a number', body: JSON.stringify(request({ method: 7 })), status: 400, code: -32600 },
  { name: 'an empty batch', body: '[]', status: 400, code: -32600 },
  { name: 'a batch with one bad member', body: JSON.stringify([request(), { jsonrpc: '2.0', id: 2 }]), status: 400, code: -32600 },
  { name: 'a batch of 101', body: JSON.stringify(Array.from({ length: 101 }, (_, i) => request({ id: i }))), status: 400, code: -32600 },
  { name: 'JSON nested 5,000 deep', body: deep(5000), status: 400, code: -32600 },
  { name: 'a body over the limit', body: JSON.stringify(request({ params: { pad: 'x'.repeat(11 * 1024 * 1024) } })), status: 413, code: -32000 },
  { name: 'text/plain', body: JSON.stringify(request()), contentType: 'text/plain', status: 415, code: -32000 },
  { name: 'no content type', body: JSON.stringify(request()), contentType: '', status: 415, code: -32000 },
];

describe('MCP endpoints answer body-level problems as JSON-RPC errors', () => {
  for (const route of ['streamable', 'mcp', 'sse-post'] as const) {
    for (const c of cases) {
      // The legacy SSE transport takes one message per POST, so any batch is an invalid request there.
      it(`${route}: ${c.name} → ${c.status} ${c.code}`, async () => {
        const url = route === 'sse-post' ? sse.url : `${base}/${route}`;
        const res = await post(url, c.body, c.contentType);
        expect(res.status, res.text.slice(0, 300)).toBe(c.status);
        expect(res.type).toMatch(/^application\/json/);
        expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: c.code, message: expect.any(String) }, id: null });
        expect(res.json!.error!.message.length).toBeLessThan(300);
      });
    }
  }

  it('names the first bad field of a message, not the union\'s bare "Invalid input"', async () => {
    const cases: [unknown, string][] = [
      [null, 'Invalid Request: the body must be a JSON-RPC object or batch, not null'],
      [{ hello: 'world' }, 'Invalid Request: jsonrpc: Invalid input: expected "2.0"'],
      [{ jsonrpc: '1.0', id: 1, method: 'ping' }, 'Invalid Request: jsonrpc: Invalid input: expected "2.0"'],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, 'Invalid Request: method: Invalid input: expected string, received number'],
      [[{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2 }], 'Invalid Request: batch member 1: method: Invalid input: expected string, received undefined'],
    ];
    for (const [body, message] of cases) {
      const res = await post(`${base}/streamable`, JSON.stringify(body));
      expect(res.json?.error?.message, JSON.stringify(body)).toBe(message);
    }
  });

  it('echoes no unbounded input: a 200 KB method name and a 200 KB bad member give short answers', async () => {
    for (const body of [JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'm'.repeat(200_000) }), JSON.stringify([{ jsonrpc: '2.0', id: 'i'.repeat(200_000) }]), '{"x": "' + 'y'.repeat(200_000)]) {
      for (const url of [`${base}/streamable`, sse.url]) {
        const res = await post(url, body);
        expect(res.status).toBe(400);
        expect(res.text.length).toBeLessThan(400);
      }
    }
  });

  it('keeps serving: after every refusal a valid request on each endpoint is answered', async () => {
    const ok = await post(`${base}/streamable`, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('shout');
    const viaSse = await post(sse.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(viaSse.status).toBe(202);
  });

  it('leaves the other APIs\' envelopes alone: bad JSON to the flows API is still {detail, code}', async () => {
    const res = await s.http.post('/api/v1/flows/').set(s.alice.auth).set('content-type', 'application/json').send('{"name": ');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.jsonrpc).toBeUndefined();
    expect(res.body.detail).toBeDefined();
  });
});
