import { RATE_LIMIT_HEADERS, apiConventionInForce, buildOpenApi, definePlugin, serviceToken, type ServiceToken, type Storage, type WiflowPlugin } from '@wiflow/core';
import { identityOf, identityRoutes, type IdentityService } from '@wiflow/plugin-identity';
import { ApiSection, PoseSection, PrivacyConfigSchema, type ApiConfig, type Convention } from './config.js';
import { poseApiHost, type PoseApiHost } from './host.js';
import { ApiErrors } from './errors.js';
import { buildApiRouter } from './http/api-router.js';
import { PoseHub } from './hub/pose-hub.js';
import { PoseHubToken, posePublishNode } from './hub/publish-node.js';
import { poseOccupancyNode } from './hub/occupancy-node.js';
import { splitNode } from './hub/split-node.js';
import { RateLimiter, type RateLimitStore } from './limits/rate-limiter.js';
import { analyticsRoutes } from './routes/analytics.js';
import { configRoutes } from './routes/config.js';
import { healthRoutes } from './routes/health.js';
import { poseRoutes } from './routes/pose.js';
import { systemRoutes } from './routes/system.js';
import { referenceRoutes } from './routes/reference.js';
import type { ApiServices } from './services.js';
import { PoseProcessor } from './system/pose-processor.js';
import { ResourceMonitor } from './system/resource-monitor.js';
import { SystemController } from './system/system-controller.js';
import { PoseStream } from './ws/pose-stream.js';
import type { PoseRoute, RouteDefinition } from './http/route.js';
import { ClusterMode, clusterRequested } from './cluster/cluster-mode.js';
import type { ClusterStatus } from './cluster/cluster-status.js';

/** The plugin's name (tap name of every hook). */
export const PLUGIN_NAME = '@wiflow/plugin-pose-api';

/** Service token of the PoseApi (routes, stream, system controller) of a runtime. */
export const PoseApiToken: ServiceToken<PoseApi> = serviceToken<PoseApi>('wiflow.pose-api.PoseApi');

/** Options for embedding (tests, cluster mode). */
export interface PoseApiOptions {
  /** Where rate-limit counters live (default in memory). */
  rateLimitStore?: RateLimitStore;
  env?: NodeJS.ProcessEnv;
}

/** The pose service of one runtime: everything the routes and the stream share. */
export class PoseApi implements ApiServices {
  readonly hub: PoseHub;
  readonly system: SystemController;
  readonly limiter: RateLimiter;
  readonly resources: ResourceMonitor;
  readonly processor: PoseProcessor;
  readonly stream: PoseStream;
  /** Set while this instance runs in cluster mode (config `cluster.enabled`). */
  cluster: ClusterMode | undefined;
  #routes: RouteDefinition[] | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #openapi = new Map<Convention, Record<string, unknown>>();

  /** `host`: the capabilities the API works with (flows, system info, config, storage, hooks, services), never the runtime. */
  constructor(readonly host: PoseApiHost, options: PoseApiOptions = {}) {
    this.#env = options.env ?? process.env;
    this.hub = new PoseHub(() => (host.hasStorage ? host.storage : undefined), () => this.apiConfig().hub, host.logger.child('pose-api'));
    this.system = new SystemController(host, this.hub, () => this.apiConfig());
    this.limiter = new RateLimiter(options.rateLimitStore);
    this.resources = new ResourceMonitor(host.dataDir);
    this.processor = new PoseProcessor(host, () => this.apiConfig());
    this.stream = new PoseStream(this);
  }

  /** Users, tokens, keys: the identity plugin's service, reached through its typed token. */
  get auth(): IdentityService {
    return identityOf(this.host);
  }

