import type { JobManager } from '../engine/job.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Storage } from '../storage/storage.js';
import type { ConfigStore } from './config.js';
import type { Logger } from './logger.js';
import type { FlowControl, SystemInfo } from './capabilities.js';
import { serviceToken } from './services.js';

/**
 * Tokens of the services core provides in every runtime (`services.get(Tokens.X)`). Each is a
 * narrow capability; the Runtime itself is not a service (plugin API 3).
 */
export const Tokens = Object.freeze({
  /** Run, deploy and inspect flows (jobs, pipelines, node catalog): for host plugins that serve an API over flows. */
  Flows: serviceToken<FlowControl>('wiflow.FlowControl'),
  /** The running system: version, state, recent log, HTTP server. */
  System: serviceToken<SystemInfo>('wiflow.SystemInfo'),
  /** The resolved Storage service (after start, when a storage plugin resolved one). */
  Storage: serviceToken<Storage>('wiflow.Storage'),
  /** The runtime's Logger. */
  Logger: serviceToken<Logger>('wiflow.Logger'),
  /** The whole configuration: every section, typed reads (`get`, `read`), updates and the JSON Schema. */
  Config: serviceToken<ConfigStore>('wiflow.Config'),
  /** The JobManager. */
  Jobs: serviceToken<JobManager>('wiflow.Jobs'),
  /** The SecretBox for encrypting secrets at rest. */
  SecretBox: serviceToken<SecretBox>('wiflow.SecretBox'),
});
