import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '@wiflow/core';
import { createWebhookRouter, WEBHOOK_API_PATH } from '@wiflow/plugin-webhook';
import { startServer, token, type ServerHandle } from './support/server.js';

/** One hostile request shape: what it sends, and whether it is a body a route with a body schema must refuse. */
interface HostileCase {
  name: string;
  headers?: Record<string, string>;
  body?: Buffer;
  query?: string;
  /** A route that reads a JSON body must answer 4xx (not 2xx, never 5xx). */
  refusedByBodyRoutes: boolean;
}

const json = { 'content-type': 'application/json' };
const HOSTILE: HostileCase[] = [
  { name: 'arrays nested 5,000 deep', headers: json, body: Buffer.from('['.repeat(5000) + ']'.repeat(5000)), refusedByBodyRoutes: true },
  { name: 'objects nested 5,000 deep', headers: json, body: Buffer.from(`{"username":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`), refusedByBodyRoutes: true },
  { name: 'a 9 MB body (over every JSON limit)', headers: json, body: Buffer.from(`{"name":"${'x'.repeat(9 * 1024 * 1024)}"}`), refusedByBodyRoutes: true },
  { name: 'binary bytes', headers: { 'content-type': 'application/octet-stream' }, body: randomBytes(4096), refusedByBodyRoutes: true },
  { name: 'binary bytes said to be JSON', headers: json, body: randomBytes(4096), refusedByBodyRoutes: true },
  { name: 'malformed JSON', headers: json, body: Buffer.from('{"username": [1, 2,, }'), refusedByBodyRoutes: true },
  { name: 'a form instead of JSON', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('username=admin&password=x'), refusedByBodyRoutes: true },
  { name: 'a raw NUL byte inside a string', headers: json, body: Buffer.from('{"name":"a\u0000b","username":"\u0000"}'), refusedByBodyRoutes: true },
  { name: 'invalid UTF-8', headers: json, body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]), refusedByBodyRoutes: true },
  { name: 'an unknown charset', headers: { 'content-type': 'application/json; charset=klingon' }, body: Buffer.from('{}'), refusedByBodyRoutes: true },
  { name: 'gzip that is not gzip', headers: { ...json, 'content-encoding': 'gzip' }, body: Buffer.from('{"not":"gzip"}'), refusedByBodyRoutes: true },
  { name: 'a 12 KB query string', query: `q=${'%00%ff'.repeat(2000)}&limit=${'9'.repeat(400)}`, refusedByBodyRoutes: false },
];

/** A header larger than Node's limit (16 KB): Node itself answers 431 before any route runs. */
const HUGE_HEADER: HostileCase = { name: 'a 20 KB header', headers: { 'x-junk': 'y'.repeat(20 * 1024) }, refusedByBodyRoutes: false };

interface Route {
  method: string;
  path: string;
  /** The route reads a JSON body (OpenAPI requestBody, or a webhook create/update). */
  readsBody: boolean;
  api: 'pose' | 'webhook';
}

/** The pose API's routes from its own OpenAPI document (so a new route is fuzzed without editing this file). */
function poseRoutes(openapi: { paths: Record<string, Record<string, { requestBody?: unknown }>> }): Route[] {
  return Object.entries(openapi.paths).flatMap(([p, operations]) =>
    Object.entries(operations).map(([method, op]) => ({ method: method.toUpperCase(), path: `/api/v1${p.replace(/\{\w+\}/g, 'x1')}`, readsBody: op.requestBody !== undefined, api: 'pose' as const })),
  );
}

/** The webhook API's routes from its router's route table. */
function webhookRoutes(): Route[] {
  // Only the route table is read: nothing is served, so no hook or logger is called.
  const router = createWebhookRouter({ hooks: {} as never, logger: { error: () => undefined } as never, configStore: new ConfigStore(), store: () => undefined as never, dispatcher: () => undefined as never, secretBox: () => undefined as never, config: () => undefined as never });
  const layers = (router as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] }).stack;
  return layers.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map((method) => ({
          method: method.toUpperCase(),
          path: `${WEBHOOK_API_PATH}${layer.route!.path.replace(/:\w+/g, 'wh_x1')}`.replace(/\/$/, ''),
          readsBody: method === 'post' && layer.route!.path === '/' ? true : method === 'patch',
          api: 'webhook' as const,
        }))
      : [],
  );
}

