import { defineError } from '@wiflow/core';

/**
 * Every error plugin-webhook raises, one place (codes are never reused). The API maps
 * them to the pose spec's error codes in `http-errors.ts`.
 */
export const WebhookErrors = {
  /** No or invalid credentials on a webhook API request. */
  unauthenticated: defineError('WIFLOW_WEBHOOK_UNAUTHENTICATED', 401, () => 'authentication required: send Authorization: Bearer <token> or X-API-Key'),
  /** The caller lacks the admin or operator role. */
  forbidden: defineError('WIFLOW_WEBHOOK_FORBIDDEN', 403, (username: string) => `user ${username} may not manage webhooks (needs the admin or operator role)`),
  /** A request body or query failed validation. */
  invalid: defineError('WIFLOW_WEBHOOK_INVALID', 422, (count: number) => `the request has ${count} invalid field${count === 1 ? '' : 's'}`),
  /** A request body is not JSON. */
  malformed: defineError('WIFLOW_WEBHOOK_MALFORMED', 400, (reason: string) => `the request body is not valid JSON: ${reason}`),
  /** A request body nests arrays and objects deeper than the limit (refused before parsing). */
  tooDeep: defineError('WIFLOW_WEBHOOK_TOO_DEEP', 400, (maxDepth: number) => `the request body nests deeper than ${maxDepth} levels`),
  /** No webhook with that id. */
  notFound: defineError('WIFLOW_WEBHOOK_NOT_FOUND', 404, (id: string) => `webhook ${id} not found`),
  /** Too many registrations. */
  tooMany: defineError('WIFLOW_WEBHOOK_TOO_MANY', 409, (max: number) => `at most ${max} webhooks can be registered`),
  /** A value on an input port is not the data type the port declares. */
  invalidInput: defineError('WIFLOW_WEBHOOK_INVALID_INPUT', 400, (port: string, reason: string) => `webhook.deliver: the value on port ${port} is not valid: ${reason}`),
  /** A stored secret could not be decrypted (the runtime's secret key changed). */
  secretUnreadable: defineError('WIFLOW_WEBHOOK_SECRET_UNREADABLE', 500, (id: string) => `the secret of webhook ${id} cannot be decrypted with this runtime's secret key; set a new secret`),
  /** The dispatcher was closed (runtime stopping). */
  closed: defineError('WIFLOW_WEBHOOK_CLOSED', 503, () => 'the webhook dispatcher is closed (runtime stopping)'),
} as const;

/** The documented error definitions, for docs and tests. */
export const webhookErrorCatalogue: { code: string; status: number }[] = Object.values(WebhookErrors).map((e) => ({ code: e.code, status: e.status }));
