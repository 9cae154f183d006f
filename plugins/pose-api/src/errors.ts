import { HttpErrors, defineApiError as define, type SpecErrorCode } from '@wiflow/core';

// The envelope, the spec codes and the kit's own refusals (validation, bodies, 401, 403, 429)
// are core's HTTP kit; the errors below are the pose service's own.
export { ApiError, errorEnvelope, toApiError, SPEC_ERROR_CODES, MAX_FIELD_ERRORS_SHOWN, type SpecErrorCode, type FieldError } from '@wiflow/core';

/** Every error the pose service answers with, one place (codes are never reused). */
export const ApiErrors = {
  ...HttpErrors,
  /** No pose data in the requested range (details: requested_range, available_range). */
  poseDataNotFound: define('WIFLOW_API_POSE_DATA_NOT_FOUND', 'POSE_DATA_NOT_FOUND', 404, (what: string) => `no pose data ${what}`),
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
} as const;

/** Every API error definition with its pairing, for docs and the documentation test. */
export const apiErrorCatalogue: { code: string; specCode: SpecErrorCode; status: number }[] = Object.values(ApiErrors).map((e) => ({
  code: e.code,
  specCode: e.specCode,
  status: e.status,
}));
