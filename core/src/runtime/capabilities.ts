import type { Server } from 'node:http';
import type { Job, JobManager, JobRequest } from '../engine/job.js';
import type { CompiledFlow, CompileResult } from '../flows/compiler.js';
import type { FlowData } from '../flows/flow.js';
import type { NodeRegistry } from '../nodes/registry.js';
import type { ConfigStore } from './config.js';
import type { LogBuffer } from './log-buffer.js';
import type { Logger } from './logger.js';
import type { DeployedPipeline, RunAccess } from './runtime.js';
import type { ServiceReader } from './services.js';

/** The node types a runtime knows, read-only: definitions (secrets, config schemas) and the palette. */
export type NodeCatalog = Pick<NodeRegistry, 'get' | 'has' | 'list' | 'describe'>;

/**
 * Run, deploy and inspect flows: what a host plugin that serves an API over flows (the studio
 * server, the pose API, the cluster) needs of the engine. `Tokens.Flows` provides it.
 */
export interface FlowControl {
  /** The node types flows may use. */
  readonly registry: NodeCatalog;
  /** Every job (active and recently finished). */
  readonly jobs: JobManager;
  /** The deployed stream pipelines by id. */
  readonly pipelines: ReadonlyMap<string, DeployedPipeline>;
  /** Compile a flow (every problem at once), within `access`; `inputs` fill the config fields their io.input nodes bind. */
  compile(data: FlowData, access?: RunAccess, inputs?: Readonly<Record<string, unknown>>): CompileResult;
  /** Compile or throw the problems (capability refusals 403, others 422), then apply the compileFlow hook. */
  prepare(data: FlowData, access?: RunAccess, inputs?: Readonly<Record<string, unknown>>): Promise<CompiledFlow>;
  /** Run a flow as a job: the one path of `wiflow run`, the run and build APIs and MCP tools. */
  runJob(data: FlowData, request?: Omit<JobRequest, 'flow'> & { access?: RunAccess }): Promise<Job>;
  /** Deploy a flow as a long-lived stream pipeline (an existing one of the same id is replaced). */
  deploy(data: FlowData, options?: { id?: string; flowId?: string; name?: string; source?: string; access?: RunAccess }): Promise<DeployedPipeline>;
  /** Stop a deployed pipeline, draining for at most `drainMs`. */
  undeploy(id: string, drainMs?: number): Promise<void>;
}

/** Where a runtime is in its life. */
export type RuntimeState = 'created' | 'starting' | 'started' | 'stopping' | 'stopped';

/**
 * A runtime as a job runner. The first runtime on a data directory holds its stable runner id (its
 * stored unfinished jobs are ended as interrupted when it starts again); one started while another live
 * runtime holds it (a server started beside a long `wiflow run`, say) runs its jobs under an id of its own.
 */
export interface JobRunnerInfo {
  runnerId: string;
  /** Whether this runtime holds the data directory's stable id. */
  holdsDataDirectory: boolean;
  /** The live runtime that holds it, when this one does not (null when it holds it, or the holder is unknown). */
  heldBy: { pid: number; host: string; startedAt: string | null } | null;
}

/**
 * The running system, read-only: what health and status routes report, the recent log, and
 * the HTTP server once it listens. `Tokens.System` provides it, and the lifecycle hooks
 * (`start`, `ready`, `beforeStop`, `stop`) pass it to their taps.
 */
export interface SystemInfo {
  /** wiflow's version (core's package version). */
  readonly version: string;
  /** When the runtime was built (ms since the epoch). */
  readonly startedAt: number;
  readonly state: RuntimeState;
  /** Whether a storage plugin resolved a storage service (after start). */
  readonly hasStorage: boolean;
  /** This runtime as a job runner (after start, with storage; else null). */
  readonly jobRunner: JobRunnerInfo | null;
  /** The recent log (secrets scrubbed), bounded by config `logs.bufferSize`. */
  readonly logs: LogBuffer;
  /** The HTTP server while it listens (connection counts, sockets); undefined before `listen`. */
  readonly httpServer: Server | undefined;
}

/**
 * What a storage plugin gets to build its storage (`hooks.resolveStorage`): the configuration
 * (its `storage` and `privacy` sections), services (the SecretBox), node types (which config
 * fields are secrets) and a logger; never the runtime.
 */
export interface StorageHost {
  readonly config: ConfigStore;
  readonly services: ServiceReader;
  readonly registry: NodeCatalog;
  readonly logger: Logger;
}
