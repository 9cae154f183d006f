import { randomUUID } from 'node:crypto';
import { errorMessage, serviceToken, WIFLOW_VERSION, type Logger, type SecretBox } from '@wiflow/core';
import type { WebhookConfig } from './config.js';
import { WebhookErrors } from './errors.js';
import { matchesEventType, type WebhookPayload } from './payload.js';
import { SlidingWindowLimiter } from './rate-limiter.js';
import { signPayload, WebhookHeaders } from './signature.js';
import type { DeliveryRecord, WebhookRecord, WebhookStore } from './store.js';

/** Tokens of the services plugin-webhook registers. */
export const WebhookTokens = Object.freeze({
  /** The WebhookDispatcher. */
  Dispatcher: serviceToken<WebhookDispatcher>('wiflow.webhook.Dispatcher'),
});

/** Live figures of one endpoint. */
export interface EndpointStats {
  webhookId: string;
  url: string;
  /** Deliveries the endpoint accepted (2xx). */
  delivered: number;
  /** Deliveries that used every attempt or got a non-retryable answer. */
  failed: number;
  /** Deliveries dropped because the queue was full, or when the webhook was removed or the runtime stopped. */
  dropped: number;
  /** Attempts after the first. */
  retries: number;
  /** Deliveries waiting for the rate limit or a free slot. */
  queued: number;
  inFlight: number;
  /** Deliveries waiting for their next attempt. */
  retrying: number;
  /** Times a delivery had to wait because the per-endpoint rate limit was reached. */
  rateLimited: number;
  /** Rate-limit slots left in the current window. */
  rateLimitRemaining: number;
}

interface Delivery {
  record: DeliveryRecord;
  body: string;
  /** The newest state not yet written to the log. */
  unwritten: DeliveryRecord | undefined;
  /** Whether a log write of this delivery is under way. */
  writing: boolean;
}

/** When a transport attempt ends. */
interface AttemptResult {
  ok: boolean;
  retryable: boolean;
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
  latencyMs: number;
}

/** Statuses worth another attempt: timeouts, throttling, server errors. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Retry-After as ms (seconds or an HTTP date), or null. */
function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Exponential back-off with equal jitter: half the doubled delay fixed, half random. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** One registration's queue, limiter and workers. */
class Endpoint {
  readonly queue: Delivery[] = [];
  readonly limiter: SlidingWindowLimiter;
  /** Deliveries waiting for their next attempt, with their timers. */
  readonly retrying = new Map<string, { timer: NodeJS.Timeout; delivery: Delivery }>();
  /** Log writes not yet settled. */
  readonly writes = new Set<Promise<void>>();
  inFlight = 0;
  waitTimer: NodeJS.Timeout | undefined;
  delivered = 0;
  failed = 0;
  dropped = 0;
  retries = 0;
  rateLimited = 0;
  /** Deliveries enqueued (the log is trimmed every 100). */
  logWrites = 0;

  constructor(
    public webhook: WebhookRecord,
    public secret: string,
    config: WebhookConfig,
  ) {
    this.limiter = new SlidingWindowLimiter(config.rateLimit.events, config.rateLimit.windowSeconds * 1000);
  }
}

/**
 * Delivers events and alerts to the registered endpoints: one queue per endpoint, the
 * spec's rate limit per endpoint (a sliding window; deliveries wait, the queue is bounded),
 * `concurrency` attempts in flight, HMAC-SHA256 signatures, retries with exponential
 * back-off and jitter, and a delivery log in the settings store.
 */
export class WebhookDispatcher {
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #store: () => WebhookStore;
  readonly #secretBox: () => SecretBox;
  readonly #config: () => WebhookConfig;
  readonly #logger: Logger;
  readonly #idleWaiters: (() => void)[] = [];
  #loaded: Promise<void> | undefined;
  #closed = false;

  constructor(options: { store: () => WebhookStore; secretBox: () => SecretBox; config: () => WebhookConfig; logger: Logger }) {
    this.#store = options.store;
    this.#secretBox = options.secretBox;
    this.#config = options.config;
    this.#logger = options.logger;
  }

