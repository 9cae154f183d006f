import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { z } from 'zod';
import {
  ApiError,
  DEFAULT_JSON_MAX_DEPTH,
  WiflowError,
  apiConventionInForce,
  boundedEcho,
  configSection,
  defineRoute,
  isJsonNotObject,
  isJsonTooDeep,
  routeRouter,
  specCodeForStatus,
  type FieldError,
  type ConfigStore,
  type Logger,
  type RouteDefinition,
  type RuntimeHooks,
  type SecretBox,
} from '@wiflow/core';
import type { WebhookConfig } from './config.js';
import type { EndpointStats, WebhookDispatcher } from './dispatcher.js';
import { WebhookErrors } from './errors.js';
import { EVENT_TYPE_PATTERN } from './payload.js';
import type { DeliveryRecord, DeliveryStatus, WebhookRecord, WebhookStore } from './store.js';

/** Where the webhook API lives. */
export const WEBHOOK_API_PATH = '/api/v1/webhooks';

/** Roles that may manage webhooks (core's role order: admin includes operator). */
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
  }, 'must be an absolute http:// or https:// URL')
  // fetch refuses a URL with user info, so every delivery would fail (and the password travel in its error).
  .refine((value) => {
    try {
      const parsed = new URL(value);
      return parsed.username === '' && parsed.password === '';
    } catch {
      return true;
    }
  }, 'must not carry credentials (user:password@): the receiver checks the signature made with the secret, or takes a token in the path or query');
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

/** A registration as the API shows it (payload schema for the OpenAPI document). */
const WebhookWire = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  description: z.string().nullable(),
  active: z.boolean(),
  has_secret: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string(),
  stats: z.record(z.string(), z.number()).optional(),
});
const WebhookList = z.object({ webhooks: z.array(WebhookWire), total: z.number().int() });
const DeliveryList = z.object({ webhook_id: z.string(), deliveries: z.array(z.record(z.string(), z.unknown())), total: z.number().int() });
const Ping = z.object({ delivery_id: z.string(), status: z.literal('queued') });
const IdParam = z.object({ id: z.string() });

/** This plugin's own errors in the pose-spec envelope, with their own code and message. */
function asApiError(error: WiflowError, fieldErrors?: FieldError[]): ApiError {
  return new ApiError(error.code, specCodeForStatus(error.status), error.status, error.message, error.details, fieldErrors);
}

/** What the router needs. */
export interface WebhookApiOptions {
  /** Who is calling (`authenticate`). */
  hooks: Pick<RuntimeHooks, 'authenticate'>;
  logger: Logger;
  /** The runtime's configuration: `server.maxJsonDepth`, and `api.convention` for the error envelope. */
  configStore: ConfigStore;
  store: () => WebhookStore;
  dispatcher: () => WebhookDispatcher;
  secretBox: () => SecretBox;
  config: () => WebhookConfig;
  env?: NodeJS.ProcessEnv;
}

/**
 * The registration routes under /api/v1/webhooks: create, list, get, update, delete, ping, and
 * the delivery log. Every route needs the operator role (admin includes it). Secrets are
 * write-only: stored sealed, never returned, redacted from validation errors.
 */
