import { WiflowError } from '../errors.js';
import { boundedEcho } from './bounded-echo.js';
import { JSON_NOT_UTF8_CODE, isJsonNotObject, isJsonTooDeep } from './json-body.js';
import { scrubUrlPasswords } from '../runtime/logger.js';

/** The two response conventions of the pose service spec (A: bare bodies; B: `{success, data}` envelopes). */
export type ApiConvention = 'A' | 'B';

/**
 * The convention in force for every API that follows the pose spec's envelopes (pose API,
 * webhook API): WIFLOW_API_CONVENTION (any case), else the configured `api.convention`, else A.
 */
export function apiConventionInForce(env: NodeJS.ProcessEnv, configured: string | undefined): ApiConvention {
  const fromEnv = env.WIFLOW_API_CONVENTION?.toUpperCase();
  if (fromEnv === 'A' || fromEnv === 'B') return fromEnv;
  return configured?.toUpperCase() === 'B' ? 'B' : 'A';
}

/** The error codes of the pose spec (section 7) plus the documented extensions wiflow adds. */
export const SPEC_ERROR_CODES = [
  'VALIDATION_ERROR',
  'AUTHENTICATION_ERROR',
  'AUTHORIZATION_ERROR',
  'RESOURCE_NOT_FOUND',
  'RATE_LIMIT_EXCEEDED',
  'SYSTEM_ERROR',
  'HARDWARE_ERROR',
  'MODEL_ERROR',
  'POSE_DATA_NOT_FOUND',
  // extensions (the spec has no code for these statuses)
  'RESOURCE_CONFLICT',
  'SYSTEM_NOT_READY',
] as const;

/** A code an API error envelope carries. */
export type SpecErrorCode = (typeof SPEC_ERROR_CODES)[number];

/** One bad field of a request. */
export interface FieldError {
  /** Dotted path, prefixed with where it was: `query.limit`, `body.query.time_range.start`, `path.track_id`. */
  field: string;
  message: string;
  received: unknown;
}

/** An API error: a wiflow code, the spec code of the envelope, a status and details. */
export class ApiError extends WiflowError {
  readonly specCode: SpecErrorCode;
  readonly fieldErrors?: FieldError[];
  constructor(code: string, specCode: SpecErrorCode, status: number, message: string, details?: Record<string, unknown>, fieldErrors?: FieldError[]) {
    super(code, message, status, details);
    this.name = 'ApiError';
    this.specCode = specCode;
    this.fieldErrors = fieldErrors;
  }
}

/** An ApiError factory with its pairing attached, so catalogues can list it. */
export type ApiErrorFactory<A extends unknown[]> = ((...args: A) => ApiError) & { code: string; specCode: SpecErrorCode; status: number };

/** Declare an API error once: wiflow code, spec code, status and message template. */
export function defineApiError<A extends unknown[]>(code: string, specCode: SpecErrorCode, status: number, message: (...args: A) => string): ApiErrorFactory<A> {
  const factory = (...args: A) => new ApiError(code, specCode, status, message(...args));
  return Object.assign(factory, { code, specCode, status });
}

