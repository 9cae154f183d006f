import { configSection, type Logger } from '@wiflow/core';
import { z } from 'zod';
import type { PoseApiHost } from '../host.js';
import { CLUSTER_SERVICE, type ClusterService, type FeedCounters, type PoseClusterLink } from '@wiflow/plugin-nats';
import { ApiErrors } from '../errors.js';
import type { RateLimitStore } from '../limits/rate-limiter.js';
import type { ApiServices } from '../services.js';
import { clusterStatus, type ClusterStatus } from './cluster-status.js';

/**
 * Whether the runtime's config turns cluster mode on: the NATS plugin's resolved settings
 * (section `cluster`, WIFLOW_CLUSTER); without that plugin, the raw section or WIFLOW_CLUSTER,
 * so that a cluster config without the plugin fails loudly (`ClusterMode.of`) instead of
 * silently serving alone.
 */
export function clusterRequested(host: Pick<PoseApiHost, 'services' | 'config'>, env: NodeJS.ProcessEnv): boolean {
  if (host.services.has(CLUSTER_SERVICE)) return host.services.get(CLUSTER_SERVICE).enabled;
  const fromEnv = env.WIFLOW_CLUSTER;
  if (fromEnv !== undefined && fromEnv !== '') return /^(1|true|yes|on)$/i.test(fromEnv);
  return host.config.read(ClusterSwitch)?.enabled === true;
}

/** The one key of the NATS plugin's `cluster` section read here, as configured (the plugin may be absent). */
const ClusterSwitch = configSection('cluster', z.object({ enabled: z.unknown() }).loose().optional());

/**
 * The pose API of one `wiflow serve` in a cluster (config `cluster.enabled`), wired through
 * the seams @wiflow/plugin-nats's `PoseClusterLink` fills (the wire format stays there):
 * - rate-limit counters in a NATS KV bucket shared by every API instance;
 * - the hub fed by the cluster's live feeds of pose.>, alerts.> and sensing.> (what any worker
 *   or API instance publishes), so GET /pose/latest, /ws/pose, the frames' sensed activity and
 *   occupancy show the whole cluster;
 * - on storage writers, the cluster's frames, alerts and sensing frames stored through one
 *   durable consumer per stream shared by all writers (each written once);
 * - the local pipeline's pose.publish output sent to pose.<environment> / alerts.<environment> /
 *   sensing.<environment> (same message ids as nats.publish), so it reaches every instance and
 *   is stored once too;
 * - a heartbeat that says this instance is an API instance, with its figures.
 */
export class ClusterMode {
  #link: PoseClusterLink | undefined;
  #unreport: (() => void) | undefined;
  #writer = false;

  constructor(
    private readonly api: ApiServices & { stream: { clients: Set<unknown> } },
    readonly cluster: ClusterService,
    private readonly logger: Logger,
  ) {}

  /** The cluster parts of a runtime whose config asks for cluster mode; throws clusterUnavailable when @wiflow/plugin-nats is not loaded. */
  static of(api: ApiServices & { stream: { clients: Set<unknown> } }, logger: Logger): ClusterMode {
    const host = api.host;
    if (!host.services.has(CLUSTER_SERVICE)) throw ApiErrors.clusterUnavailable('config cluster.enabled is true but @wiflow/plugin-nats is not loaded (plugins.allow?)');
    return new ClusterMode(api, host.services.get(CLUSTER_SERVICE), logger);
  }

  /** Whether this instance writes the cluster's frames and alerts to its storage. */
  get storageWriter(): boolean {
    return this.#writer;
  }

  /** Feed counters (status, tests). */
  get counters(): { poses: FeedCounters | undefined; alerts: FeedCounters | undefined; sensing: FeedCounters | undefined } {
    return { poses: this.#link?.poses.counters, alerts: this.#link?.alerts.counters, sensing: this.#link?.sensing.counters };
  }

  /** Wire everything; resolves once the consumers are in place. */
  async start(): Promise<void> {
    const { hub, host } = this.api;
    // Counters live at least as long as the longest configured window.
    const windows = Object.values(this.api.apiConfig().rateLimits).flatMap((v) => (typeof v === 'object' && v ? [v.windowSeconds] : []));
    let link: PoseClusterLink;
    try {
      link = await this.cluster.openPoseLink({ batch: this.api.apiConfig().hub.batchSize, rateLimitTtlMs: Math.max(3600, ...windows) * 1000 + 60_000 });
    } catch (error) {
      throw ApiErrors.clusterUnavailable(`cannot reach NATS: ${(error as Error).message}`);
    }
    this.#link = link;
    this.api.limiter.use(answeringNotReady(link.rateLimits));
    await link.poses.live((frame) => hub.acceptFrame(frame));
    await link.alerts.live((alert) => hub.acceptAlert(alert));
    await link.sensing.live((frame) => hub.acceptSensing(frame));
    this.#writer = this.cluster.settings.storageWriter && host.hasStorage;
    if (this.#writer) {
      await link.poses.store((frames) => hub.writeFrames(frames));
      await link.alerts.store((alerts) => hub.writeAlerts(alerts));
      await link.sensing.store((frames) => hub.writeSensing(frames));
    }
    hub.route(link.outlet);
    this.#unreport = this.cluster.report(() => ({
      role: 'api',
      components: { pose_api: 'running', pipeline: this.api.system.state, storage_writer: this.#writer ? 'running' : 'off' },
      counters: {
        frames_live: link.poses.counters.live,
        frames_stored: link.poses.counters.stored,
        alerts_live: link.alerts.counters.live,
        alerts_stored: link.alerts.counters.stored,
        sensing_live: link.sensing.counters.live,
        sensing_stored: link.sensing.counters.stored,
        store_errors: link.poses.counters.storeErrors + link.alerts.counters.storeErrors + link.sensing.counters.storeErrors,
        websocket_clients: this.api.stream.clients.size,
      },
    }));
    // Tell the others at once that this is an API instance (the first beat went out before the API was wired).
    this.cluster.announce();
    this.logger.info('pose API in cluster mode', { instanceId: this.cluster.instanceId, storageWriter: this.#writer });
  }

  /** Whether a pipeline runs on an instance that is up (workers announce `pipeline:<id>`, API instances `pipeline`). */
  producing(): boolean {
    return this.cluster.members().some((m) => m.status === 'up' && Object.entries(m.components).some(([name, state]) => (name === 'pipeline' || name.startsWith('pipeline:')) && state === 'running'));
  }

  /** The whole cluster for the status routes. */
  status(): ClusterStatus {
    return clusterStatus(this.cluster.members(), this.cluster.instanceId);
  }

  /** Unwire (before the NATS connection closes). */
  async stop(): Promise<void> {
    this.api.hub.route(undefined);
    this.#unreport?.();
    await this.#link?.stop();
  }
}

/** The shared counters, their failures answered 503 SYSTEM_NOT_READY rather than 500 while NATS is unreachable. */
function answeringNotReady(store: RateLimitStore): RateLimitStore {
  return {
    hit: async (key, windowMs, now) => {
      try {
        return await store.hit(key, windowMs, now);
      } catch (error) {
        throw ApiErrors.clusterUnavailable((error as Error).message);
      }
    },
    reset: () => store.reset(),
  };
}
