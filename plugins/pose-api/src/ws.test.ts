import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { makeFrame, startTestServer, type TestServer } from './fixtures.test-support.js';

/** A real ws client that queues what it receives and can wait for a message type. */
class Client {
  readonly messages: any[] = [];
  #waiters: { test: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((w) => (w.test(message) ? (w.resolve(message), false) : true));
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** The first message (already received or coming) that passes `test`. */
  next(test: (m: any) => boolean, timeoutMs = 5000): Promise<any> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching message in time')), timeoutMs);
      this.#waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Send and wait for the answer carrying the same request_id. */
  async request(message: Record<string, unknown>): Promise<any> {
    const requestId = Math.random().toString(36).slice(2);
    this.socket.send(JSON.stringify({ ...message, request_id: requestId }));
    return this.next((m) => m.request_id === requestId);
  }

  close(): void {
    this.socket.close();
  }
}

function open(url: string, options: { token?: string; header?: string; localAddress?: string } = {}): Promise<Client> {
  const target = `${url.replace('http', 'ws')}/ws/pose${options.token ? `?token=${encodeURIComponent(options.token)}` : ''}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(target, { headers: options.header ? { Authorization: `Bearer ${options.header}` } : {}, localAddress: options.localAddress });
    const client = new Client(socket);
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode })));
    socket.once('error', reject);
  });
}

describe('/ws/pose stream', () => {
  let s: TestServer;
  let token: string;
  const logLines: string[] = [];
  const clients: Client[] = [];
  const connect = async (options: Parameters<typeof open>[1] = {}) => {
    const client = await open(s.url, { token, ...options });
    clients.push(client);
    await client.next((m) => m.type === 'connection_established');
    return client;
  };

  beforeAll(async () => {
    s = await startTestServer({
      convention: 'B',
      alertEvery: 3,
      intervalMs: 20,
      config: { api: { websocket: { systemStatusIntervalMs: 200, maxConnectionsPerIp: 4, maxSubscriptionsPerClient: 2 } } },
      logLines,
    });
    token = await s.token('viewer');
    await s.api.system.start();
    await s.api.system.settled();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) {
      c.close();
      await c.closed;
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses upgrades without a valid token (401) and accepts the token in the query or the Authorization header', async () => {
    await expect(open(s.url)).rejects.toMatchObject({ status: 401 });
    await expect(open(s.url, { token: 'not-a-jwt' })).rejects.toMatchObject({ status: 401 });
    const viaHeader = await open(s.url, { header: token });
    const hello = await viaHeader.next((m) => m.type === 'connection_established');
    expect(hello).toMatchObject({ client_id: expect.any(String), supported_protocols: ['pose_v1', 'alerts_v1', 'sensing_v1'] });
    expect(Date.parse(hello.server_time)).toBeGreaterThan(0);
    viaHeader.close();
    await viaHeader.closed;
  });

  it('pose_updates: subscription_confirmed, then pose_update honouring min_confidence, include_keypoints and person_ids', async () => {
    const c = await connect();
    const confirmed = await c.request({ type: 'subscribe', channel: 'pose_updates', filters: { min_confidence: 0.5, include_keypoints: false } });
    expect(confirmed).toMatchObject({ type: 'subscription_confirmed', channel: 'pose_updates', subscription_id: expect.any(String) });
    expect(confirmed.filters_applied).toEqual({ min_confidence: 0.5, include_keypoints: false, include_dense_pose: false });
    const update = await c.next((m) => m.type === 'pose_update' && m.subscription_id === confirmed.subscription_id);
    expect(update.data.persons).toHaveLength(1);
    expect(update.data.persons[0].keypoints).toBeUndefined();
    expect(update.data.metadata.provenance).toBe('simulated');
    expect(update.data.frame_id).toEqual(expect.any(Number));
    const byId = await c.request({ type: 'subscribe', channel: 'pose_updates', filters: { person_ids: [1], include_dense_pose: true } });
    const other = await c.next((m) => m.type === 'pose_update' && m.subscription_id === byId.subscription_id);
    expect(other.data.persons.map((p: any) => p.person_id)).toEqual([1]);
    expect(other.data.persons[0].keypoints).toHaveLength(17);
  });

  it('alerts: only the subscribed types and severities arrive', async () => {
    const c = await connect();
    const confirmed = await c.request({ type: 'subscribe', channel: 'alerts', filters: { alert_types: ['intrusion'], severity: ['critical'] } });
    const alert = await c.next((m) => m.type === 'alert');
    expect(alert).toMatchObject({ subscription_id: confirmed.subscription_id, alert_type: 'intrusion', severity: 'critical', actions_required: ['check_room'] });
    expect(alert.data).toMatchObject({ person_id: 0, location: { x: 1, y: 2 }, confidence: 0.95, video_clip_url: null });
    // the same record MQTT and webhooks carry: the triggering event's id is there too (null when none)
    expect(alert).toHaveProperty('event_id');
    expect(alert).toMatchObject({ alert_id: expect.any(String), environment_id: expect.any(String), message: expect.any(String) });
    await c.next((m) => m.type === 'alert' && m !== alert);
    expect(c.messages.filter((m) => m.type === 'alert').every((m) => m.alert_type === 'intrusion')).toBe(true);
    const falls = await c.request({ type: 'subscribe', channel: 'alerts', filters: { alert_types: ['fall_detection'] } });
    const fall = await c.next((m) => m.type === 'alert' && m.subscription_id === falls.subscription_id);
    expect(fall.severity).toBe('high');
  });

  it('sensing_updates: the CSI sensing frames of the chosen room and scope, in the wire record MQTT carries', async () => {
    const c = await connect();
    const hello = await c.next((m) => m.type === 'connection_established');
    expect(hello.channels).toContain('sensing_updates');
    expect(hello.supported_protocols).toContain('sensing_v1');
    const bad = await c.request({ type: 'subscribe', channel: 'sensing_updates', filters: { scope: 'everything' } });
    expect(bad).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR', message: 'invalid filters for sensing_updates' });
    const rooms = await c.request({ type: 'subscribe', channel: 'sensing_updates', filters: { environment_id: 'ward-7' } });
    expect(rooms).toMatchObject({ type: 'subscription_confirmed', channel: 'sensing_updates', filters_applied: { environment_id: 'ward-7', scope: 'room' } });
    const links = await c.request({ type: 'subscribe', channel: 'sensing_updates', filters: { scope: 'link' } });
    const second = (n: number, patch: Record<string, unknown> = {}) => ({ time: Date.UTC(2026, 10, 29, 12, 0, n), second: n, scope: 'room' as const, environmentId: 'ward-7', link: null, presence: true, state: 'still' as const, motion: 0.04, breathingBpm: 14.5, breathingReason: null, breathingQuality: 5.2, activity: null, falls: [], lostFraction: 0.02, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'live' as const, ...patch });
    await s.api.hub.publishSensing(second(1, { environmentId: 'ward-8' }));
    await s.api.hub.publishSensing(second(2, { scope: 'link', link: { tx: 'ap', rx: 'esp32' } }));
    await s.api.hub.publishSensing(second(3));
    const update = await c.next((m) => m.type === 'sensing_update' && m.subscription_id === rooms.subscription_id);
    expect(update).toEqual({
      type: 'sensing_update',
      subscription_id: rooms.subscription_id,
      timestamp: '2026-11-29T12:00:03.000Z',
      data: { timestamp: '2026-11-29T12:00:03.000Z', environment_id: 'ward-7', scope: 'room', link: null, presence: true, state: 'still', motion: 0.04, breathing_bpm: 14.5, breathing_reason: null, activity: null, falls: [], lost_fraction: 0.02, source: { estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'live' } },
    });
    const link = await c.next((m) => m.type === 'sensing_update' && m.subscription_id === links.subscription_id);
    expect(link.data).toMatchObject({ scope: 'link', link: { tx: 'ap', rx: 'esp32' }, environment_id: 'ward-7' });
    // Ward 8's frame and the link frame reached neither subscription they do not match.
    const updates = c.messages.filter((m) => m.type === 'sensing_update');
    expect(updates.filter((m) => m.subscription_id === rooms.subscription_id).map((m) => m.data.timestamp)).toEqual(['2026-11-29T12:00:03.000Z']);
    expect(updates.filter((m) => m.subscription_id === links.subscription_id)).toHaveLength(1);
  });

  it('system_status arrives periodically with real figures; ping answers pong', async () => {
    const c = await connect();
    const status = await c.next((m) => m.type === 'system_status');
    expect(status.status.system_state).toBe('running');
    expect(status.status.system_health).toBe('healthy');
    expect(status.status.processing_fps).toBeGreaterThan(0);
    expect(status.status.active_persons).toBe(2);
    expect(status.status.gpu_utilization).toBeNull();
    const pong = await c.request({ type: 'ping', timestamp: 12345 });
    expect(pong).toMatchObject({ type: 'pong', client_timestamp: 12345 });
  });

  it('unsubscribe stops the updates; unknown subscription ids are an error', async () => {
    const c = await connect();
    const sub = await c.request({ type: 'subscribe', channel: 'pose_updates', filters: {} });
    await c.next((m) => m.type === 'pose_update');
    const done = await c.request({ type: 'unsubscribe', subscription_id: sub.subscription_id });
    expect(done).toMatchObject({ type: 'unsubscribed', subscription_id: sub.subscription_id });
    const count = c.messages.filter((m) => m.type === 'pose_update').length;
    await c.request({ type: 'ping' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(c.messages.filter((m) => m.type === 'pose_update').length).toBe(count);
    const unknown = await c.request({ type: 'unsubscribe', subscription_id: 'nope' });
    expect(unknown).toMatchObject({ type: 'error', code: 'RESOURCE_NOT_FOUND' });
  });

  it('bad messages get an error and the connection stays up', async () => {
    const c = await connect();
    const errorsBefore = () => c.messages.filter((m) => m.type === 'error').length;
    c.socket.send('{not json');
    await c.next((m) => m.type === 'error' && /not valid JSON/.test(m.message));
    c.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    await c.next((m) => m.type === 'error' && /binary/.test(m.message));
    const unknown = await c.request({ type: 'dance' });
    expect(unknown).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR', message: expect.stringMatching(/unknown message type/) });
    const noChannel = await c.request({ type: 'subscribe', channel: 'weather' });
    expect(noChannel.code).toBe('VALIDATION_ERROR');
    const badFilter = await c.request({ type: 'subscribe', channel: 'pose_updates', filters: { min_confidence: 7, colour: 'red' } });
    expect(badFilter.details.field_errors.map((f: any) => f.field).sort()).toEqual(['filters.colour', 'filters.min_confidence']);
    const badSeverity = await c.request({ type: 'subscribe', channel: 'alerts', filters: { severity: ['apocalyptic'] } });
    expect(badSeverity.code).toBe('VALIDATION_ERROR');
    c.socket.send(JSON.stringify([1, 2]));
    await c.next((m) => m.type === 'error' && /type/.test(m.message) && errorsBefore() >= 6);
    // An error echoes a bounded copy of what was sent: a request_id over the 128 characters the
    // schema allows is not sent back (it was, whole, up to the 1 MiB message limit).
    const seen = c.messages.length;
    c.socket.send(JSON.stringify({ type: 'dance', request_id: 'r'.repeat(60_000) }));
    const refused = await c.next((m) => m.type === 'error' && c.messages.indexOf(m) >= seen && /unknown message type "dance"/.test(m.message));
    expect(JSON.stringify(refused).length).toBeLessThan(2000);
    expect(c.socket.readyState).toBe(WebSocket.OPEN);
    expect((await c.request({ type: 'ping' })).type).toBe('pong');
  });

  it('limits subscriptions per client and connections per address', async () => {
    const c = await connect();
    await c.request({ type: 'subscribe', channel: 'alerts' });
    await c.request({ type: 'subscribe', channel: 'alerts' });
    const third = await c.request({ type: 'subscribe', channel: 'alerts' });
    expect(third).toMatchObject({ type: 'error', code: 'RATE_LIMIT_EXCEEDED', details: { limit: 2 } });
    clients.splice(0).forEach((old) => old.close());
    await c.closed;
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await connect());
    await expect(open(s.url, { token })).rejects.toMatchObject({ status: 429 });
    // Another loopback address has its own budget.
    const elsewhere = await connect({ localAddress: '127.0.0.2' });
    expect(elsewhere.socket.readyState).toBe(WebSocket.OPEN);
    for (const h of [...held, elsewhere]) {
      h.close();
      await h.closed;
    }
    clients.splice(0);
    expect(await connect()).toBeDefined();
  });

  it('a slow client has frames skipped, counted and reported, and is closed with a reason when it stays behind', async () => {
    await s.api.system.stop();
    await s.api.system.settled();
    s.runtime.config.update({ api: { websocket: { maxBufferedBytes: 64 * 1024, maxSkippedFrames: 1_000_000 } } });
    const lagging = await connect();
    const sub = await lagging.request({ type: 'subscribe', channel: 'pose_updates', filters: {} });
    const raw = (lagging.socket as unknown as { _socket: Socket })._socket;
    raw.pause();
    let frameId = 0;
    const skippedBefore = s.api.stream.counters.framesSkipped;
    while (s.api.stream.counters.framesSkipped - skippedBefore < 50) {
      for (let i = 0; i < 200; i++) s.api.hub.publishFrame(makeFrame(++frameId, 'lab', 6));
      await new Promise((resolve) => setImmediate(resolve));
    }
    raw.resume();
    // Once it caught up, the next delivered frame says how many were skipped.
    const reported = new Promise((resolve) => {
      const tick = setInterval(() => s.api.hub.publishFrame(makeFrame(++frameId, 'lab', 1)), 20);
      void lagging.next((m) => m.type === 'pose_update' && m.subscription_id === sub.subscription_id && m.skipped_frames > 0, 20_000).then((m) => (clearInterval(tick), resolve(m)));
    });
    expect(((await reported) as any).skipped_frames).toBeGreaterThan(0);
    const status = s.api.stream.statusMessage();
    expect((status.status as any).frames_skipped_total).toBeGreaterThanOrEqual(50);

    s.runtime.config.update({ api: { websocket: { maxSkippedFrames: 20 } } });
    const stuck = await connect();
    await stuck.request({ type: 'subscribe', channel: 'pose_updates', filters: {} });
    (stuck.socket as unknown as { _socket: Socket })._socket.pause();
    const closedBefore = s.api.stream.counters.slowClientsClosed;
    while (s.api.stream.counters.slowClientsClosed === closedBefore) {
      for (let i = 0; i < 200; i++) s.api.hub.publishFrame(makeFrame(++frameId, 'lab', 6));
      await new Promise((resolve) => setImmediate(resolve));
    }
    (stuck.socket as unknown as { _socket: Socket })._socket.resume();
    const closed = await stuck.closed;
    expect(closed.code).toBe(4008);
    expect(closed.reason).toMatch(/too slow: 20 frames skipped/);
    expect([...s.api.stream.clients].some((c) => c.socket.readyState === WebSocket.CLOSED)).toBe(false);
  });

  it('a slow client misses sensing seconds counted: its next sensing_update says how many, system_status its total', async () => {
    s.runtime.config.update({ api: { websocket: { maxBufferedBytes: 64 * 1024, maxSkippedFrames: 1_000_000 } } });
    const lagging = await connect();
    await lagging.request({ type: 'subscribe', channel: 'pose_updates', filters: {} });
    const sensingSub = await lagging.request({ type: 'subscribe', channel: 'sensing_updates', filters: { environment_id: 'slow-room' } });
    const raw = (lagging.socket as unknown as { _socket: Socket })._socket;
    raw.pause();
    const second = (n: number) => ({ time: Date.UTC(2026, 10, 29, 13, 0, 0) + n * 1000, second: n, scope: 'room' as const, environmentId: 'slow-room', link: null, presence: true, state: 'moving' as const, motion: 0.9, breathingBpm: null, breathingReason: 'moving' as const, breathingQuality: null, activity: 'walking' as const, falls: [], lostFraction: 0, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'live' as const });
    // Pose frames fill the paused client's buffer; the sensing seconds published then are skipped.
    let frameId = 0;
    const skippedBefore = s.api.stream.counters.framesSkipped;
    while (s.api.stream.counters.framesSkipped === skippedBefore) {
      for (let i = 0; i < 200; i++) s.api.hub.publishFrame(makeFrame(++frameId, 'lab', 6));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const sensingBefore = s.api.stream.counters.sensingSkipped;
    for (let n = 0; n < 7; n++) await s.api.hub.publishSensing(second(n));
    expect(s.api.stream.counters.sensingSkipped - sensingBefore).toBe(7);
    raw.resume();
    // Once it caught up, the first sensing second it receives says how many it missed: the 7 and any
    // published while its buffer drained, so every second before this one (and only this one says so).
    let n = 7;
    const reported = new Promise<any>((resolve) => {
      const tick = setInterval(() => void s.api.hub.publishSensing(second(n++)), 20);
      void lagging.next((m) => m.type === 'sensing_update' && m.subscription_id === sensingSub.subscription_id, 20_000).then((m) => (clearInterval(tick), resolve(m)));
    });
    const first = await reported;
    const firstSecond = (Date.parse(first.data.timestamp) - Date.UTC(2026, 10, 29, 13, 0, 0)) / 1000;
    expect(firstSecond).toBeGreaterThanOrEqual(7);
    expect(first.skipped_seconds).toBe(firstSecond);
    expect(first.data.environment_id).toBe('slow-room');
    await s.api.hub.publishSensing(second(n++));
    const next = await lagging.next((m) => m.type === 'sensing_update' && m.subscription_id === sensingSub.subscription_id && m !== first);
    expect(next.skipped_seconds).toBeUndefined();
    const client = [...s.api.stream.clients].find((c) => c.subscriptions.has(sensingSub.subscription_id))!;
    expect(client.skippedSensing).toBe(firstSecond);
    expect((s.api.stream.statusMessage().status as any).sensing_skipped_total).toBeGreaterThanOrEqual(7);
    lagging.close();
    await lagging.closed;
  });

  it('never writes a token to the log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const signature = token.split('.')[2];
    expect(logLines.some((line) => line.includes(signature) || line.includes('not-a-jwt'))).toBe(false);
  });

  it('answers 503 to upgrades when streaming.websocket_enabled is off', async () => {
    s.runtime.config.update({ pose: { streaming: { websocket_enabled: false } } });
    await expect(open(s.url, { token })).rejects.toMatchObject({ status: 503 });
    s.runtime.config.update({ pose: { streaming: { websocket_enabled: true } } });
  });
});