export function webhookRoutes(options: WebhookApiOptions): RouteDefinition[] {
  const found = async (id: string): Promise<WebhookRecord> => {
    const record = await options.store().get(id);
    if (!record) throw WebhookErrors.notFound(id);
    return record;
  };
  const common: Pick<RouteDefinition, 'tags' | 'spec' | 'access' | 'unknownKeys' | 'errors'> = { tags: ['webhooks'], spec: false, access: 'operator', unknownKeys: 'together', errors: [404] };
  const single = { A: WebhookWire, B: WebhookWire };

  return [
    defineRoute({
      ...common,
      method: 'post',
      path: '/',
      summary: 'Register a webhook',
      body: WebhookCreateSchema,
      success: { status: 201, description: 'Registered (Location: the registration)', ...single },
      errors: [409],
      async handler({ body, principal }) {
        const input = body as z.output<typeof WebhookCreateSchema>;
        const store = options.store();
        if ((await store.list()).length >= options.config().maxWebhooks) throw WebhookErrors.tooMany(options.config().maxWebhooks);
        const now = Date.now();
        const record: WebhookRecord = {
          id: `wh_${randomUUID()}`,
          url: input.url,
          eventTypes: [...new Set(input.event_types)],
          description: input.description ?? null,
          active: input.active,
          secretSealed: options.secretBox().seal(input.secret),
          createdAt: now,
          updatedAt: now,
          createdBy: principal!.username,
        };
        await store.save(record);
        options.dispatcher().upsert(record);
        return { body: webhookToWire(record), headers: { Location: `${WEBHOOK_API_PATH}/${record.id}` } };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/',
      summary: 'List webhooks with live figures',
      success: { status: 200, description: 'Registrations', A: WebhookList, B: WebhookList },
      errors: [],
      async handler() {
        const records = await options.store().list();
        const dispatcher = options.dispatcher();
        await dispatcher.load();
        return { body: { webhooks: records.map((r) => webhookToWire(r, dispatcher.endpointStats(r.id))), total: records.length } };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/{id}',
      summary: 'Get a webhook with live figures',
      params: IdParam,
      success: { status: 200, description: 'The registration', ...single },
      async handler({ params }) {
        const record = await found(params.id);
        const dispatcher = options.dispatcher();
        await dispatcher.load();
        return { body: webhookToWire(record, dispatcher.endpointStats(record.id)) };
      },
    }),
    defineRoute({
      ...common,
      method: 'patch',
      path: '/{id}',
      summary: 'Change a webhook',
      params: IdParam,
      body: WebhookPatchSchema,
      success: { status: 200, description: 'The registration', ...single },
      async handler({ params, body }) {
        const record = await found(params.id);
        const patch = body as z.output<typeof WebhookPatchSchema>;
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
        return { body: webhookToWire(updated) };
      },
    }),
    defineRoute({
      ...common,
      method: 'delete',
      path: '/{id}',
      summary: 'Delete a webhook, its queue and its log',
      params: IdParam,
      success: { status: 204, description: 'Deleted', A: z.undefined(), B: z.undefined() },
      async handler({ params }) {
        const record = await found(params.id);
        await options.dispatcher().remove(record.id);
        await options.store().delete(record.id);
        return { body: undefined };
      },
    }),
    defineRoute({
      ...common,
      method: 'post',
      path: '/{id}/ping',
      summary: 'Send a webhook.ping delivery',
      params: IdParam,
      success: { status: 202, description: 'Queued', A: Ping, B: Ping },
      async handler({ params }) {
        const record = await found(params.id);
        const deliveryId = await options.dispatcher().ping(record.id);
        return { body: { delivery_id: deliveryId, status: 'queued' } };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/{id}/deliveries',
      summary: 'The delivery log, newest first',
      params: IdParam,
      query: DeliveryQuerySchema,
      success: { status: 200, description: 'Deliveries', A: DeliveryList, B: DeliveryList },
      async handler({ params, query }) {
        const record = await found(params.id);
        const { limit, status } = query as z.output<typeof DeliveryQuerySchema>;
        const all = await options.store().deliveries(record.id);
        const matching = status ? all.filter((d) => d.status === status) : all;
        return { body: { webhook_id: record.id, deliveries: matching.slice(0, limit).map(deliveryToWire), total: matching.length } };
      },
    }),
  ];
}

/** `api.convention` of the pose API's section, the one key this plugin reads (the pose API may be absent). */
const ApiConventionView = configSection('api', z.object({ convention: z.string().optional() }).loose().optional());

/**
 * The webhook API on core's route kit: authentication before the body is read, the operator
 * role, errors in the envelope of the pose convention in force (WIFLOW_API_CONVENTION, else
 * `api.convention`) with `details.wiflow_code`, successes as bare bodies in both conventions.
 */
export function createWebhookRouter(options: WebhookApiOptions): Router {
  const { hooks, logger, configStore } = options;
  return routeRouter(webhookRoutes(options), {
    hooks,
    logger,
    convention: () => apiConventionInForce(options.env ?? process.env, configStore.read(ApiConventionView)?.convention),
    bodyLimit: '64kb',
    maxJsonDepth: configStore.get('server').maxJsonDepth,
    envelope: { wiflowCode: true },
    wrapSuccess: false,
    errors: {
      unauthenticated: () => asApiError(WebhookErrors.unauthenticated()),
      forbidden: (_needed, principal) => asApiError(WebhookErrors.forbidden(principal.username)),
      validation: (fieldErrors) => asApiError(WebhookErrors.invalid(fieldErrors.length), fieldErrors),
      body: (error) => {
        if (isJsonTooDeep(error)) return asApiError(WebhookErrors.tooDeep(Number((error as WiflowError).details?.max_depth ?? DEFAULT_JSON_MAX_DEPTH)));
        if (isJsonNotObject(error)) return asApiError(WebhookErrors.invalid(1), [{ field: '(body)', message: 'must be a JSON object', received: (error as WiflowError).details?.received ?? null }]);
        if ((error as { type?: string }).type === 'entity.parse.failed') return asApiError(WebhookErrors.malformed(boundedEcho((error as Error).message) as string));
        return undefined;
      },
      other: (error) => (error instanceof WiflowError && !(error instanceof ApiError) && error.code.startsWith('WIFLOW_WEBHOOK_') ? asApiError(error) : undefined),
    },
  });
}
