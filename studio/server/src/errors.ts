import { defineError } from '@wiflow/core';

/** Every error the flow service raises (codes never reused); the HTTP layer maps them in `http/errors.ts`. */
export const StudioErrors = {
  unauthenticated: defineError('WIFLOW_STUDIO_UNAUTHENTICATED', 401, () => 'Could not validate credentials'),
  forbidden: defineError('WIFLOW_STUDIO_FORBIDDEN', 403, (reason: string) => reason),
  flowNotFound: defineError('WIFLOW_STUDIO_FLOW_NOT_FOUND', 404, (id: string) => `Flow ${id} not found`),
  projectNotFound: defineError('WIFLOW_STUDIO_PROJECT_NOT_FOUND', 404, (id: string) => `Project ${id} not found`),
  jobNotFound: defineError('WIFLOW_STUDIO_JOB_NOT_FOUND', 404, (id: string) => `Job ${id} not found`),
  fileNotFound: defineError('WIFLOW_STUDIO_FILE_NOT_FOUND', 404, (name: string) => `File ${name} not found`),
  revisionNotFound: defineError('WIFLOW_STUDIO_REVISION_NOT_FOUND', 404, (flowId: string, revision: number) => `Revision ${revision} of flow ${flowId} not found`),
  deploymentNotFound: defineError('WIFLOW_STUDIO_DEPLOYMENT_NOT_FOUND', 404, (id: string) => `Deployment ${id} not found`),
  deploymentConflict: defineError('WIFLOW_STUDIO_DEPLOYMENT_CONFLICT', 409, (id: string, flowName: string, origin: string, why: string) =>
    `Not deployed: deployment ${id} ("${flowName}", started by the ${origin}) is running and ${why}; stop it first`),
  serverDeployment: defineError('WIFLOW_STUDIO_SERVER_DEPLOYMENT', 409, (id: string) =>
    `Deployment ${id} was started by the server, not the studio: stop it with POST /api/v1/system/stop`),
  staleRevision: defineError('WIFLOW_STUDIO_STALE_REVISION', 409, (id: string, based: number, current: number) =>
    `Flow ${id} was saved by someone else: your change is based on revision ${based}, the flow is at revision ${current}`),
  nameTaken: defineError('WIFLOW_STUDIO_NAME_TAKEN', 409, (what: string, value: string) => `${what} "${value}" is already used by another of your flows`),
  duplicateIds: defineError('WIFLOW_STUDIO_DUPLICATE_IDS', 422, (ids: string) => `Duplicate flow ids in the batch: ${ids}`),
  invalidBody: defineError('WIFLOW_STUDIO_INVALID_BODY', 422, (reason: string) => reason),
  jobFlowNotDeployable: defineError('WIFLOW_STUDIO_JOB_FLOW_NOT_DEPLOYABLE', 422, (name: string) =>
    `Not deployed: "${name}" is a job flow (it has Job input or Job output nodes), which runs once per request; run it as a job (Run… in the studio, POST /api/v1/run/{id}) instead`),
  invalidFlow: defineError('WIFLOW_STUDIO_INVALID_FLOW', 422, (count: number) => `The flow has ${count} problem${count === 1 ? '' : 's'} and cannot run`),
  invalidUpload: defineError('WIFLOW_STUDIO_INVALID_UPLOAD', 400, (reason: string) => reason),
  archiveTooLarge: defineError('WIFLOW_STUDIO_ARCHIVE_TOO_LARGE', 413, (detail: string) => `Archive rejected: ${detail} (studio.imports limits)`),
  rateLimited: defineError('WIFLOW_STUDIO_RATE_LIMITED', 429, (limit: number, windowSeconds: number) =>
    `Too many requests: the flow service takes ${limit} requests per ${windowSeconds} s from one caller (studio.rateLimit); wait for the window to reset (Retry-After)`),
  quotaExceeded: defineError('WIFLOW_STUDIO_QUOTA_EXCEEDED', 429, (what: string) => what),
  fileTooLarge: defineError('WIFLOW_STUDIO_FILE_TOO_LARGE', 413, (limitMb: number) => `File exceeds the maximum upload size of ${limitMb} MB`),
  webhookDisabled: defineError('WIFLOW_STUDIO_WEBHOOK_DISABLED', 403, (id: string) => `Flow ${id} does not accept webhooks (set webhook: true)`),
  notPublic: defineError('WIFLOW_STUDIO_FLOW_NOT_PUBLIC', 403, (id: string) => `Flow ${id} is not PUBLIC`),
  sessionNotFound: defineError('WIFLOW_STUDIO_SESSION_NOT_FOUND', 404, (id: string) => `Session ${id} has no messages`),
  storageUnavailable: defineError('WIFLOW_STUDIO_STORAGE_UNAVAILABLE', 503, () => 'No storage is configured: the flow service needs a storage plugin (e.g. @wiflow/plugin-sqlite)'),
  notLoopback: defineError('WIFLOW_STUDIO_NOT_LOOPBACK', 403, () => 'Installing an MCP client configuration is allowed only from the local machine'),
  unknownClient: defineError('WIFLOW_STUDIO_UNKNOWN_MCP_CLIENT', 422, (client: string, known: string) => `Unknown MCP client ${client}; known clients: ${known}`),
  badOrigin: defineError('WIFLOW_STUDIO_BAD_ORIGIN', 403, (origin: string) => `Origin ${origin} is not allowed to reach this MCP server`),
  logsDisabled: defineError('WIFLOW_STUDIO_LOGS_DISABLED', 501, () => 'Log retrieval is disabled'),
  badLogQuery: defineError('WIFLOW_STUDIO_BAD_LOG_QUERY', 400, (reason: string) => reason),
  oauthMisconfigured: defineError('WIFLOW_STUDIO_OAUTH_MISCONFIGURED', 500, (reason: string) => `OAuth is enabled for this project but misconfigured: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const studioErrorCatalogue: { code: string; status: number }[] = Object.values(StudioErrors).map((e) => ({ code: e.code, status: e.status }));
