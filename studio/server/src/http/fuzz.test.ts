// Hostile bodies to every route the flow service registers (enumerated from its routers, so new
// routes are covered), MCP endpoints included, sent over real HTTP to the built service running
// in its own process: no 500, the service's envelope, the process alive and under 300 MB.
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioServerToken } from '../index.js';
import { startChildStudio, type ChildStudio } from '../testing/child-studio.js';
import { startTestStudio } from '../testing/test-plugins.js';

interface RouteEntry {
  method: string;
  path: string;
}

/** Every method and path of the service's routers (Express keeps each route's path and methods). */
async function listRoutes(): Promise<RouteEntry[]> {
  const studio = await startTestStudio();
  try {
    const out: RouteEntry[] = [];
    for (const { path: base, router } of studio.runtime.services.get(StudioServerToken).mounts) {
      for (const layer of (router as Router & { stack: { route?: { path: string | string[]; methods: Record<string, boolean> } }[] }).stack) {
        if (!layer.route) continue;
        for (const sub of ([] as string[]).concat(layer.route.path)) {
          for (const method of Object.keys(layer.route.methods)) out.push({ method: method.toUpperCase(), path: base + sub });
        }
      }
    }
    return out;
  } finally {
    await studio.close();
  }
}

/** Raw bytes to a path; status and body text (never throws for HTTP errors). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    // Keep-alive, as ordinary clients send: a route that answers without reading the body then has
    // the server discard the rest instead of closing the socket under a large body still being written.
    const req = httpRequest(`${url}${path}`, { method, agent: false, headers: { ...headers, connection: 'keep-alive', 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        res.socket?.destroy();
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type'] ?? '') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const boundary = 'fuzzBoundary';
/** [name, content type, body, must be refused (4xx) on routes that take a body]. */
const BODIES: [string, string, Buffer, boolean][] = [
  ['bad JSON', 'application/json', Buffer.from('{"name": "x", '), true],
  ['JSON nested 5,000 deep', 'application/json', Buffer.from(`{"name":"deep","data":${'['.repeat(5000)}${']'.repeat(5000)}}`), true],
  ['huge JSON (3 MB)', 'application/json', Buffer.from(`[${'0,'.repeat(1536 * 1024)}0]`), true],
  ['binary', 'application/octet-stream', randomBytes(64 * 1024), true],
  ['binary as JSON', 'application/json', randomBytes(4096), true],
  ['raw NUL in JSON', 'application/json', Buffer.from('{"name":"a\u0000b"}'), true],
  ['invalid UTF-8 in JSON', 'application/json', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]), true],
  ['wrong content type', 'text/plain', Buffer.from('{"name":"plain"}'), false],
  ['malformed multipart', `multipart/form-data; boundary=${boundary}`, Buffer.from(`--${boundary}\r\nContent-Disposition form-data\r\n\r\nx\r\n--${boundary}--\r\n`), true],
  ['multipart without boundary', 'multipart/form-data', Buffer.from('--x\r\n\r\n'), true],
  ['multipart, NUL in the file name', `multipart/form-data; boundary=${boundary}`, Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=utf-8''a%00.json\r\n\r\n{}\r\n--${boundary}--\r\n`), true],
  ['escaped NUL in JSON strings', 'application/json', Buffer.from('{"name":"\\u0000","data":"\\u0000","flow_id":"\\u0000"}'), false],
];

describe('fuzz: hostile bodies to every flow service and MCP route', () => {
  let s: ChildStudio;
  let routes: RouteEntry[];
  let projectId: string;
  beforeAll(async () => {
    routes = await listRoutes();
    s = await startChildStudio({ studio: { rateLimit: { requests: 100_000, windowSeconds: 60 } } });
    const project = await fetch(`${s.url}/api/v1/projects/`, { method: 'POST', headers: { ...s.auth('operator'), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fuzzed' }) });
    projectId = ((await project.json()) as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('answers 4xx in the envelope (never 500) and stays up under 300 MB', async () => {
    expect(routes.length).toBeGreaterThan(60);
    for (const wanted of ['POST /api/v1/flows/upload/', 'POST /api/v1/projects/upload/', 'POST /api/v1/mcp/project/:project_id/streamable', 'POST /api/v1/webhook/:flow', 'POST /api/v2/files/']) {
      expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(wanted);
    }
    const failures: string[] = [];
    let sent = 0;
    for (const route of routes) {
      // The legacy SSE stream stays open by design; its POST endpoint is fuzzed below.
      if (route.method === 'GET' && route.path.endsWith('/sse')) continue;
      // Projects' ids are real (MCP endpoints then read the body); other ids are unknown.
      const path = route.path.replace(/:(\w+)/g, (_m, name: string) => (name === 'project_id' ? projectId : name === 'revision' ? '1' : name === 'file_name' ? 'a.txt' : randomUUID()));
      for (const [name, type, body, refused] of BODIES) {
        const res = await send(s.url, route.method, path, { ...s.auth('operator'), 'content-type': type, accept: 'application/json, text/event-stream' }, body).catch((error: Error) => ({ status: 0, text: `connection failed: ${error.message}`, type: '' }));
        sent++;
        if (res.status === 0) {
          failures.push(`${route.method} ${route.path} with ${name}: ${res.text}`);
          continue;
        }
        const where = `${route.method} ${route.path} with ${name}: ${res.status} ${res.text.slice(0, 160)}`;
        if (res.status >= 500) failures.push(where);
        else if (route.method !== 'GET' && refused && (res.status < 400 || res.status >= 500)) failures.push(`${where} (expected 4xx)`);
        else if (res.status >= 400) {
          let parsed: { detail?: unknown; code?: unknown; jsonrpc?: unknown; error?: unknown } | null = null;
          try {
            parsed = JSON.parse(res.text);
          } catch {
            parsed = null;
          }
          const envelope = parsed !== null && (parsed.detail !== undefined || (route.path.includes('/mcp/') && parsed.jsonrpc === '2.0' && parsed.error !== undefined));
          if (!envelope) failures.push(`${where} (not the envelope)`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(700);
    expect(s.alive()).toBe(true);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    expect(s.peakRssMb(), `peak RSS after ${sent} requests`).toBeLessThan(300);
    console.log(`fuzz: ${sent} requests to ${routes.length} routes, peak RSS ${s.peakRssMb().toFixed(0)} MB`);
  }, 240_000);
});
