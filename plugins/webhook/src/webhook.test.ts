import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretBox, Tokens, type Runtime } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import webhookPlugin, { webhookErrorCatalogue, backoffDelay, SlidingWindowLimiter, verifyWebhookSignature, signPayload, WebhookTokens, type WebhookDispatcher } from './index.js';
import { testAuthPlugin } from './test/auth.js';
import { alert, analyticsEvent } from './test/fixtures.js';
import { Receiver } from './test/receiver.js';

const SECRET = 'a-webhook-secret-of-some-length';
const ADMIN = { authorization: 'Bearer admin-token' };
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Server {
  runtime: Runtime;
  base: string;
  dataDir: string;
  api(method: string, pathname: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Headers }>;
}

async function startServer(webhooks: Record<string, unknown> = {}, dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-webhook-'))): Promise<Server> {
  const runtime = await createTestRuntime({
    plugins: [sqlitePlugin, testAuthPlugin, webhookPlugin],
    dataDir,
    config: { webhooks: { baseDelayMs: 20, maxDelayMs: 200, timeoutMs: 2000, ...webhooks } },
  });
  const { url } = await runtime.listen(0, '127.0.0.1');
  cleanups.push(() => runtime.stop(5000));
  return {
    runtime,
    base: url,
    dataDir,
    async api(method, pathname, body, headers = ADMIN) {
      const response = await fetch(`${url}/api/v1/webhooks${pathname}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : null, headers: response.headers };
    },
  };
}

async function startReceiver(secret = SECRET): Promise<Receiver> {
  const receiver = new Receiver(secret);
  await receiver.listen();
  cleanups.push(() => receiver.close());
  return receiver;
}

async function register(server: Server, url: string, eventTypes: string[] = ['*'], secret = SECRET): Promise<string> {
  const created = await server.api('POST', '', { url, event_types: eventTypes, secret, description: 'test receiver' });
  expect(created.status).toBe(201);
  return created.json.id as string;
}

describe('webhook registration API', () => {
  it('authenticates through hooks.authenticate and needs the admin or operator role', async () => {
    const server = await startServer();
    const none = await server.api('GET', '', undefined, {});
    expect(none.status).toBe(401);
    expect(none.json.error).toMatchObject({ code: 'AUTHENTICATION_ERROR', details: { wiflow_code: 'WIFLOW_WEBHOOK_UNAUTHENTICATED' } });
    expect(typeof none.json.error.request_id).toBe('string');
    expect((await server.api('GET', '', undefined, { authorization: 'Bearer forged' })).status).toBe(401);
    const viewer = await server.api('GET', '', undefined, { authorization: 'Bearer viewer-token' });
    expect(viewer.status).toBe(403);
    expect(viewer.json.error.code).toBe('AUTHORIZATION_ERROR');
    // A viewer may not even get a body parsed.
    expect((await server.api('POST', '', '{not json', { authorization: 'Bearer viewer-token' })).status).toBe(403);
    expect((await server.api('GET', '', undefined, { 'x-api-key': 'operator-key' })).status).toBe(200);
    expect((await server.api('GET', '', undefined, ADMIN)).json).toEqual({ webhooks: [], total: 0 });
  });

  it('validates bodies field by field and never echoes the secret', async () => {
    const server = await startServer();
    const bad = await server.api('POST', '', { url: 'ftp://example.com/x', event_types: ['alert.*', 'bogus'], secret: 'short', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
    const fields = (bad.json.error.details.field_errors as { field: string; received_value: unknown }[]).map((f) => f.field).sort();
    expect(fields).toEqual(['(body)', 'event_types.1', 'secret', 'url']);
    expect(JSON.stringify(bad.json)).not.toContain('short');
    expect(JSON.stringify(bad.json)).toContain('[redacted]');
    // A URL with user info would fail every delivery (fetch refuses it): refused at once, the password not echoed.
    const withCredentials = await server.api('POST', '', { url: 'https://hook:s3cret-in-url@example.com/x', event_types: ['alert.*'], secret: 'a-long-enough-secret' });
    expect(withCredentials.status).toBe(422);
    expect(withCredentials.json.error.details.field_errors).toEqual([{ field: 'url', message: expect.stringMatching(/^must not carry credentials/), received_value: 'https://hook:***@example.com/x' }]);
    expect(JSON.stringify(withCredentials.json)).not.toContain('s3cret-in-url');
    const missing = await server.api('POST', '', { url: 'http://127.0.0.1:9/x', event_types: [] });
    expect(missing.status).toBe(422);
    expect(missing.json.error.details.field_errors.map((f: { field: string }) => f.field).sort()).toEqual(['event_types', 'secret']);
    const malformed = await server.api('POST', '', '{"url":', ADMIN);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { wiflow_code: 'WIFLOW_WEBHOOK_MALFORMED' } });
    const notObject = await server.api('POST', '', 'null', ADMIN);
    expect(notObject.status).toBe(422);
    expect(notObject.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { wiflow_code: 'WIFLOW_WEBHOOK_INVALID', field_errors: [{ field: '(body)', message: 'must be a JSON object' }] } });
    expect((await server.api('GET', '/wh_missing')).status).toBe(404);
    expect((await server.api('GET', '/wh_missing')).json.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('creates, lists, gets, updates and deletes; the secret is stored sealed and never returned', async () => {
    const server = await startServer();
    const receiver = await startReceiver();
    const created = await server.api('POST', '', { url: receiver.url, event_types: ['alert.*', 'event.fall_detection'], secret: SECRET });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/webhooks/${created.json.id}`);
    expect(created.json).toMatchObject({ url: receiver.url, event_types: ['alert.*', 'event.fall_detection'], active: true, has_secret: true, created_by: 'alice' });
    expect(JSON.stringify(created.json)).not.toContain(SECRET);
    const id = created.json.id as string;

    const listed = await server.api('GET', '');
    expect(listed.json.total).toBe(1);
    expect(listed.json.webhooks[0]).toMatchObject({ id, stats: { delivered: 0, failed: 0, in_flight: 0, rate_limit_remaining: 10_000 } });
    expect(JSON.stringify(listed.json)).not.toContain(SECRET);
    expect((await server.api('GET', `/${id}`)).json).toMatchObject({ id, has_secret: true });

    // Stored in the storage's settings documents, sealed with the runtime's SecretBox.
    const stored = await server.runtime.storage.settings.get('webhooks', id);
    const sealed = (stored!.value as { secretSealed: string }).secretSealed;
    expect(sealed).not.toContain(SECRET);
    expect(server.runtime.services.get(Tokens.SecretBox).open(sealed)).toBe(SECRET);
    await server.runtime.storage.flush();
    for (const file of readdirSync(server.dataDir)) {
      expect(readFileSync(path.join(server.dataDir, file)).includes(Buffer.from(SECRET)), `${file} holds the clear secret`).toBe(false);
    }

    const patched = await server.api('PATCH', `/${id}`, { active: false, event_types: ['*'], secret: 'another-secret-16chars' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ active: false, event_types: ['*'] });
    expect(JSON.stringify(patched.json)).not.toContain('another-secret');
    expect((await server.api('PATCH', `/${id}`, { url: 'nope' })).status).toBe(422);

    expect((await server.api('DELETE', `/${id}`)).status).toBe(204);
    expect((await server.api('GET', `/${id}`)).status).toBe(404);
    expect((await server.api('GET', `/${id}/deliveries`)).status).toBe(404);
    expect((await server.api('GET', '')).json.total).toBe(0);
  });
});

