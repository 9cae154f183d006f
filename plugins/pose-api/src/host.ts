import { Tokens, type ConfigStore, type FlowControl, type Logger, type PluginContext, type RuntimeHooks, type ServiceReader, type Storage, type SystemInfo } from '@wiflow/core';

/**
 * What the pose API needs of its runtime, as narrow capabilities: flows to deploy and run,
 * system info to report, the configuration it serves (GET/PUT /config), storage, hooks,
 * services, logger. Never the runtime itself.
 */
export interface PoseApiHost {
  /** Deploy the pose pipeline, run POST /pose/process jobs, read the node catalog. */
  readonly flows: FlowControl;
  /** Version, state and HTTP server for health and status. */
  readonly system: SystemInfo;
  /** Every section: the config routes read, update and describe them. */
  readonly config: ConfigStore;
  /** `authenticate` for requests and WebSocket upgrades; `nodeError` for POST /pose/process's refusals. */
  readonly hooks: Pick<RuntimeHooks, 'authenticate' | 'nodeError'>;
  /** Other plugins' services (identity, cluster, reports, reference desk). */
  readonly services: ServiceReader;
  readonly logger: Logger;
  readonly dataDir: string;
  /** Whether a storage plugin resolved storage (after start). */
  readonly hasStorage: boolean;
  /** The storage; throws WIFLOW_STORAGE_MISSING when there is none. */
  readonly storage: Storage;
}

/** The pose API's capabilities from its plugin context and core's typed tokens. */
export function poseApiHost(ctx: PluginContext): PoseApiHost {
  return {
    flows: ctx.services.get(Tokens.Flows),
    system: ctx.services.get(Tokens.System),
    config: ctx.services.get(Tokens.Config),
    hooks: ctx.hooks,
    services: ctx.services,
    // The runtime's logger, not the plugin's child: log entries keep the component names they always had.
    logger: ctx.services.get(Tokens.Logger),
    dataDir: ctx.dataDir,
    get hasStorage() {
      return ctx.hasStorage;
    },
    get storage() {
      return ctx.storage;
    },
  };
}
