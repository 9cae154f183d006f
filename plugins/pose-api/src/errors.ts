import { JSON_NOT_UTF8_CODE, WiflowError, boundedEcho, isJsonTooDeep } from '@wiflow/core';
import type { Convention } from './config.js';

/** The error codes of the spec (section 7) plus the documented extensions this service adds. */
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

/** Declare an error once: wiflow code, spec code, status and message template. */
function define<A extends unknown[]>(code: string, specCode: SpecErrorCode, status: number, message: (...args: A) => string) {
  const factory = (...args: A) => new ApiError(code, specCode, status, message(...args));
  return Object.assign(factory, { code, specCode, status });
}

/** Every error the pose service answers with, one place (codes are never reused). */
export const ApiErrors = {
  /** A body, query or path parameter failed its schema (every bad field listed). */
  validation: Object.assign(
    (fieldErrors: FieldError[]) =>
      new ApiError('WIFLOW_API_VALIDATION', 'VALIDATION_ERROR', 422, `request validation failed for ${fieldErrors.length} field${fieldErrors.length === 1 ? '' : 's'}`, undefined, fieldErrors),
    { code: 'WIFLOW_API_VALIDATION', specCode: 'VALIDATION_ERROR' as const, status: 422 },
  ),
  /** The body is not parseable JSON (or not JSON at all). */
  malformedBody: define('WIFLOW_API_MALFORMED_BODY', 'VALIDATION_ERROR', 400, (reason: string) => `request body is not valid JSON: ${reason}`),
  /** The body is larger than the limit. */
  bodyTooLarge: define('WIFLOW_API_BODY_TOO_LARGE', 'VALIDATION_ERROR', 413, (limit: string) => `request body exceeds ${limit}`),
  /** The body nests arrays and objects deeper than the limit (refused before parsing). */
  bodyTooDeep: define('WIFLOW_API_BODY_TOO_DEEP', 'VALIDATION_ERROR', 400, (maxDepth: number) => `request body nests deeper than ${maxDepth} levels`),
  /** The body's charset or content encoding is not one the server reads. */
  bodyUnsupported: define('WIFLOW_API_BODY_UNSUPPORTED', 'VALIDATION_ERROR', 415, (reason: string) => `request body cannot be read: ${reason}`),
  /** No credentials, or credentials that do not verify. */
  unauthenticated: define('WIFLOW_API_UNAUTHENTICATED', 'AUTHENTICATION_ERROR', 401, (reason: string) => reason),
  /** Authenticated, but the role does not allow the operation. */
  forbidden: define('WIFLOW_API_FORBIDDEN', 'AUTHORIZATION_ERROR', 403, (needed: string, have: string[]) =>
    `this operation needs the ${needed} role; the caller has ${have.length ? have.join(', ') : 'no role'}`),
  /** A named resource (track, ...) does not exist. */
  notFound: define('WIFLOW_API_NOT_FOUND', 'RESOURCE_NOT_FOUND', 404, (what: string, id: string) => `${what} ${id} not found`),
  /** No pose data in the requested range (details: requested_range, available_range). */
  poseDataNotFound: define('WIFLOW_API_POSE_DATA_NOT_FOUND', 'POSE_DATA_NOT_FOUND', 404, (what: string) => `no pose data ${what}`),
  /** Too many requests in the category's window. */
  rateLimited: define('WIFLOW_API_RATE_LIMITED', 'RATE_LIMIT_EXCEEDED', 429, (category: string, limit: number, windowSeconds: number) =>
    `rate limit of ${limit} requests per ${windowSeconds} s exceeded for ${category}`),
  /** POST /system/start while the system runs (or is starting). */
  alreadyRunning: define('WIFLOW_API_ALREADY_RUNNING', 'RESOURCE_CONFLICT', 409, (state: string) => `the system is already ${state}`),
  /** Stop or restart while the system is not running. */
  notRunning: define('WIFLOW_API_NOT_RUNNING', 'RESOURCE_CONFLICT', 409, (state: string) => `the system is ${state}, not running`),
  /** A transition is in progress. */
  transitionInProgress: define('WIFLOW_API_TRANSITION_IN_PROGRESS', 'RESOURCE_CONFLICT', 409, (state: string) => `the system is ${state}; try again when it settles`),
  /** Pose endpoints while the system is not running. */
  systemNotReady: define('WIFLOW_API_SYSTEM_NOT_READY', 'SYSTEM_NOT_READY', 503, (state: string) =>
    `the system is not initialized (state: ${state}); start it with POST /api/v1/system/start`),
  /** No pipeline flow configured to start. */
  pipelineNotConfigured: define('WIFLOW_API_PIPELINE_NOT_CONFIGURED', 'SYSTEM_NOT_READY', 503, () =>
    'no pipeline flow is configured: set api.pipeline.flow (a flow JSON path) or api.pipeline.flowId'),
  /** The pipeline flow could not be loaded or compiled, or failed to start. */
  pipelineFailed: define('WIFLOW_API_PIPELINE_FAILED', 'SYSTEM_ERROR', 500, (reason: string) => `the pipeline failed to start: ${reason}`),
  /** No storage service is available. */
  storageUnavailable: define('WIFLOW_API_STORAGE_UNAVAILABLE', 'SYSTEM_NOT_READY', 503, () => 'no storage is configured; this endpoint needs one (install @wiflow/plugin-sqlite)'),
  /** A domain analytics route whose plugin (the owner of its period report) is not loaded. */
  reportUnavailable: define('WIFLOW_API_REPORT_UNAVAILABLE', 'SYSTEM_NOT_READY', 503, (domain: string, plugin: string) =>
    `${domain} analytics are unavailable: ${plugin}, which computes them, is not loaded`),
  /** Cluster mode is on but the cluster cannot be used (no @wiflow/plugin-nats, NATS unreachable). */
  clusterUnavailable: define('WIFLOW_API_CLUSTER_UNAVAILABLE', 'SYSTEM_NOT_READY', 503, (reason: string) => `cluster mode is unavailable: ${reason}`),
  /** The node types POST /pose/process needs are not installed. */
  modelUnavailable: define('WIFLOW_API_MODEL_UNAVAILABLE', 'MODEL_ERROR', 503, (missing: string[]) =>
    `pose processing is unavailable: node type${missing.length === 1 ? '' : 's'} ${missing.join(', ')} not installed`),
  /** The configured chain does not compile (node config, port types). */
  processingMisconfigured: define('WIFLOW_API_PROCESSING_MISCONFIGURED', 'MODEL_ERROR', 503, (reason: string) => `pose processing is misconfigured: ${reason}`),
  /** The processing chain failed on the submitted CSI. */
  modelFailed: define('WIFLOW_API_MODEL_FAILED', 'MODEL_ERROR', 500, (reason: string) => `pose processing failed: ${reason}`),
  /** Processing took longer than its timeout. */
  timeout: define('WIFLOW_API_TIMEOUT', 'SYSTEM_ERROR', 504, (ms: number) => `processing exceeded ${ms} ms`),
  /** The empty-room reference routes need the pose plugin (@wiflow/plugin-pose-tfjs) in this runtime. */
  referencesUnavailable: define('WIFLOW_API_REFERENCES_UNAVAILABLE', 'SYSTEM_NOT_READY', 503, () =>
    'empty-room references are unavailable: the pose plugin (@wiflow/plugin-pose-tfjs) is not loaded'),
  /** Anything unexpected. */
  internal: define('WIFLOW_API_INTERNAL', 'SYSTEM_ERROR', 500, () => 'internal error'),
} as const;