/** The errors of the HTTP kit itself: requests refused before any handler runs (codes are never reused). */
export const HttpErrors = {
  /** A body, query or path parameter failed its schema (every bad field listed). */
  validation: Object.assign(
    (fieldErrors: FieldError[]) =>
      new ApiError('WIFLOW_API_VALIDATION', 'VALIDATION_ERROR', 422, `request validation failed for ${fieldErrors.length} field${fieldErrors.length === 1 ? '' : 's'}`, undefined, fieldErrors),
    { code: 'WIFLOW_API_VALIDATION', specCode: 'VALIDATION_ERROR' as const, status: 422 },
  ),
  /** A path parameter is not valid percent-encoding (Express fails to decode it while matching the route). */
  invalidPath: defineApiError('WIFLOW_API_INVALID_PATH', 'VALIDATION_ERROR', 400, (detail: string) => detail),
  /** The body is not parseable JSON (or not JSON at all). */
  malformedBody: defineApiError('WIFLOW_API_MALFORMED_BODY', 'VALIDATION_ERROR', 400, (reason: string) => `request body is not valid JSON: ${reason}`),
  /** The body is larger than the limit. */
  bodyTooLarge: defineApiError('WIFLOW_API_BODY_TOO_LARGE', 'VALIDATION_ERROR', 413, (limit: string) => `request body exceeds ${limit}`),
  /** The body nests arrays and objects deeper than the limit (refused before parsing). */
  bodyTooDeep: defineApiError('WIFLOW_API_BODY_TOO_DEEP', 'VALIDATION_ERROR', 400, (maxDepth: number) => `request body nests deeper than ${maxDepth} levels`),
  /** The body's charset or content encoding is not one the server reads. */
  bodyUnsupported: defineApiError('WIFLOW_API_BODY_UNSUPPORTED', 'VALIDATION_ERROR', 415, (reason: string) => `request body cannot be read: ${reason}`),
  /** No credentials, or credentials that do not verify. */
  unauthenticated: defineApiError('WIFLOW_API_UNAUTHENTICATED', 'AUTHENTICATION_ERROR', 401, (reason: string) => reason),
  /** Authenticated, but the role does not allow the operation. */
  forbidden: defineApiError('WIFLOW_API_FORBIDDEN', 'AUTHORIZATION_ERROR', 403, (needed: string, have: string[]) =>
    `this operation needs the ${needed} role; the caller has ${have.length ? have.join(', ') : 'no role'}`),
  /** A named resource (track, ...) does not exist. */
  notFound: defineApiError('WIFLOW_API_NOT_FOUND', 'RESOURCE_NOT_FOUND', 404, (what: string, id: string) => `${what} ${id} not found`),
  /** Too many requests in the category's window. */
  rateLimited: defineApiError('WIFLOW_API_RATE_LIMITED', 'RATE_LIMIT_EXCEEDED', 429, (category: string, limit: number, windowSeconds: number) =>
    `rate limit of ${limit} requests per ${windowSeconds} s exceeded for ${category}`),
  /** Anything unexpected. */
  internal: defineApiError('WIFLOW_API_INTERNAL', 'SYSTEM_ERROR', 500, () => 'internal error'),
} as const;

/** The pose spec's error code for an HTTP status (for WiflowErrors that carry none). */
export function specCodeForStatus(status: number): SpecErrorCode {
  if (status === 401) return 'AUTHENTICATION_ERROR';
  if (status === 403) return 'AUTHORIZATION_ERROR';
  if (status === 404) return 'RESOURCE_NOT_FOUND';
  if (status === 409) return 'RESOURCE_CONFLICT';
  if (status === 429) return 'RATE_LIMIT_EXCEEDED';
  if (status === 503) return 'SYSTEM_NOT_READY';
  if (status >= 400 && status < 500) return 'VALIDATION_ERROR';
  return 'SYSTEM_ERROR';
}

/**
 * Turn anything thrown into an ApiError: ApiErrors as they are; body-parser refusals as the
 * kit's body errors; storage and other WiflowErrors by status (a plugin's own code kept);
 * anything else an internal error (its message is never shown).
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isJsonTooDeep(error)) return HttpErrors.bodyTooDeep(Number((error as WiflowError).details?.max_depth ?? 0));
  if (error instanceof WiflowError && error.code === JSON_NOT_UTF8_CODE) return HttpErrors.malformedBody('the bytes are not valid UTF-8');
  if (isJsonNotObject(error)) return HttpErrors.validation([{ field: 'body', message: 'must be a JSON object', received: (error as WiflowError).details?.received ?? null }]);
  if (error instanceof WiflowError) {
    if (error.code === 'WIFLOW_STORAGE_CLOSED' || error.code === 'WIFLOW_STORAGE_BACKEND' || error.code === 'WIFLOW_STORAGE_MISSING') {
      return new ApiError(error.code, 'SYSTEM_NOT_READY', 503, error.message);
    }
    if (error.status === 404) return new ApiError(error.code, 'RESOURCE_NOT_FOUND', 404, error.message, error.details);
    if (error.status === 409) return new ApiError(error.code, 'RESOURCE_CONFLICT', 409, error.message, error.details);
    if (error.status === 400 || error.status === 422) return new ApiError(error.code, 'VALIDATION_ERROR', 422, error.message, error.details);
    if (error.status < 500) return new ApiError(error.code, specCodeForStatus(error.status), error.status, error.message, error.details);
  }
  const body = error as { type?: string; status?: number; message?: string; limit?: number; expose?: boolean };
  if (body?.type === 'entity.parse.failed') return HttpErrors.malformedBody(boundedEcho(body.message ?? 'parse error') as string);
  if (body?.type === 'entity.too.large') return HttpErrors.bodyTooLarge(typeof body.limit === 'number' ? `${body.limit} bytes` : 'the size limit');
  // The body parser's other refusals (unsupported charset or encoding, aborted or mis-sized body) are the client's.
  if (body?.status === 415) return HttpErrors.bodyUnsupported(boundedEcho(body.message ?? 'unsupported') as string);
  // (http-errors marks client errors `expose`; a body that does not inflate arrives as one without a `type`.)
  if (typeof body?.status === 'number' && body.status >= 400 && body.status < 500 && (typeof body.type === 'string' || body.expose === true)) {
    return HttpErrors.malformedBody(boundedEcho(body.message ?? 'unreadable') as string);
  }
  return HttpErrors.internal();
}

/** Field errors listed in one envelope; the rest are counted in `details.field_errors_truncated`. */
export const MAX_FIELD_ERRORS_SHOWN = 50;