  /** Load registrations from the store (once; `reload` forces it). */
  async load(): Promise<void> {
    this.#loaded ??= this.#reload();
    return this.#loaded;
  }

  /** Re-read every registration (after the API changed one). */
  async reload(): Promise<void> {
    this.#loaded = this.#reload();
    return this.#loaded;
  }

  async #reload(): Promise<void> {
    const records = await this.#store().list();
    const seen = new Set<string>();
    for (const record of records) {
      seen.add(record.id);
      this.upsert(record);
    }
    for (const id of [...this.#endpoints.keys()]) if (!seen.has(id)) await this.remove(id);
  }

  /** Add or update the live endpoint of a registration. */
  upsert(record: WebhookRecord): void {
    let secret: string;
    try {
      secret = this.#secretBox().open(record.secretSealed);
    } catch {
      this.#logger.error(WebhookErrors.secretUnreadable(record.id).message);
      void this.remove(record.id);
      return;
    }
    const existing = this.#endpoints.get(record.id);
    if (existing) {
      existing.webhook = record;
      existing.secret = secret;
    } else {
      this.#endpoints.set(record.id, new Endpoint(record, secret, this.#config()));
    }
  }

  /**
   * Stop delivering to a registration: queued deliveries are forgotten, retries cancelled
   * (the registration and its log are being deleted). Resolves once its log writes settled.
   */
  async remove(id: string): Promise<void> {
    const endpoint = this.#endpoints.get(id);
    if (!endpoint) return;
    this.#endpoints.delete(id);
    clearTimeout(endpoint.waitTimer);
    for (const { timer } of endpoint.retrying.values()) clearTimeout(timer);
    endpoint.retrying.clear();
    endpoint.queue.length = 0;
    await Promise.allSettled([...endpoint.writes]);
    this.#wakeIdle();
  }

  /**
   * Queue one event for every active registration whose event types select it. Resolves
   * with the delivery ids once queued (not once delivered).
   */
  async dispatch(type: string, environmentId: string | null, data: Record<string, unknown>, options: { only?: readonly string[] } = {}): Promise<string[]> {
    if (this.#closed) throw WebhookErrors.closed();
    await this.load();
    const ids: string[] = [];
    for (const endpoint of this.#endpoints.values()) {
      const webhook = endpoint.webhook;
      if (!webhook.active || !matchesEventType(webhook.eventTypes, type)) continue;
      if (options.only && !options.only.includes(webhook.id)) continue;
      ids.push(this.#enqueue(endpoint, type, environmentId, data));
    }
    return ids;
  }

  /** Queue a `webhook.ping` delivery to one registration (even an inactive one). */
  async ping(webhookId: string): Promise<string> {
    if (this.#closed) throw WebhookErrors.closed();
    await this.load();
    const endpoint = this.#endpoints.get(webhookId);
    if (!endpoint) throw WebhookErrors.notFound(webhookId);
    return this.#enqueue(endpoint, 'webhook.ping', null, { message: 'ping from wiflow', wiflow_version: WIFLOW_VERSION });
  }

  #enqueue(endpoint: Endpoint, type: string, environmentId: string | null, data: Record<string, unknown>): string {
    const now = Date.now();
    const id = `dlv_${randomUUID()}`;
    const payload: WebhookPayload = { id, webhook_id: endpoint.webhook.id, type, created_at: new Date(now).toISOString(), environment_id: environmentId, data };
    const body = JSON.stringify(payload);
    const record: DeliveryRecord = {
      id,
      webhookId: endpoint.webhook.id,
      eventType: type,
      status: 'queued',
      attempts: 0,
      responseCode: null,
      latencyMs: null,
      error: null,
      createdAt: now,
      updatedAt: now,
      nextAttemptAt: null,
      payloadBytes: Buffer.byteLength(body),
    };
    const delivery: Delivery = { record, body, unwritten: undefined, writing: false };
    endpoint.queue.push(delivery);
    const limit = this.#config().queueLimit;
    while (endpoint.queue.length > limit) {
      const dropped = endpoint.queue.shift()!;
      endpoint.dropped++;
      this.#finish(endpoint, dropped, 'dropped', `queue full (${limit} waiting for the rate limit or a free slot)`);
    }
    this.#pump(endpoint);
    // Log 'queued' only when it has to wait (rate limit, busy slots): a delivery sent at once
    // is logged when its first attempt ends, which halves the writes on a synchronous store.
    if (record.status === 'queued') this.#log(endpoint, delivery);
    if (++endpoint.logWrites % 100 === 0) {
      const keep = this.#config().logLimit;
      void this.#store()
        .trimDeliveries(endpoint.webhook.id, keep)
        .catch((error) => this.#logger.warn('webhook delivery log trim failed', { error: errorMessage(error) }));
    }
    return id;
  }

  /** Start attempts while slots and the rate limit allow. */
  #pump(endpoint: Endpoint): void {
    if (this.#closed || !this.#endpoints.has(endpoint.webhook.id)) return;
    const config = this.#config();
    while (endpoint.queue.length > 0 && endpoint.inFlight < config.concurrency) {
      const now = Date.now();
      if (!endpoint.limiter.tryTake(now)) {
        endpoint.rateLimited++;
        if (!endpoint.waitTimer) {
          endpoint.waitTimer = setTimeout(() => {
            endpoint.waitTimer = undefined;
            this.#pump(endpoint);
          }, Math.max(1, endpoint.limiter.nextFreeAt(now) - now));
          endpoint.waitTimer.unref();
        }
        return;
      }
      const delivery = endpoint.queue.shift()!;
      void this.#attempt(endpoint, delivery);
    }
  }

  async #attempt(endpoint: Endpoint, delivery: Delivery): Promise<void> {
    const config = this.#config();
    const record = delivery.record;
    endpoint.inFlight++;
    record.attempts++;
    if (record.attempts > 1) endpoint.retries++;
    record.status = 'sending';
    record.nextAttemptAt = null;
    const result = await this.#send(endpoint, delivery, config.timeoutMs);
    endpoint.inFlight--;
    record.responseCode = result.status;
    record.latencyMs = result.latencyMs;
    record.error = result.error;
    if (result.ok) {
      endpoint.delivered++;
      this.#finish(endpoint, delivery, 'delivered', null);
    } else if (result.retryable && record.attempts < config.maxAttempts && !this.#closed && this.#endpoints.has(endpoint.webhook.id)) {
      const backoff = backoffDelay(record.attempts, config.baseDelayMs, config.maxDelayMs);
      const delay = Math.min(config.maxDelayMs, Math.max(backoff, result.retryAfterMs ?? 0));
      record.status = 'retrying';
      record.nextAttemptAt = Date.now() + delay;
      record.updatedAt = Date.now();
      this.#log(endpoint, delivery);
      const timer = setTimeout(() => {
        endpoint.retrying.delete(record.id);
        void this.#attempt(endpoint, delivery);
      }, delay);
      timer.unref();
      endpoint.retrying.set(record.id, { timer, delivery });
    } else {
      endpoint.failed++;
      this.#finish(endpoint, delivery, 'failed', result.error ?? `HTTP ${result.status}`);
    }
    this.#pump(endpoint);
    this.#wakeIdle();
  }

  async #send(endpoint: Endpoint, delivery: Delivery, timeoutMs: number): Promise<AttemptResult> {
    const started = performance.now();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `wiflow-webhook/${WIFLOW_VERSION}`,
      [WebhookHeaders.signature]: signPayload(endpoint.secret, timestamp, delivery.body),
      [WebhookHeaders.timestamp]: String(timestamp),
      [WebhookHeaders.delivery]: delivery.record.id,
      [WebhookHeaders.event]: delivery.record.eventType,
      [WebhookHeaders.webhook]: endpoint.webhook.id,
      [WebhookHeaders.attempt]: String(delivery.record.attempts),
    };
    try {
      const response = await fetch(endpoint.webhook.url, { method: 'POST', headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      // Read (and discard) the body so the connection is reused.
      await response.arrayBuffer().catch(() => undefined);
      const latencyMs = Math.round((performance.now() - started) * 100) / 100;
      if (response.status >= 200 && response.status < 300) return { ok: true, retryable: false, status: response.status, error: null, retryAfterMs: null, latencyMs };
      const redirect = response.status >= 300 && response.status < 400;
      return {
        ok: false,
        retryable: retryableStatus(response.status),
        status: response.status,
        error: redirect ? `HTTP ${response.status}: redirects are not followed` : `HTTP ${response.status}`,
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), Date.now()),
        latencyMs,
      };
    } catch (error) {
      const latencyMs = Math.round((performance.now() - started) * 100) / 100;
      const name = (error as Error).name;
      const message = name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : errorMessage((error as Error & { cause?: unknown }).cause ?? error);
      return { ok: false, retryable: true, status: null, error: message, retryAfterMs: null, latencyMs };
    }
  }

  #finish(endpoint: Endpoint, delivery: Delivery, status: 'delivered' | 'failed' | 'dropped', error: string | null): void {
    delivery.record.status = status;
    if (error) delivery.record.error = error;
    delivery.record.nextAttemptAt = null;
    delivery.record.updatedAt = Date.now();
    this.#log(endpoint, delivery);
  }

