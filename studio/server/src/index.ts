import { definePlugin, serviceToken, type ServiceToken } from '@wiflow/core';
import type { Router } from 'express';
import { StudioConfigSchema } from './config.js';
import { StudioContext } from './context.js';
import { FileStore } from './files/file-store.js';
import { fileRoutes } from './files/file-routes.js';
import { flowRoutes } from './flows/flow-routes.js';
import { FlowService } from './flows/flow-service.js';
import { loadExampleFlows } from './examples/load-examples.js';
import { errorHandler } from './http/error-handler.js';
import { FLOW_SERVICE_OPENAPI_PATH, OPENAPI_PATH, openApiRoutes } from './http/openapi.js';
import { FlowRateLimiter, rateLimit } from './http/rate-limit.js';
import { buildRoutes } from './jobs/build-routes.js';
import { FlowRunner } from './jobs/flow-runner.js';
import { messageRoutes } from './jobs/message-routes.js';
import { runRoutes } from './jobs/run-routes.js';
import { logRoutes } from './logs/log-routes.js';
import { McpSessions, mcpRoutes } from './mcp/mcp-routes.js';
import { projectRoutes } from './projects/project-routes.js';
import { studioRoutes } from './studio/studio-routes.js';
import { roomRoutes } from './studio/room-routes.js';
import { sensingRoutes } from './studio/sensing-routes.js';
import { jobListRoutes } from './jobs/job-list-routes.js';

/** Plugin name (taps hooks under it). */
export const PLUGIN_NAME = '@wiflow/studio-server';

/** The flow service's parts, for embedding and tests. */
export interface StudioServer {
  context: StudioContext;
  flows: FlowService;
  files: FileStore;
  runner: FlowRunner;
  mcpSessions: McpSessions;
  /** Where each router of the service is mounted (filled when the HTTP server is set up), for route listings and the fuzz test. */
  mounts: { path: string; router: Router }[];
}

/** Service token of the studio server's parts (`runtime.services.get(StudioServerToken)`). */
export const StudioServerToken: ServiceToken<StudioServer> = serviceToken<StudioServer>('wiflow.studio.Server');

/**
 * The flow service (Langflow-shaped paths: flows, projects, build, run, webhook, files,
 * messages, flow events, config, health and logs) and per-project MCP servers, on the
 * runtime's one HTTP server.
 */
const studioServerPlugin = definePlugin({
  name: PLUGIN_NAME,
  config: { studio: StudioConfigSchema },
  setup(ctx) {
    // A host plugin: it stores, runs and deploys flows through core's narrow capabilities (Tokens.Flows, Tokens.System), never the runtime.
    const context = new StudioContext(ctx);
    const flows = new FlowService(context);
    const files = new FileStore(context);
    const runner = new FlowRunner(context, files);
    const mcpSessions = new McpSessions();
    const mounts: StudioServer['mounts'] = [];
    ctx.services.provide(StudioServerToken, () => ({ context, flows, files, runner, mcpSessions, mounts }));
    const logs = logRoutes(context);

    ctx.registerRoutes(({ app }) => {
      const onError = errorHandler(ctx.logger, () => context.config.maxFileSizeUploadMb);
      const { build, publicBuild } = buildRoutes(context, runner);
      const { run, webhook } = runRoutes(context, runner);
      const { v1, v2 } = fileRoutes(context, files);
      const { studio, health } = studioRoutes(context, flows);
      const projects = projectRoutes(context, flows);
      const limited = rateLimit(context, new FlowRateLimiter(() => context.config.rateLimit), () => context.config.autoLogin);
      const mount: [string, ReturnType<typeof flowRoutes>][] = [
        ['/api/v1/flows', flowRoutes(context, flows)],
        ['/api/v1/projects', projects],
        ['/api/v1/folders', projects],
        ['/api/v1/build', build],
        ['/api/v1/build_public_tmp', publicBuild],
        ['/api/v1/run', run],
        ['/api/v1/webhook', webhook],
        ['/api/v1/files', v1],
        ['/api/v2/files', v2],
        ['/api/v1/monitor', messageRoutes(context, flows)],
        ['/api/v1/mcp/project', mcpRoutes(context, flows, runner, mcpSessions)],
        ['/api/v1/studio', studio],
        ['/api/v1/studio', jobListRoutes(context)],
        ['/api/v1/studio', roomRoutes(context)],
        ['/api/v1/studio', sensingRoutes(context)],
      ];
      // The document of every declared route above, this one included, at both of its paths.
      const openApi = openApiRoutes(context, mounts);
      mount.push([OPENAPI_PATH, openApi], [FLOW_SERVICE_OPENAPI_PATH, openApi]);
      for (const [path, router] of mount) app.use(path, limited, router, onError);
      app.use('/health_check', limited);
      app.use(health, onError);
      app.use(logs.router, onError);
      mounts.push(...mount.map(([path, router]) => ({ path, router })), { path: '', router: health }, { path: '', router: logs.router });
    });

    // Example flows go into the owner's default project once, when the server is first ready.
    ctx.hooks.ready.tapPromise(PLUGIN_NAME, async () => {
      const dir = context.config.examplesDir;
      if (!dir || !ctx.hasStorage) return;
      await loadExampleFlows(context, flows, dir, context.config.examplesOwner, ctx.logger).catch((error: Error) => ctx.logger.warn(`example flows not loaded: ${error.message}`));
    });

    ctx.hooks.beforeStop.tapPromise(PLUGIN_NAME, async () => {
      await mcpSessions.closeAll();
      logs.closeStreams();
    });
  },
});

export default studioServerPlugin;
export { studioServerPlugin };
export { StudioContext, isUuid, type StudioPluginContext } from './context.js';
export { StudioConfigSchema, type StudioConfig } from './config.js';
export { StudioErrors, studioErrorCatalogue } from './errors.js';
export { FlowService } from './flows/flow-service.js';
export { FlowEventStore, FLOW_EVENT_TYPES, type FlowEvent } from './flows/flow-events.js';
export { FlowCreateSchema, FlowUpdateSchema, toFlowRead, toFlowHeader } from './flows/flow-model.js';
export { FileStore } from './files/file-store.js';
export { sanitizeFileName } from './files/upload.js';
export { FlowRunner } from './jobs/flow-runner.js';
export { applyTweaks } from './jobs/tweaks.js';
export { InputValueRequestSchema } from './jobs/run-model.js';
export { McpSessions } from './mcp/mcp-routes.js';
export { sanitizeToolName, projectTools, type FlowTool } from './mcp/tools.js';
export { OAuthValidator } from './mcp/oauth.js';
export { configResponse, healthChecks } from './studio/studio-routes.js';