  convention(): Convention {
    return apiConventionInForce(this.#env, this.apiConfig().convention);
  }

  apiConfig(): ApiConfig {
    return this.host.config.read(ApiSection);
  }

  storage(): Storage {
    if (!this.host.hasStorage) throw ApiErrors.storageUnavailable();
    return this.host.storage;
  }

  async storageForReading(): Promise<Storage> {
    const storage = this.storage();
    // /pose/latest serves frames as they are published, the history reads storage: write the
    // hub's pending batch and the storage's own buffer first, so a reader sees what latest served.
    await this.hub.flush();
    await storage.flush();
    return storage;
  }

  clusterStatus(): ClusterStatus | null {
    return this.cluster?.status() ?? null;
  }

  websocketClientCount(): number {
    return this.stream.clients.size;
  }

  producing(): boolean {
    return this.system.running || (this.cluster?.producing() ?? false);
  }

  /** Every route, built once. */
  routes(): RouteDefinition[] {
    // The identity plugin's routes name the rate-limit categories this API limits ('auth', 'config').
    this.#routes ??= [...(identityRoutes(this.auth) as PoseRoute[]), ...poseRoutes(this), ...systemRoutes(this), ...referenceRoutes(this), ...configRoutes(this), ...analyticsRoutes(this), ...healthRoutes(this)];
    return this.#routes;
  }

  /** The OpenAPI document of a convention (built once per convention). */
  openapi(convention: Convention): Record<string, unknown> {
    let doc = this.#openapi.get(convention);
    if (!doc) {
      doc = buildOpenApi(this.routes(), convention, { title: 'wiflow pose service', name: 'Pose service', version: this.host.system.version, serverUrl: '/api/v1', headers: RATE_LIMIT_HEADERS });
      this.#openapi.set(convention, doc);
    }
    return doc;
  }
}

/** Build the plugin (options for embedding; the default export uses none). */
export function createPoseApiPlugin(options: PoseApiOptions = {}): WiflowPlugin {
  return definePlugin({
    name: PLUGIN_NAME,
    // Storage honours `privacy`; the storage plugins declare the same section with the same keys, so it exists without one too.
    config: { api: ApiSection.schema, pose: PoseSection.schema, privacy: PrivacyConfigSchema },
    // Users, tokens and API keys: who is calling, and the /auth routes this API serves.
    dependencies: ['@wiflow/plugin-identity'],
    setup(ctx) {
      // A host plugin: it deploys the pipeline and reports on jobs through core's narrow capabilities (Tokens.Flows, System, Config).
      const api = new PoseApi(poseApiHost(ctx), options);
      ctx.services.provide(PoseApiToken, () => api);
      ctx.services.provide(PoseHubToken, () => api.hub);
      ctx.registerNode(posePublishNode);
      ctx.registerNode(splitNode);
      ctx.registerNode(poseOccupancyNode);
      ctx.hooks.start.tapPromise(PLUGIN_NAME, async (system) => {
        if (!system.hasStorage) ctx.logger.warn('no storage: history and analytics are unavailable until a storage plugin is installed');
        api.resources.start();
        api.resources.onTick(() => api.system.sampleRates());
        startMetricsRecorder(api);
      });
      ctx.registerRoutes((http) => {
        const router = buildApiRouter(api, api.routes());
        http.app.get('/api/v1/openapi.json', (req, res) => {
          const asked = typeof req.query.convention === 'string' ? req.query.convention.toUpperCase() : undefined;
          res.json(api.openapi(asked === 'A' || asked === 'B' ? asked : api.convention()));
        });
        http.app.use('/api/v1', router);
        http.websocket('/ws/pose', api.stream.handler, api.stream.guard, { closeTimeoutMs: api.apiConfig().websocket.closeGraceMs });
      });
      ctx.hooks.ready.tapPromise(PLUGIN_NAME, async (system) => {
        if (system.httpServer) api.resources.attach(system.httpServer);
        api.stream.start();
        // Only a serving runtime is an API instance (`wiflow pipeline` workers load this plugin too, but never get `ready`).
        if (clusterRequested(api.host, options.env ?? process.env)) {
          const cluster = ClusterMode.of(api, ctx.logger);
          await cluster.start();
          api.cluster = cluster;
        }
        if (api.apiConfig().pipeline.autoStart) {
          try {
            await api.system.start();
          } catch (error) {
            ctx.logger.error('pipeline auto-start failed', { error: (error as Error).message });
          }
        }
      });
      ctx.hooks.beforeStop.tapPromise(PLUGIN_NAME, async () => {
        api.stream.stop();
        await api.system.shutdown();
        await api.hub.flush();
        await api.cluster?.stop();
        api.cluster = undefined;
      });
      ctx.hooks.stop.tapPromise(PLUGIN_NAME, async () => {
        api.resources.stop();
        await api.hub.flush();
      });
    },
  });
}

/** Every 10 s, store a performance sample (GET /metrics history, summary system_stats). */
function startMetricsRecorder(api: PoseApi): void {
  let previousErrors = 0;
  const timer = setInterval(() => {
    if (!api.host.hasStorage || api.host.system.state !== 'started') return;
    const nodes = api.system.components();
    const errors = nodes.reduce((a, n) => a + n.counters.errors, 0);
    const r = api.resources.snapshot();
    const latency = nodes.length ? nodes.reduce((a, n) => a + n.counters.latencyMeanMs, 0) : 0;
    const frame = api.hub.latest();
    void api.host.storage.metrics
      .append([
        {
          timestamp: Date.now(),
          kind: 'performance',
          source: 'pose-api',
          values: {
            frames_per_second: api.hub.framesPerSecond(),
            average_latency_ms: latency,
            average_processing_time_ms: frame?.processingTimeMs ?? 0,
            cpu_usage: r.cpuUsage * 100,
            memory_usage: r.memoryUsage * 100,
            node_errors_delta: Math.max(0, errors - previousErrors),
            running: api.system.running ? 1 : 0,
          },
        },
      ])
      .catch(() => undefined);
    previousErrors = errors;
  }, 10_000);
  timer.unref();
}

/** The pose API plugin with default options. */
const plugin: WiflowPlugin = createPoseApiPlugin();
export default plugin;

export { poseApiHost, type PoseApiHost } from './host.js';
export { ApiConfigSchema, ApiSection, PoseConfigSchema, PoseSection, PrivacyConfigSchema, RATE_LIMIT_CATEGORIES, type ApiConfig, type PoseConfig, type Convention, type RateLimitCategory } from './config.js';
export { ApiError, ApiErrors, apiErrorCatalogue, errorEnvelope, toApiError, SPEC_ERROR_CODES, type SpecErrorCode, type FieldError } from './errors.js';
export { PoseHub, type HubListener, type HubCounters } from './hub/pose-hub.js';
export { PoseHubToken, posePublishNode } from './hub/publish-node.js';
export { splitNode } from './hub/split-node.js';
export { RateLimiter, MemoryRateLimitStore, type RateLimitStore, type RateLimitVerdict, type WindowState } from './limits/rate-limiter.js';
export { SystemController, PIPELINE_ID, type SystemState, type ComponentNode } from './system/system-controller.js';
export { PoseProcessor, type SubmittedCsi, type ProcessingOptions } from './system/pose-processor.js';
export { ResourceMonitor, type ResourceSnapshot } from './system/resource-monitor.js';
export { PoseStream, CloseCodes, type StreamCounters } from './ws/pose-stream.js';
export { buildApiRouter, JSON_BODY_LIMIT } from './http/api-router.js';
export type { PoseRoute, RouteDefinition, RouteContext, RouteReply, RouteAccess } from './http/route.js';
export type { ApiServices } from './services.js';
export { ClusterMode, clusterRequested } from './cluster/cluster-mode.js';
export { ClusterStatusSchema, ClusterInstanceSchema, clusterStatus, type ClusterStatus } from './cluster/cluster-status.js';
export { type HubOutlet } from './hub/pose-hub.js';
