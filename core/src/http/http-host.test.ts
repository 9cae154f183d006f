import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { definePlugin } from '../index.js';
import { createTestRuntime } from '../testing/index.js';

const routes = definePlugin({
  name: 'http-test',
  setup(ctx) {
    ctx.hooks.http.tap('http-test', (http) => {
      http.app.get('/api/v1/hello', (_req, res) => void res.json({ hello: 'world' }));
      http.app.get('/api/v1/things/:id', (req, res) => void res.json({ id: req.params.id }));
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

  it('answers a request or upgrade whose target is not a URL with 400 in JSON, and keeps serving', async () => {
    const runtime = await createTestRuntime({ plugins: [routes] });
    const { url } = await runtime.listen(0, '127.0.0.1');
    const port = Number(new URL(url).port);
    /** One raw upgrade request (no client library would send these targets); the status line that came back. */
    const upgrade = (target: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`),
        );
        let answer = '';
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer.split('\r\n')[0]));
        socket.on('error', () => resolve(answer.split('\r\n')[0]));
      });
    // Node's parser passes these targets on; new URL() throws on them (it killed the process before).
    for (const target of ['//[', 'http://[/ws/echo', '//user@[::1/ws/echo']) expect(await upgrade(target), target).toBe('HTTP/1.1 400 Bad Request');
    // A plain request with such a target gets the JSON error, not Express's HTML page.
    const plain = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET http://[/api/v1/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      let answer = '';
      socket.on('data', (chunk) => (answer += String(chunk)));
      socket.on('close', () => resolve(answer));
    });
    expect(plain.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(plain.slice(plain.indexOf('\r\n\r\n') + 4))).toEqual({ detail: 'the request target is not a valid URL', code: 'WIFLOW_HTTP_INVALID_REQUEST_TARGET' });
    expect((await fetch(`${url}/api/v1/hello`)).status).toBe(200);
    await runtime.stop(3000);
  });

  it('answers a path parameter that is not valid percent-encoding with a 400 that carries a code', async () => {
    const runtime = await createTestRuntime({ plugins: [routes] });
    const { url } = await runtime.listen(0, '127.0.0.1');
    for (const id of ['%ZZ', '%C0%AE%C0%AE', '%E0%A4%A']) {
      const answer = await fetch(`${url}/api/v1/things/${id}`);
      expect(answer.status, id).toBe(400);
      expect(await answer.json(), id).toEqual({ detail: `Failed to decode param '${id}'`, code: 'WIFLOW_HTTP_INVALID_PATH' });
    }
    expect(await (await fetch(`${url}/api/v1/things/a%20b`)).json()).toEqual({ id: 'a b' });
    await runtime.stop(3000);
  });
});
