// Paths at the server root of the real `wiflow serve` with the built studio: the studio's page
// for browsers, JSON for everything else — a Langflow client asking /logs or a mistyped API
// path must never get `<!doctype html>` back.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';

const STUDIO_BUILT = existsSync(path.join(ROOT, 'studio/web/dist/app/index.html'));
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('paths at the server root', () => {
  let server: ServerHandle;
  let auth: { Authorization: string };
  let password: string;
  beforeAll(async () => {
    if (!STUDIO_BUILT) throw new Error('studio/web/dist/app is missing: run `npm run build -w @wiflow/studio-web` first');
    // No WIFLOW_ADMIN_PASSWORD: the server makes one and prints it once; it must never reach /logs.
    server = await startServer({ env: { WIFLOW_ADMIN_PASSWORD: '' } });
    password = /password below[^\n]*\nwiflow: (\S+)/.exec(server.stderr())?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(12);
    auth = { Authorization: `Bearer ${await token(server.url, 'admin', password)}` };
  }, 120_000);
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it('serves the studio at / and to browsers navigating elsewhere', async () => {
    for (const [url, accept] of [['/', '*/*'], ['/', BROWSER], ['/some/page', BROWSER]]) {
      const page = await fetch(`${server.url}${url}`, { headers: { accept } });
      expect(page.status, url).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('<div id="root">');
    }
  });

  it('answers unknown API and log paths with a JSON 404, whatever the client accepts', async () => {
    for (const url of ['/api/anything', '/api/v1/nope', '/api/v2/nope/deeper', '/logsx', '/api-x', '/some/page']) {
      for (const accept of [BROWSER, 'application/json', '*/*']) {
        if (url === '/some/page' && accept === BROWSER) continue;
        const res = await fetch(`${server.url}${url}`, { headers: { accept } });
        expect(res.status, `${url} (${accept})`).toBe(404);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(await res.json()).toEqual({ detail: `no route for GET ${url}`, code: 'WIFLOW_HTTP_ROUTE_NOT_FOUND' });
      }
    }
    const post = await fetch(`${server.url}/api/v1/nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await post.json()).toMatchObject({ code: 'WIFLOW_HTTP_ROUTE_NOT_FOUND' });
  });

  it('serves /logs as JSON to the admin and a JSON 401 to strangers, even from a browser', async () => {
    const stranger = await fetch(`${server.url}/logs`, { headers: { accept: BROWSER } });
    expect(stranger.status).toBe(401);
    expect(await stranger.json()).toMatchObject({ detail: 'Could not validate credentials' });
    // A run missing its input fails, and the server logs it.
    const flow = (await (
      await fetch(`${server.url}/api/v1/flows/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Needs input',
          data: {
            nodes: [
              { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'text' } } },
              { id: 'out', position: { x: 200, y: 0 }, data: { nodeType: 'io.output', config: { name: 'message' } } },
            ],
            edges: [{ id: 'e', source: 'in', sourceHandle: 'value', target: 'out', targetHandle: 'value' }],
          },
        }),
      })
    ).json()) as { id: string };
    const run = await fetch(`${server.url}/api/v1/run/${flow.id}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    expect(run.status).toBe(500);
    const logs = await fetch(`${server.url}/logs?lines_before=50`, { headers: { ...auth, accept: 'application/json' } });
    expect(logs.status).toBe(200);
    const body = (await logs.json()) as Record<string, string>;
    expect(Object.keys(body).every((k) => /^\d{13}$/.test(k))).toBe(true);
    const failure = Object.values(body).find((m) => m.includes(flow.id));
    expect(failure).toMatch(/^WARN \[studio\.runs\] run failed .*job input text is required/);
    expect(JSON.stringify(body)).not.toContain(password);
  });
});