/** Every API error definition with its pairing, for docs and the documentation test. */
export const apiErrorCatalogue: { code: string; specCode: SpecErrorCode; status: number }[] = Object.values(ApiErrors).map((e) => ({
  code: e.code,
  specCode: e.specCode,
  status: e.status,
}));

/** Turn anything thrown into an ApiError (storage and core errors keep their status). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isJsonTooDeep(error)) return ApiErrors.bodyTooDeep(Number((error as WiflowError).details?.max_depth ?? 0));
  if (error instanceof WiflowError && error.code === JSON_NOT_UTF8_CODE) return ApiErrors.malformedBody('the bytes are not valid UTF-8');
  if (error instanceof WiflowError) {
    if (error.code === 'WIFLOW_STORAGE_CLOSED' || error.code === 'WIFLOW_STORAGE_BACKEND' || error.code === 'WIFLOW_STORAGE_MISSING') {
      return new ApiError(error.code, 'SYSTEM_NOT_READY', 503, error.message);
    }
    if (error.status === 404) return new ApiError(error.code, 'RESOURCE_NOT_FOUND', 404, error.message);
    if (error.status === 409) return new ApiError(error.code, 'RESOURCE_CONFLICT', 409, error.message);
    if (error.status === 400 || error.status === 422) return new ApiError(error.code, 'VALIDATION_ERROR', 422, error.message, error.details);
  }
  const body = error as { type?: string; status?: number; message?: string; limit?: number; expose?: boolean };
  if (body?.type === 'entity.parse.failed') return ApiErrors.malformedBody(boundedEcho(body.message ?? 'parse error') as string);
  if (body?.type === 'entity.too.large') return ApiErrors.bodyTooLarge(typeof body.limit === 'number' ? `${body.limit} bytes` : 'the size limit');
  // The body parser's other refusals (unsupported charset or encoding, aborted or mis-sized body) are the client's.
  if (body?.status === 415) return ApiErrors.bodyUnsupported(boundedEcho(body.message ?? 'unsupported') as string);
  // (http-errors marks client errors `expose`; a body that does not inflate arrives as one without a `type`.)
  if (typeof body?.status === 'number' && body.status >= 400 && body.status < 500 && (typeof body.type === 'string' || body.expose === true)) {
    return ApiErrors.malformedBody(boundedEcho(body.message ?? 'unreadable') as string);
  }
  return ApiErrors.internal();
}

/** Field errors listed in one envelope; the rest are counted in `details.field_errors_truncated`. */
export const MAX_FIELD_ERRORS_SHOWN = 50;

/** The error envelope of a convention (spec section 7). */
export function errorEnvelope(error: ApiError, convention: Convention, requestId: string, now = new Date()): Record<string, unknown> {
  const details: Record<string, unknown> = { ...(error.details ?? {}) };
  if (error.fieldErrors) {
    // Echoes are bounded: a hostile body (a 1 MB key, 10,000 unknown fields) never makes the error itself unbounded.
    const shown = error.fieldErrors.slice(0, MAX_FIELD_ERRORS_SHOWN).map((f) => ({ ...f, field: boundedEcho(f.field) as string }));
    details.field_errors =
      convention === 'A'
        ? shown.map((f) => ({ field: f.field, message: f.message, received_value: f.received === undefined ? null : boundedEcho(f.received) }))
        : shown.map((f) => ({ field: f.field, reason: f.message }));
    if (error.fieldErrors.length > shown.length) details.field_errors_truncated = error.fieldErrors.length - shown.length;
  }
  const body = { code: error.specCode, message: error.message, details };
  const timestamp = now.toISOString();
  return convention === 'A'
    ? { error: { ...body, timestamp, request_id: requestId } }
    : { success: false, error: body, timestamp, request_id: requestId };
}