describe('webhook deliveries', () => {
  it('signs deliveries from a flow, retries after a failed first attempt, and logs them', async () => {
    const server = await startServer();
    const receiver = await startReceiver();
    // Fail the first attempt of every delivery.
    receiver.respond = (_req, attempt) => (attempt === 1 ? 503 : 200);
    const id = await register(server, receiver.url, ['alert.*', 'event.fall_detection']);

    const flow = buildFlow(
      { events: ['test.feed', { input: 'events' }], alerts: ['test.feed', { input: 'alerts' }], hook: ['webhook.deliver', {}] },
      ['events.out -> hook.events', 'alerts.out -> hook.alerts'],
    );
    const result = await runFlow(server.runtime, flow, { events: [analyticsEvent('fall_detection'), analyticsEvent('zone_entry')], alerts: [alert('fall_detection')] });
    expect(result.status).toBe('completed');
    await receiver.until(() => receiver.accepted().length === 2, 'two accepted deliveries');

    expect(receiver.requests).toHaveLength(4);
    expect(receiver.requests.every((r) => r.signatureValid)).toBe(true);
    const types = receiver.accepted().map((r) => r.headers['x-wiflow-event']).sort();
    expect(types).toEqual(['alert.fall_detection', 'event.fall_detection']);
    for (const accepted of receiver.accepted()) {
      const deliveryId = accepted.headers['x-wiflow-delivery'];
      const attempts = receiver.requests.filter((r) => r.headers['x-wiflow-delivery'] === deliveryId);
      expect(attempts.map((r) => [r.headers['x-wiflow-attempt'], r.answered])).toEqual([['1', 503], ['2', 200]]);
      // The body (and its id) is the same on every attempt; the signature covers a fresh timestamp.
      expect(attempts[1].body).toBe(attempts[0].body);
      expect(accepted.json).toMatchObject({ id: deliveryId, webhook_id: id, environment_id: 'living-room' });
      expect(accepted.headers['content-type']).toBe('application/json');
      expect(accepted.headers['x-wiflow-webhook-id']).toBe(id);
    }
    const alertBody = receiver.accepted().find((r) => r.headers['x-wiflow-event'] === 'alert.fall_detection')!.json;
    expect(alertBody.type).toBe('alert.fall_detection');
    expect(alertBody.data).toMatchObject({ alert_id: 'alert-fall_detection', alert_type: 'fall_detection', severity: 'critical', actions_required: ['check on person'], timestamp: '2026-01-01T12:00:02.000Z' });

    const dispatcher = server.runtime.services.get(WebhookTokens.Dispatcher);
    expect(await dispatcher.idle(5000)).toBe(true);
    const log = await server.api('GET', `/${id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.json.total).toBe(2);
    for (const entry of log.json.deliveries) {
      expect(entry).toMatchObject({ status: 'delivered', attempts: 2, response_code: 200, error: null });
      expect(typeof entry.latency_ms).toBe('number');
    }
    expect((await server.api('GET', `/${id}`)).json.stats).toMatchObject({ delivered: 2, failed: 0, retries: 2 });
    expect((await server.api('GET', `/${id}/deliveries?status=failed`)).json.total).toBe(0);
    expect((await server.api('GET', `/${id}/deliveries?limit=5000`)).status).toBe(422);
  });

  it('gives up after maxAttempts on 5xx, at once on other 4xx, and logs why', async () => {
    const server = await startServer({ maxAttempts: 3 });
    const receiver = await startReceiver();
    receiver.respond = (req) => (req.json.type === 'alert.intrusion' ? 500 : 410);
    const id = await register(server, receiver.url);
    const dispatcher = server.runtime.services.get(WebhookTokens.Dispatcher);
    await dispatcher.dispatch('alert.intrusion', 'shop', { alert_id: 'a1' });
    await dispatcher.dispatch('event.zone_entry', 'shop', { event_id: 'e1' });
    expect(await dispatcher.idle(10_000)).toBe(true);
    expect(receiver.requests.filter((r) => r.json.type === 'alert.intrusion')).toHaveLength(3);
    expect(receiver.requests.filter((r) => r.json.type === 'event.zone_entry')).toHaveLength(1);
    const log = (await server.api('GET', `/${id}/deliveries?status=failed`)).json;
    expect(log.total).toBe(2);
    const byType = Object.fromEntries(log.deliveries.map((d: { event_type: string }) => [d.event_type, d]));
    expect(byType['alert.intrusion']).toMatchObject({ attempts: 3, response_code: 500, error: 'HTTP 500' });
    expect(byType['event.zone_entry']).toMatchObject({ attempts: 1, response_code: 410, error: 'HTTP 410' });
  });

  it('retries when the endpoint is unreachable, and follows Retry-After', async () => {
    const server = await startServer({ maxAttempts: 2, maxDelayMs: 1000 });
    const receiver = await startReceiver();
    const closedPort = await startReceiver();
    const deadUrl = closedPort.url;
    await closedPort.close();
    const dead = await register(server, deadUrl);
    const slow = await register(server, receiver.url);
    receiver.respond = (_req, attempt) => (attempt === 1 ? { status: 429, headers: { 'retry-after': '1' } } : 200);
    const dispatcher = server.runtime.services.get(WebhookTokens.Dispatcher);
    await dispatcher.dispatch('alert.intrusion', 'shop', {});
    expect(await dispatcher.idle(10_000)).toBe(true);
    const deadLog = (await server.api('GET', `/${dead}/deliveries`)).json.deliveries[0];
    expect(deadLog).toMatchObject({ status: 'failed', attempts: 2, response_code: null });
    expect(deadLog.error).toMatch(/ECONNREFUSED|connect/i);
    const [first, second] = receiver.requests;
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect((await server.api('GET', `/${slow}/deliveries`)).json.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('holds deliveries to the per-endpoint rate limit and drops the oldest when the queue is full', async () => {
    const server = await startServer({ rateLimit: { events: 3, windowSeconds: 1 } });
    const receiver = await startReceiver();
    const id = await register(server, receiver.url);
    const dispatcher = server.runtime.services.get(WebhookTokens.Dispatcher);
    const started = Date.now();
    for (let i = 0; i < 5; i++) await dispatcher.dispatch('alert.intrusion', 'shop', { n: i });
    await receiver.until(() => receiver.accepted().length === 5, 'five deliveries');
    const times = receiver.accepted().map((r) => r.at - started);
    expect(times.slice(0, 3).every((t) => t < 900)).toBe(true);
    expect(times.slice(3).every((t) => t >= 990)).toBe(true);
    expect(dispatcher.endpointStats(id)!.rateLimited).toBeGreaterThan(0);

    const tight = await startServer({ rateLimit: { events: 1, windowSeconds: 60 }, queueLimit: 2 });
    const tightReceiver = await startReceiver();
    const tightId = await register(tight, tightReceiver.url);
    const tightDispatcher = tight.runtime.services.get(WebhookTokens.Dispatcher);
    for (let i = 0; i < 5; i++) await tightDispatcher.dispatch('alert.intrusion', 'shop', { n: i });
    await tightReceiver.until(() => tightReceiver.accepted().length === 1, 'the one delivery the window allows');
    expect((tightReceiver.accepted()[0].json.data as { n: number }).n).toBe(0);
    await expect.poll(() => tightDispatcher.endpointStats(tightId)?.delivered).toBe(1);
    expect(tightDispatcher.endpointStats(tightId)).toMatchObject({ delivered: 1, queued: 2, dropped: 2, rateLimitRemaining: 0 });
    await expect.poll(async () => (await tight.api('GET', `/${tightId}/deliveries?status=dropped`)).json.total).toBe(2);
    const dropped = (await tight.api('GET', `/${tightId}/deliveries?status=dropped`)).json.deliveries[0];
    expect(dropped.error).toMatch(/queue full/);
  });

  it('keeps registrations across restarts (sqlite) and answers a ping', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-webhook-'));
    const first = await startServer({}, dataDir);
    const receiver = await startReceiver();
    const id = await register(first, receiver.url, ['alert.fall_detection']);
    await first.runtime.stop(5000);

    const second = await startServer({}, dataDir);
    expect((await second.api('GET', '')).json.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
    const ping = await second.api('POST', `/${id}/ping`);
    expect(ping.status).toBe(202);
    await receiver.until(() => receiver.accepted().length === 1, 'ping');
    expect(receiver.accepted()[0].json).toMatchObject({ id: ping.json.delivery_id, type: 'webhook.ping', data: { message: 'ping from wiflow' } });
    expect(receiver.accepted()[0].signatureValid).toBe(true);
  });

  it('logs deliveries still waiting to retry as dropped when the runtime stops', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-webhook-'));
    const first = await startServer({ baseDelayMs: 60_000, maxDelayMs: 60_000 }, dataDir);
    const receiver = await startReceiver();
    receiver.respond = () => 503;
    const id = await register(first, receiver.url);
    const dispatcher = first.runtime.services.get(WebhookTokens.Dispatcher);
    await dispatcher.dispatch('alert.intrusion', 'shop', {});
    await receiver.until(() => receiver.requests.length === 1, 'first attempt');
    await expect.poll(() => dispatcher.endpointStats(id)?.retrying).toBe(1);
    await first.runtime.stop(5000);

    const second = await startServer({}, dataDir);
    const log = (await second.api('GET', `/${id}/deliveries`)).json;
    expect(log.deliveries).toEqual([expect.objectContaining({ status: 'dropped', attempts: 1, response_code: 503, error: 'runtime stopped before delivery' })]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('cancels queued and retrying deliveries when a webhook is deleted', async () => {
    const server = await startServer({ baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const receiver = await startReceiver();
    receiver.respond = () => 500;
    const id = await register(server, receiver.url);
    const dispatcher = server.runtime.services.get(WebhookTokens.Dispatcher);
    await dispatcher.dispatch('alert.intrusion', 'shop', {});
    await expect.poll(() => dispatcher.endpointStats(id)?.retrying).toBe(1);
    expect((await server.api('DELETE', `/${id}`)).status).toBe(204);
    expect(dispatcher.endpointStats(id)).toBeNull();
    expect(await dispatcher.idle(1000)).toBe(true);
    expect(await server.runtime.storage.settings.list(`webhook-deliveries:${id}`)).toEqual([]);
  });

  it('answers errors in the envelope of convention B when the API uses it', async () => {
    const runtime = await createTestRuntime({ plugins: [sqlitePlugin, testAuthPlugin, webhookPlugin], config: { api: { convention: 'B' } } });
    const { url } = await runtime.listen(0, '127.0.0.1');
    cleanups.push(() => runtime.stop(5000));
    const response = await fetch(`${url}/api/v1/webhooks/wh_nope`, { headers: ADMIN });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { request_id: unknown };
    expect(body).toMatchObject({ success: false, error: { code: 'RESOURCE_NOT_FOUND', details: { wiflow_code: 'WIFLOW_WEBHOOK_NOT_FOUND' } } });
    expect(typeof body.request_id).toBe('string');
  });

  it('follows WIFLOW_API_CONVENTION over api.convention, and answers with the caller\'s X-Request-ID', async () => {
    vi.stubEnv('WIFLOW_API_CONVENTION', 'b');
    cleanups.push(() => vi.unstubAllEnvs());
    const runtime = await createTestRuntime({ plugins: [sqlitePlugin, testAuthPlugin, webhookPlugin], config: { api: { convention: 'A' } } });
    const { url } = await runtime.listen(0, '127.0.0.1');
    cleanups.push(() => runtime.stop(5000));
    const response = await fetch(`${url}/api/v1/webhooks/wh_nope`, { headers: { ...ADMIN, 'x-request-id': 'trace-42' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('trace-42');
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'RESOURCE_NOT_FOUND' }, request_id: 'trace-42' });
  });

  it('fails a message with a clear error on bad input', async () => {
    const server = await startServer();
    const result = await runFlow(server.runtime, buildFlow({ alerts: ['test.feed', { input: 'alerts' }], hook: ['webhook.deliver', {}] }, ['alerts.out -> hook.alerts']), { alerts: [{ alertId: 7 }] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/webhook.deliver: the value on port alerts is not valid: alertId must be a string/);
  });
});

describe('plugin-webhook documentation', () => {
  it('documents every error code in docs/transports.md', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/transports.md'), 'utf8');
    for (const { code } of webhookErrorCatalogue) expect(doc, code).toContain(code);
  });
});

describe('signature, back-off and rate-limit building blocks', () => {
  it('verifyWebhookSignature accepts an authentic fresh delivery and rejects tampering and replays', () => {
    const body = '{"id":"dlv_1"}';
    const now = Date.now();
    const timestamp = Math.floor(now / 1000);
    const signature = signPayload(SECRET, timestamp, body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(SECRET, { signature, timestamp: String(timestamp) }, body, { now })).toBeNull();
    expect(verifyWebhookSignature(SECRET, { signature, timestamp: String(timestamp) }, body.replace('1', '2'), { now })).toBe('signature does not match');
    expect(verifyWebhookSignature('wrong-secret-wrong', { signature, timestamp: String(timestamp) }, body, { now })).toBe('signature does not match');
    expect(verifyWebhookSignature(SECRET, { signature, timestamp: String(timestamp) }, body, { now: now + 301_000 })).toMatch(/replay/);
    expect(verifyWebhookSignature(SECRET, { signature: undefined, timestamp: String(timestamp) }, body)).toMatch(/missing/);
  });

  it('backs off exponentially with jitter, capped', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 1000, 5000, () => 0))).toEqual([500, 1000, 2000, 2500]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 1000, 5000, () => 1))).toEqual([1000, 2000, 4000, 5000]);
  });

  it('limits a sliding window exactly', () => {
    const limiter = new SlidingWindowLimiter(3, 1000);
    expect([0, 10, 20, 30].map((t) => limiter.tryTake(t))).toEqual([true, true, true, false]);
    expect(limiter.nextFreeAt(30)).toBe(1000);
    expect(limiter.tryTake(999)).toBe(false);
    expect(limiter.tryTake(1000)).toBe(true);
    expect(limiter.remaining(1000)).toBe(0);
    expect(limiter.remaining(1011)).toBe(1);
  });
});