/** Field names whose values are secrets: an error never echoes them. */
const SECRET_FIELD = /(secret|password|token|api_?key)$/i;

/**
 * A copy with the value of every secret-named field replaced, and a password in a URL in any string
 * masked (`https://user:***@host`); bodies are depth-limited before parsing, so the walk is bounded.
 */
export function redactSecretFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubUrlPasswords(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecretFields(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_FIELD.test(key) ? '[redacted]' : redactSecretFields(item, depth + 1)]));
}

/** How an API shows errors beyond the convention's envelope. */
export interface EnvelopeOptions {
  /** Put the wiflow code in `details.wiflow_code` (the webhook API's documented extension). */
  wiflowCode?: boolean;
}

/**
 * The error envelope of a pose-spec convention (spec section 7), the one place every API
 * following it (pose API, webhook API) shapes errors. Echoes are bounded and secrets redacted.
 */
export function errorEnvelope(error: ApiError, convention: ApiConvention, requestId: string, now = new Date(), options: EnvelopeOptions = {}): Record<string, unknown> {
  const details: Record<string, unknown> = { ...(options.wiflowCode ? { wiflow_code: error.code } : {}), ...(error.details ?? {}) };
  if (error.fieldErrors) {
    // Echoes are bounded: a hostile body (a 1 MB key, 10,000 unknown fields) never makes the error itself unbounded.
    const shown = error.fieldErrors.slice(0, MAX_FIELD_ERRORS_SHOWN).map((f) => ({ ...f, field: boundedEcho(f.field) as string }));
    details.field_errors =
      convention === 'A'
        ? shown.map((f) => ({
            field: f.field,
            message: f.message,
            received_value: f.received === undefined ? null : boundedEcho(SECRET_FIELD.test(f.field) ? '[redacted]' : redactSecretFields(f.received)),
          }))
        : shown.map((f) => ({ field: f.field, reason: f.message }));
    if (error.fieldErrors.length > shown.length) details.field_errors_truncated = error.fieldErrors.length - shown.length;
  }
  const body = { code: error.specCode, message: error.message, details };
  const timestamp = now.toISOString();
  return convention === 'A'
    ? { error: { ...body, timestamp, request_id: requestId } }
    : { success: false, error: body, timestamp, request_id: requestId };
}

/** One entry of the flow service's (FastAPI's) 422 `{detail: [...]}`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The flow service's envelope (spec/flow-service-models.md, Langflow's FastAPI shapes): a
 * validation failure (a 422 carrying `issues`) `{detail: [{loc, msg, type}], code}`, any other
 * error `{detail, code, details?}`.
 */
export function flowServiceErrorBody(error: WiflowError & { issues?: ValidationIssue[] }): Record<string, unknown> {
  if (error.status === 422 && Array.isArray(error.issues)) return { detail: error.issues, code: error.code };
  return { detail: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
}
