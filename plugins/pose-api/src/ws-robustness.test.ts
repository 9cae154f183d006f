import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { makeFrame, startTestServer, waitFor, type TestServer } from './fixtures.test-support.js';

/** A real ws client, open, with a promise of how it closed. */
async function open(url: string, token: string): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/ws/pose?token=${encodeURIComponent(token)}`);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
  return { socket, closed };
}

describe('/ws/pose robustness', () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startTestServer();
    token = await s.token('viewer');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('/health/detailed counts the WebSocket clients that are connected', async () => {
    const detailed = async () => ((await (await fetch(`${s.url}/api/v1/health/detailed`, { headers: { authorization: `Bearer ${token}` } })).json()) as any).components.api.websocket_clients;
    expect(await detailed()).toBe(0);
    const clients = await Promise.all([open(s.url, token), open(s.url, token), open(s.url, token)]);
    await waitFor(() => s.api.stream.clients.size === 3);
    expect(await detailed()).toBe(3);
    clients[0].socket.close();
    await clients[0].closed;
    await waitFor(() => s.api.stream.clients.size === 2);
    expect(await detailed()).toBe(2);
    for (const c of clients.slice(1)) c.socket.close();
    await Promise.all(clients.slice(1).map((c) => c.closed));
  });

  it('a slow client that stays stalled over 30 s still receives its close code 4008 and reason when it reads again', { timeout: 90_000 }, async () => {
    s.runtime.config.update({ api: { websocket: { maxBufferedBytes: 64 * 1024, maxSkippedFrames: 20 } } });
    const stuck = await open(s.url, token);
    stuck.socket.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: {} }));
    await waitFor(() => [...s.api.stream.clients].some((c) => c.subscriptions.size > 0));
    const raw = (stuck.socket as unknown as { _socket: Socket })._socket;
    raw.pause();
    const closedBefore = s.api.stream.counters.slowClientsClosed;
    let frameId = 0;
    while (s.api.stream.counters.slowClientsClosed === closedBefore) {
      for (let i = 0; i < 200; i++) s.api.hub.publishFrame(makeFrame(++frameId, 'lab', 6));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The scenario itself is a duration: the client reads nothing for longer than ws's 30 s closing handshake.
    await new Promise((resolve) => setTimeout(resolve, 31_000));
    raw.resume();
    const closed = await stuck.closed;
    expect(closed.code).toBe(4008);
    expect(closed.reason).toMatch(/too slow: 20 frames skipped/);
  });

  it('a client that sends and never reads is closed 4008 once its unread replies pass maxBufferedBytes; the server does not buffer its flood', async () => {
    s.runtime.config.update({ api: { websocket: { maxBufferedBytes: 256 * 1024 } } });
    const flooder = await open(s.url, token);
    await waitFor(() => s.api.stream.clients.size === 1);
    const serverSide = [...s.api.stream.clients][0].socket;
    (flooder.socket as unknown as { _socket: Socket })._socket.pause();
    const closedBefore = s.api.stream.counters.slowClientsClosed;
    // Each ping echoes its timestamp: 64 MB of pings ask for 64 MB of pongs nobody reads.
    const ping = JSON.stringify({ type: 'ping', timestamp: 'x'.repeat(1_000_000) });
    for (let i = 0; i < 64; i++) {
      flooder.socket.send(ping);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(() => s.api.stream.counters.slowClientsClosed > closedBefore, 10_000);
    await new Promise((resolve) => setImmediate(resolve));
    // What the server holds for it: the limit, plus at most the reply that crossed it and the close frame.
    expect(serverSide.bufferedAmount).toBeLessThan(256 * 1024 + 2 * 1_000_100);
    const other = await open(s.url, token);
    const pong = new Promise<string>((resolve) => other.socket.on('message', (data) => String(data).includes('"pong"') && resolve(String(data))));
    other.socket.send(JSON.stringify({ type: 'ping' }));
    expect(await pong).toContain('pong');
    other.socket.close();
    flooder.socket.terminate();
  });
});
