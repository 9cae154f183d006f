import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { definePlugin } from '../index.js';
import { createTestRuntime } from '../testing/index.js';

const routes = definePlugin({
  name: 'http-test',
  setup(ctx) {
    ctx.hooks.http.tap('http-test', (http) => {
      http.app.get('/api/v1/hello', (_req, res) => void res.json({ hello: 'world' }));
      http.app.get('/slow', (_req, res) => void setTimeout(() => res.json({ slow: true }), 200));
      http.websocket('/ws/echo', (socket) => socket.on('message', (m) => socket.send(String(m))));
      http.websocket('/ws/guarded', () => {}, (req) => (req.headers['x-token'] === 'ok' ? { ok: true } : { ok: false, status: 401, reason: 'missing token' }));
    });
  },
});

describe('HTTP host', () => {
  it('serves plugin routes, health, WebSocket routes by path, and shuts down gracefully', async () => {
    const runtime = await createTestRuntime({ plugins: [routes] });
    const { url } = await runtime.listen(0, '127.0.0.1');
    expect(await (await fetch(`${url}/api/v1/hello`)).json()).toEqual({ hello: 'world' });
    const health = (await (await fetch(`${url}/api/v1/health`)).json()) as { status: string; version: string };
    expect(health.status).toBe('healthy');
    const missing = await fetch(`${url}/nothing-here`, { headers: { accept: 'text/html' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/json');
    expect(await missing.json()).toEqual({ detail: 'no route for GET /nothing-here', code: 'WIFLOW_HTTP_ROUTE_NOT_FOUND' });

    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/echo`);
    await new Promise((r) => ws.once('open', r));
    ws.send('ping');
    const reply = await new Promise<string>((r) => ws.once('message', (m) => r(String(m))));
    expect(reply).toBe('ping');

    const refused = new WebSocket(`${url.replace('http', 'ws')}/ws/guarded`);
    const status = await new Promise<number>((r) => refused.once('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
    const unknown = new WebSocket(`${url.replace('http', 'ws')}/ws/none`);
    expect(await new Promise<number>((r) => unknown.once('unexpected-response', (_req, res) => r(res.statusCode ?? 0)))).toBe(404);

    // An in-flight request finishes; open sockets are closed with 1001.
    const inFlight = fetch(`${url}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const t0 = Date.now();
    await runtime.stop(3000);
    expect(await inFlight).toEqual({ slow: true });
    expect(await closed).toBe(1001);
    expect(Date.now() - t0).toBeLessThan(3000);
    await expect(fetch(`${url}/api/v1/hello`)).rejects.toThrow();
  });
});
