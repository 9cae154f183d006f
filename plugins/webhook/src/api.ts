import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { DEFAULT_JSON_MAX_DEPTH, WiflowError, boundedEcho, isJsonTooDeep, jsonBodyParser, type Principal, type Runtime, type SecretBox } from '@wiflow/core';
import type { WebhookConfig } from './config.js';
import type { EndpointStats, WebhookDispatcher } from './dispatcher.js';
import { WebhookErrors } from './errors.js';
import { EVENT_TYPE_PATTERN } from './payload.js';
import type { DeliveryRecord, DeliveryStatus, WebhookRecord, WebhookStore } from './store.js';

/** Where the webhook API lives. */
export const WEBHOOK_API_PATH = '/api/v1/webhooks';

/** Roles that may manage webhooks. */
export const WEBHOOK_ROLES = ['admin', 'operator'] as const;

const url = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const parsed = new URL(value);
      return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL');
const eventTypes = z
  .array(z.string().regex(EVENT_TYPE_PATTERN, 'must be *, alert.*, event.*, alert.<type> or event.<type>'))
  .min(1)
  .max(100);
const secret = z.string().min(16, 'must be at least 16 characters').max(256);

/** Body of POST /api/v1/webhooks. */
export const WebhookCreateSchema = z
  .object({ url, event_types: eventTypes, secret, description: z.string().max(500).nullable().optional(), active: z.boolean().default(true) })
  .strict();

/** Body of PATCH /api/v1/webhooks/{id}. */
export const WebhookPatchSchema = z
  .object({ url: url.optional(), event_types: eventTypes.optional(), secret: secret.optional(), description: z.string().max(500).nullable().optional(), active: z.boolean().optional() })
  .strict();

const DELIVERY_STATUSES = ['queued', 'sending', 'retrying', 'delivered', 'failed', 'dropped'] as const satisfies readonly DeliveryStatus[];

/** Query of GET /api/v1/webhooks/{id}/deliveries. */
export const DeliveryQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    status: z.enum(DELIVERY_STATUSES).optional(),
  })
  .strict();

/** Live endpoint figures in the API's snake_case. */
function statsToWire(stats: EndpointStats): Record<string, number> {
  return {
    delivered: stats.delivered,
    failed: stats.failed,
    dropped: stats.dropped,
    retries: stats.retries,
    queued: stats.queued,
    in_flight: stats.inFlight,
    retrying: stats.retrying,
    rate_limited: stats.rateLimited,
    rate_limit_remaining: stats.rateLimitRemaining,
  };
}

/** A registration as the API shows it: never the secret. */
export function webhookToWire(record: WebhookRecord, stats?: EndpointStats | null): Record<string, unknown> {
  return {
    id: record.id,
    url: record.url,
    event_types: record.eventTypes,
    description: record.description,
    active: record.active,
    has_secret: record.secretSealed.length > 0,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    created_by: record.createdBy,
    ...(stats ? { stats: statsToWire(stats) } : {}),
  };
}

/** A delivery log entry as the API shows it. */
export function deliveryToWire(record: DeliveryRecord): Record<string, unknown> {
  return {
    id: record.id,
    webhook_id: record.webhookId,
    event_type: record.eventType,
    status: record.status,
    attempts: record.attempts,
    response_code: record.responseCode,
    latency_ms: record.latencyMs,
    error: record.error,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    next_attempt_at: record.nextAttemptAt === null ? null : new Date(record.nextAttemptAt).toISOString(),
    payload_bytes: record.payloadBytes,
  };
}

/** The pose spec's error code for an HTTP status. */
function specCode(status: number): string {
  if (status === 401) return 'AUTHENTICATION_ERROR';
  if (status === 403) return 'AUTHORIZATION_ERROR';
  if (status === 404) return 'RESOURCE_NOT_FOUND';
  if (status === 400 || status === 422) return 'VALIDATION_ERROR';
  if (status === 429) return 'RATE_LIMIT_EXCEEDED';
  return 'SYSTEM_ERROR';
}

/** The pose API's convention in force: WIFLOW_API_CONVENTION, else `api.convention`, else A (the pose API's own rule). */
function conventionOf(runtime: Runtime): 'A' | 'B' {
  const fromEnv = process.env.WIFLOW_API_CONVENTION?.toUpperCase();
  if (fromEnv === 'A' || fromEnv === 'B') return fromEnv;
  return runtime.config.get<{ convention?: string } | undefined>('api')?.convention === 'B' ? 'B' : 'A';
}

