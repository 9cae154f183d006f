/** A wiflow error: a stable code, a message and the HTTP status an API answers with. */
export class WiflowError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  constructor(code: string, message: string, status = 500, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WiflowError';
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** An error factory with its code and status attached, so catalogues can list them. */
export type ErrorFactory<A extends unknown[]> = ((...args: A) => WiflowError) & { code: string; status: number };

/** Declare an error code once: its status and message template. */
export function defineError<A extends unknown[]>(code: string, status: number, message: (...args: A) => string): ErrorFactory<A> {
  const factory = (...args: A) => new WiflowError(code, message(...args), status);
  return Object.assign(factory, { code, status });
}

/** Every error core raises, one place (codes are never reused). */
export const CoreErrors = {
  pluginIncompatible: defineError('WIFLOW_PLUGIN_INCOMPATIBLE', 500, (plugin: string, wanted: string, have: string) =>
    `plugin ${plugin} wants plugin API ${wanted}, this core provides ${have}`),
  pluginApiOutdated: defineError('WIFLOW_PLUGIN_API_OUTDATED', 500, (plugin: string, wanted: string, have: string) =>
    `plugin ${plugin} was built for plugin API ${wanted}; this core provides API ${have}, where setup(ctx) gets capabilities (ctx.config from the plugin's declared config, ctx.storage, ctx.services with typed tokens, ctx.registerRoutes, ctx.registerCommand) and never the runtime: no ctx.runtime, no Tokens.Runtime (host plugins use Tokens.Flows, Tokens.System, Tokens.Config), no http.runtime, lifecycle hooks pass SystemInfo; a failing setup is rolled back. Update the plugin: docs/plugins.md, "Migrating"`),
  pluginLoadFailed: defineError('WIFLOW_PLUGIN_LOAD_FAILED', 500, (plugin: string, reason: string) => `plugin ${plugin} failed to load: ${reason}`),
  pluginInvalid: defineError('WIFLOW_PLUGIN_INVALID', 500, (plugin: string, reason: string) => `plugin ${plugin} is not a valid wiflow plugin: ${reason}`),
  nodeTypeDuplicate: defineError('WIFLOW_NODE_TYPE_DUPLICATE', 500, (type: string, plugin: string) => `node type ${type} is already registered (by ${plugin})`),
  nodeTypeUnknown: defineError('WIFLOW_NODE_TYPE_UNKNOWN', 400, (type: string) => `unknown node type ${type}`),
  flowInvalid: defineError('WIFLOW_FLOW_INVALID', 422, (count: number) => `the flow has ${count} problem${count === 1 ? '' : 's'}`),
  jobNotFound: defineError('WIFLOW_JOB_NOT_FOUND', 404, (id: string) => `job ${id} not found`),
  jobTimedOut: defineError('WIFLOW_JOB_TIMED_OUT', 504, (ms: number) => `job exceeded its timeout of ${ms} ms`),
  jobCancelled: defineError('WIFLOW_JOB_CANCELLED', 499, () => 'job was cancelled'),
  jobInterrupted: defineError('WIFLOW_JOB_INTERRUPTED', 500, (status: string) =>
    `the server stopped without a clean shutdown while this job was ${status === 'queued' ? 'queued' : 'running'}; it did not finish (run it again)`),
  jobInputMissing: defineError('WIFLOW_JOB_INPUT_MISSING', 422, (name: string) => `job input ${name} is required`),
  configInvalid: defineError('WIFLOW_CONFIG_INVALID', 422, (reason: string) => `invalid configuration: ${reason}`),
  serviceMissing: defineError('WIFLOW_SERVICE_MISSING', 500, (name: string) => `no service registered for ${name}`),
  storageMissing: defineError('WIFLOW_STORAGE_MISSING', 500, () => 'no storage plugin resolved a storage service'),
  fileNotAvailable: defineError('WIFLOW_FILE_NOT_AVAILABLE', 403, (requested: string) =>
    `file ${JSON.stringify(requested)} is not available to this flow: it does not exist or lies outside the folders this flow may use`),
  capabilityDenied: defineError('WIFLOW_CAPABILITY_DENIED', 403, (summary: string) => summary),
  registryFrozen: defineError('WIFLOW_REGISTRY_FROZEN', 500, (what: string) => `cannot register ${what} after the runtime started`),
  routeNotFound: defineError('WIFLOW_HTTP_ROUTE_NOT_FOUND', 404, (method: string, path: string) => `no route for ${method} ${path}`),
  invalidRequestTarget: defineError('WIFLOW_HTTP_INVALID_REQUEST_TARGET', 400, () => 'the request target is not a valid URL'),
  invalidPathEncoding: defineError('WIFLOW_HTTP_INVALID_PATH', 400, (detail: string) => detail),
  requestFailed: defineError('WIFLOW_HTTP_REQUEST_FAILED', 400, (detail: string) => detail),
} as const;

/** The documented error definitions, for docs and tests. */
export const coreErrorCatalogue: { code: string; status: number }[] = Object.values(CoreErrors).map((e) => ({ code: e.code, status: e.status }));

/** Turn anything thrown into a message. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