  /**
   * Persist the delivery's current state. Writes of one delivery stay in order and coalesce:
   * while one is under way only the newest state waits, so a slow store costs at most two
   * writes per delivery, not one per state change.
   */
  #log(endpoint: Endpoint, delivery: Delivery): void {
    delivery.unwritten = { ...delivery.record };
    if (!delivery.writing) {
      delivery.writing = true;
      const store = this.#store();
      const write = (async () => {
        while (delivery.unwritten) {
          const snapshot = delivery.unwritten;
          delivery.unwritten = undefined;
          try {
            await store.saveDelivery(snapshot);
          } catch (error) {
            this.#logger.warn('webhook delivery log write failed', { webhookId: snapshot.webhookId, error: errorMessage(error) });
          }
        }
        delivery.writing = false;
      })();
      endpoint.writes.add(write);
      void write.finally(() => {
        endpoint.writes.delete(write);
        this.#wakeIdle();
      });
    }
  }

  /** Figures of every endpoint. */
  stats(): EndpointStats[] {
    const now = Date.now();
    return [...this.#endpoints.values()].map((e) => ({
      webhookId: e.webhook.id,
      url: e.webhook.url,
      delivered: e.delivered,
      failed: e.failed,
      dropped: e.dropped,
      retries: e.retries,
      queued: e.queue.length,
      inFlight: e.inFlight,
      retrying: e.retrying.size,
      rateLimited: e.rateLimited,
      rateLimitRemaining: e.limiter.remaining(now),
    }));
  }

  /** Figures of one endpoint, or null. */
  endpointStats(id: string): EndpointStats | null {
    return this.stats().find((s) => s.webhookId === id) ?? null;
  }

  /** Nothing queued, in flight, waiting to retry or being logged. */
  #idle(): boolean {
    for (const e of this.#endpoints.values()) if (e.queue.length > 0 || e.inFlight > 0 || e.retrying.size > 0 || e.writes.size > 0) return false;
    return true;
  }

  #wakeIdle(): void {
    if (this.#idle()) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  /** Resolve when every delivery finished (true) or after `timeoutMs` (false). */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.#idle()) return true;
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      new Promise<boolean>((resolve) => this.#idleWaiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return result;
  }

  /**
   * Stop: wait up to `timeoutMs` for attempts in flight, then drop what is still queued or
   * waiting to retry (logged as dropped) and wait for the log writes.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const deadline = Date.now() + timeoutMs;
    for (const endpoint of this.#endpoints.values()) {
      clearTimeout(endpoint.waitTimer);
      const waiting = [...endpoint.queue.splice(0), ...[...endpoint.retrying.values()].map((r) => r.delivery)];
      for (const { timer } of endpoint.retrying.values()) clearTimeout(timer);
      endpoint.retrying.clear();
      for (const delivery of waiting) {
        endpoint.dropped++;
        this.#finish(endpoint, delivery, 'dropped', 'runtime stopped before delivery');
      }
    }
    await this.idle(Math.max(0, deadline - Date.now()));
    await Promise.allSettled([...this.#endpoints.values()].flatMap((e) => [...e.writes]));
  }
}