/** Answer an error in the envelope of the API convention in force. */
function sendError(runtime: Runtime, res: Response, error: WiflowError): void {
  const convention = conventionOf(runtime);
  const requestId = randomUUID();
  const timestamp = new Date().toISOString();
  const details: Record<string, unknown> = { wiflow_code: error.code, ...(error.details ?? {}) };
  // Convention B lists bad fields as {field, reason}, without the received value.
  if (convention === 'B' && Array.isArray(details.field_errors)) {
    details.field_errors = (details.field_errors as { field: string; message: string }[]).map((f) => ({ field: f.field, reason: f.message }));
  }
  const body =
    convention === 'A'
      ? { error: { code: specCode(error.status), message: error.message, details, timestamp, request_id: requestId } }
      : { success: false, error: { code: specCode(error.status), message: error.message, details }, timestamp, request_id: requestId };
  res.status(error.status).json(body);
}

/** A copy with every `secret` field replaced: a secret is never echoed back. */
function redactSecret(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecret);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'secret' ? '[redacted]' : redactSecret(v)]));
  }
  return value;
}

function validationError(issues: z.core.$ZodIssue[], body: unknown): WiflowError {
  const error = WebhookErrors.invalid(issues.length);
  // Bounded: at most 50 fields, each echo cut short (bodies are depth-limited before parsing, so redactSecret's walk is too).
  const fieldErrors = issues.slice(0, 50).map((issue) => {
    const field = issue.path.map(String).join('.') || '(body)';
    let received: unknown = body;
    for (const part of issue.path) received = received && typeof received === 'object' ? (received as Record<PropertyKey, unknown>)[part as PropertyKey] : undefined;
    return { field: boundedEcho(field) as string, message: issue.message, received_value: boundedEcho(redactSecret(field === 'secret' ? '[redacted]' : received)) };
  });
  Object.assign(error, { details: { field_errors: fieldErrors } });
  return error;
}

/** What the router needs. */
export interface WebhookApiOptions {
  runtime: Runtime;
  store: () => WebhookStore;
  dispatcher: () => WebhookDispatcher;
  secretBox: () => SecretBox;
  config: () => WebhookConfig;
}

/**
 * The registration API under /api/v1/webhooks: create, list, get, update, delete, ping, and
 * the delivery log. Every route authenticates through `hooks.authenticate` and needs the
 * admin or operator role. Secrets are write-only: stored sealed, never returned.
 */
