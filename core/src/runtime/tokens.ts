import type { JobManager } from '../engine/job.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Storage } from '../storage/storage.js';
import type { ConfigStore } from './config.js';
import type { Logger } from './logger.js';
import type { Runtime } from './runtime.js';
import { serviceToken } from './services.js';

/** Tokens of the services core provides in every runtime (`services.get(Tokens.X)`). */
export const Tokens = Object.freeze({
  /** The Runtime itself: for host plugins that run and deploy flows (the studio, the pose API); a capability plugin needs its context only. */
  Runtime: serviceToken<Runtime>('wiflow.Runtime'),
  /** The resolved Storage service (after start, when a storage plugin resolved one). */
  Storage: serviceToken<Storage>('wiflow.Storage'),
  /** The runtime's Logger. */
  Logger: serviceToken<Logger>('wiflow.Logger'),
  /** The ConfigStore. */
  Config: serviceToken<ConfigStore>('wiflow.Config'),
  /** The JobManager. */
  Jobs: serviceToken<JobManager>('wiflow.Jobs'),
  /** The SecretBox for encrypting secrets at rest. */
  SecretBox: serviceToken<SecretBox>('wiflow.SecretBox'),
});