/** Resident set size of a process, bytes (Linux /proc: measured from outside, no help from the server). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(url: string, method: string, target: string, hostile: HostileCase, bearer?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(hostile.headers ?? {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
    if (hostile.body) headers['content-length'] = String(hostile.body.length);
    const req = request(`${url}${target}${hostile.query ? `?${hostile.query}` : ''}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // The server may answer (401, 413) and close before the whole body is sent.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(hostile.body);
  });
}

for (const convention of ['A', 'B'] as const) {
  describe(`hostile requests to every pose and webhook route, convention ${convention} (wiflow serve child process)`, () => {
    let server: ServerHandle;
    let admin: string;
    let routes: Route[];
    const adminPassword = 'fuzz-admin-password-123';
    beforeAll(async () => {
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-fuzz-'));
      // Rate limits off so every request reaches the body parser and validation (429 would hide them).
      writeFileSync(path.join(dataDir, 'config.json'), JSON.stringify({ api: { rateLimits: { enabled: false } } }));
      server = await startServer({
        dataDir,
        args: ['--config', path.join(dataDir, 'config.json')],
        env: { WIFLOW_API_CONVENTION: convention, WIFLOW_ADMIN_PASSWORD: adminPassword, WIFLOW_DEFAULT_PIPELINE: 'off' },
      });
      admin = await token(server.url, 'admin', adminPassword);
      const openapi = await (await fetch(`${server.url}/api/v1/openapi.json?convention=${convention}`)).json();
      routes = [...poseRoutes(openapi as never), ...webhookRoutes()];
    });
    afterAll(async () => {
      agent.destroy();
      await server?.stop();
    });

    it('answers 4xx in the convention envelope (never 500), stays up, and stays under 300 MB RSS over 1,000+ hostile requests', async () => {
      expect(routes.filter((r) => r.api === 'pose').length).toBeGreaterThanOrEqual(20);
      expect(routes.filter((r) => r.api === 'webhook').length).toBeGreaterThanOrEqual(7);
      const pid = server.process.pid!;
      const rssBefore = rssOf(pid);
      let rssMax = rssBefore;
      let requests = 0;
      const failures: string[] = [];
      // The whole matrix twice: memory must not creep from one round to the next.
      for (const route of [...routes, ...routes]) {
        for (const hostile of [...HOSTILE, HUGE_HEADER]) {
          for (const bearer of [undefined, admin]) {
            const answer = await send(server.url, route.method, route.path, hostile, bearer);
            requests++;
            const where = `${route.method} ${route.path} ${hostile.name} ${bearer ? 'admin' : 'anonymous'} → ${answer.status}`;
            if (hostile === HUGE_HEADER) {
              // Node's HTTP parser answers this one itself (no route, no envelope); the point is that it is a 4xx.
              if (answer.status !== 431) failures.push(`${where}: expected 431`);
              continue;
            }
            let envelope: any;
            try {
              envelope = JSON.parse(answer.body);
            } catch {
              envelope = undefined;
            }
            const error = convention === 'A' ? envelope?.error : envelope?.success === false ? envelope.error : undefined;
            const isError = answer.status >= 400;
            // 503 SYSTEM_NOT_READY is an honest answer of pose routes while no pipeline runs, not a failure.
            const notReady = answer.status === 503 && error?.code === 'SYSTEM_NOT_READY';
            if (answer.status >= 500 && !notReady) failures.push(`${where}: server error ${answer.body.slice(0, 200)}`);
            if (isError && (typeof error?.code !== 'string' || typeof error?.message !== 'string' || typeof (convention === 'A' ? error.request_id : envelope.request_id) !== 'string')) {
              failures.push(`${where}: not the convention ${convention} envelope: ${answer.body.slice(0, 200)}`);
            }
            if (route.readsBody && hostile.refusedByBodyRoutes && bearer && !isError) failures.push(`${where}: a hostile body was accepted`);
            if (!bearer && route.readsBody && answer.status < 400 && !route.path.startsWith('/api/v1/auth/token') && !route.path.startsWith('/api/v1/auth/revoke')) failures.push(`${where}: anonymous request accepted`);
          }
        }
        rssMax = Math.max(rssMax, rssOf(pid));
      }
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThanOrEqual(1000);
      expect(server.process.exitCode).toBeNull();
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
      rssMax = Math.max(rssMax, rssOf(pid));
      console.log(`convention ${convention}: ${requests} hostile requests to ${routes.length} routes; server RSS ${Math.round(rssBefore / 2 ** 20)} MB before, ${Math.round(rssMax / 2 ** 20)} MB at most`);
      expect(rssMax).toBeLessThan(300 * 2 ** 20);
    });
  });
}
