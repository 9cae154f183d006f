import type { Storage } from '@wiflow/core';
import type { PoseApiHost } from './host.js';
import type { ApiConfig, Convention } from './config.js';
import type { IdentityService } from '@wiflow/plugin-identity';
import type { PoseHub } from './hub/pose-hub.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import type { ResourceMonitor } from './system/resource-monitor.js';
import type { SystemController } from './system/system-controller.js';
import type { PoseProcessor } from './system/pose-processor.js';
import type { ClusterStatus } from './cluster/cluster-status.js';

/** What the routes and the WebSocket stream share. */
export interface ApiServices {
  /** The capabilities the API works with (flows, system info, config, storage, hooks, services). */
  host: PoseApiHost;
  hub: PoseHub;
  system: SystemController;
  /** Users, tokens and API keys (the identity plugin's service). */
  auth: IdentityService;
  limiter: RateLimiter;
  resources: ResourceMonitor;
  processor: PoseProcessor;
  /** The convention in force (env WIFLOW_API_CONVENTION, else config api.convention). */
  convention(): Convention;
  apiConfig(): ApiConfig;
  /** The storage service, or ApiErrors.storageUnavailable. */
  storage(): Storage;
  /** The storage once every frame served so far is in it (read-your-writes for history and analytics). */
  storageForReading(): Promise<Storage>;
  /** The whole cluster from heartbeats (cluster mode), else null. */
  clusterStatus(): ClusterStatus | null;
  /** Open /ws/pose connections (clients, not hub listeners). */
  websocketClientCount(): number;
  /** Whether pose frames are being produced: the local pipeline runs, or (cluster mode) a pipeline runs on an instance that is up. */
  producing(): boolean;
}