export function createWebhookRouter(options: WebhookApiOptions): Router {
  const { runtime } = options;
  const router = express.Router();

  const authenticate = async (req: Request): Promise<Principal> => {
    const header = req.headers.authorization;
    const bearer = header && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
    const apiKeyHeader = req.headers['x-api-key'];
    const apiKey = Array.isArray(apiKeyHeader) ? apiKeyHeader[0] : apiKeyHeader;
    if (!bearer && !apiKey) throw WebhookErrors.unauthenticated();
    let principal: Principal | undefined;
    try {
      principal = await runtime.hooks.authenticate.promise({ bearer, apiKey, request: req });
    } catch (error) {
      // An auth plugin that throws (expired token...) is still a 401, with its reason.
      if (error instanceof WiflowError && error.status === 401) throw error;
      throw WebhookErrors.unauthenticated();
    }
    if (!principal) throw WebhookErrors.unauthenticated();
    if (!principal.roles.some((r) => (WEBHOOK_ROLES as readonly string[]).includes(r))) throw WebhookErrors.forbidden(principal.username);
    return principal;
  };

  const fail = (res: Response, error: unknown) => {
    if (error instanceof WiflowError) return sendError(runtime, res, error);
    runtime.logger.error('webhook API request failed', { error: String(error) });
    sendError(runtime, res, new WiflowError('WIFLOW_WEBHOOK_INTERNAL', 'internal error', 500));
  };

  // Authenticate before the body is even parsed.
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.principal = await authenticate(req);
      next();
    } catch (error) {
      fail(res, error);
    }
  });
  router.use(jsonBodyParser({ limit: '64kb', maxDepth: runtime.config.get<{ maxJsonDepth?: number }>('server')?.maxJsonDepth ?? DEFAULT_JSON_MAX_DEPTH }));

  type Handler = (req: Request, res: Response, principal: Principal) => Promise<void>;
  const route = (handler: Handler) => async (req: Request, res: Response) => {
    try {
      await handler(req, res, res.locals.principal as Principal);
    } catch (error) {
      fail(res, error);
    }
  };

  const found = async (id: string): Promise<WebhookRecord> => {
    const record = await options.store().get(id);
    if (!record) throw WebhookErrors.notFound(id);
    return record;
  };

  router.post(
    '/',
    route(async (req, res, principal) => {
      const parsed = WebhookCreateSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw validationError(parsed.error.issues, req.body);
      const store = options.store();
      if ((await store.list()).length >= options.config().maxWebhooks) throw WebhookErrors.tooMany(options.config().maxWebhooks);
      const now = Date.now();
      const record: WebhookRecord = {
        id: `wh_${randomUUID()}`,
        url: parsed.data.url,
        eventTypes: [...new Set(parsed.data.event_types)],
        description: parsed.data.description ?? null,
        active: parsed.data.active,
        secretSealed: options.secretBox().seal(parsed.data.secret),
        createdAt: now,
        updatedAt: now,
        createdBy: principal.username,
      };
      await store.save(record);
      options.dispatcher().upsert(record);
      res.status(201).location(`${WEBHOOK_API_PATH}/${record.id}`).json(webhookToWire(record));
    }),
  );

  router.get(
    '/',
    route(async (_req, res) => {
      const records = await options.store().list();
      const dispatcher = options.dispatcher();
      await dispatcher.load();
      res.json({ webhooks: records.map((r) => webhookToWire(r, dispatcher.endpointStats(r.id))), total: records.length });
    }),
  );

  router.get(
    '/:id',
    route(async (req, res) => {
      const record = await found(String(req.params.id));
      const dispatcher = options.dispatcher();
      await dispatcher.load();
      res.json(webhookToWire(record, dispatcher.endpointStats(record.id)));
    }),
  );

  router.patch(
    '/:id',
    route(async (req, res) => {
      const record = await found(String(req.params.id));
      const parsed = WebhookPatchSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw validationError(parsed.error.issues, req.body);
      const patch = parsed.data;
      const updated: WebhookRecord = {
        ...record,
        url: patch.url ?? record.url,
        eventTypes: patch.event_types ? [...new Set(patch.event_types)] : record.eventTypes,
        description: patch.description === undefined ? record.description : patch.description,
        active: patch.active ?? record.active,
        secretSealed: patch.secret ? options.secretBox().seal(patch.secret) : record.secretSealed,
        updatedAt: Date.now(),
      };
      await options.store().save(updated);
      options.dispatcher().upsert(updated);
      res.json(webhookToWire(updated));
    }),
  );

  router.delete(
    '/:id',
    route(async (req, res) => {
      const record = await found(String(req.params.id));
      await options.dispatcher().remove(record.id);
      await options.store().delete(record.id);
      res.status(204).end();
    }),
  );

  router.post(
    '/:id/ping',
    route(async (req, res) => {
      const record = await found(String(req.params.id));
      const deliveryId = await options.dispatcher().ping(record.id);
      res.status(202).json({ delivery_id: deliveryId, status: 'queued' });
    }),
  );

  router.get(
    '/:id/deliveries',
    route(async (req, res) => {
      const record = await found(String(req.params.id));
      const parsed = DeliveryQuerySchema.safeParse(req.query);
      if (!parsed.success) throw validationError(parsed.error.issues, req.query);
      const all = await options.store().deliveries(record.id);
      const matching = parsed.data.status ? all.filter((d) => d.status === parsed.data.status) : all;
      res.json({ webhook_id: record.id, deliveries: matching.slice(0, parsed.data.limit).map(deliveryToWire), total: matching.length });
    }),
  );

  // Body-parser failures (malformed JSON, too large) in the same envelope.
  router.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (isJsonTooDeep(error)) return sendError(runtime, res, WebhookErrors.tooDeep(Number((error as WiflowError).details?.max_depth ?? DEFAULT_JSON_MAX_DEPTH)));
    if (error.type === 'entity.parse.failed') return sendError(runtime, res, WebhookErrors.malformed(boundedEcho(error.message) as string));
    const status = error.status ?? 500;
    sendError(runtime, res, new WiflowError('WIFLOW_WEBHOOK_REQUEST', status >= 500 ? 'internal error' : (boundedEcho(error.message) as string), status));
  });
  return router;
}
