import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ioPlugin } from '../builtin/io-plugin.js';
import { CoreErrors } from '../errors.js';
import { FlowCompiler, type CompileResult } from '../flows/compiler.js';
import type { FlowData } from '../flows/flow.js';
import { createRuntimeHooks, type RuntimeHooks } from '../hooks/hooks.js';
import { HttpHost } from '../http/http-host.js';
import { Job, JobManager, type JobRequest } from '../engine/job.js';
import { Pipeline, type PipelineOutcome } from '../engine/pipeline.js';
import { NodeRegistry } from '../nodes/registry.js';
import type { WiflowPlugin } from '../plugins/define-plugin.js';
import { PluginHost, type PluginReport } from '../plugins/plugin-host.js';
import type { FileAccess } from '../security/file-access.js';
import { SecretBox } from '../security/secret-box.js';
import type { Storage } from '../storage/storage.js';
import { ConfigStore } from './config.js';
import { claimRunnerId, type RunnerClaim } from './runner-id.js';
import { LogBuffer } from './log-buffer.js';
import type { FlowControl, JobRunnerInfo, RuntimeState, SystemInfo } from './capabilities.js';
import { createLogger, recordingLogger, type Logger } from './logger.js';
import { Services } from './services.js';
import { Tokens } from './tokens.js';

/** How to build a runtime. */
export interface RuntimeOptions {
  /** Where storage, keys and uploads live (default `./.wiflow`). */
  dataDir?: string;
  /** Raw configuration (file contents merged with overrides). */
  config?: Record<string, unknown>;
  /** Discover installed plugins (default true). */
  discover?: boolean;
  /** Where discovery starts looking for node_modules (default: cwd and core's own location). */
  searchFrom?: string[];
  /** Plugins passed directly (tests, embedding), set up after discovered ones. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each plugin has its own config type
  plugins?: WiflowPlugin<any>[];
  logger?: Logger;
}

/** What a run may reach: the capabilities its nodes may declare and where they may open files. */
export interface RunAccess {
  /** Capabilities allowed; undefined: any. */
  capabilities?: readonly string[];
  /** Who holds them, for messages ("role operator"). */
  holder?: string;
  /** Where nodes may open files (default: anywhere). */
  files?: FileAccess;
}

/** A deployed stream pipeline: what it runs, where that came from, and how it ended (null while it runs). */
export interface DeployedPipeline {
  id: string;
  flowId: string | null;
  /** The flow's name, when the deployer knows it (e.g. a flow file's `name`). */
  name: string | null;
  /** Where the flow came from when it is not a stored flow (e.g. the flow file's absolute path). */
  source: string | null;
  /** The flow as deployed (node configs say which environments it writes). */
  data: FlowData;
  pipeline: Pipeline;
  startedAt: number;
  /** How the pipeline ended (completed, failed, stopped); null while it runs. */
  outcome: PipelineOutcome | null;
}

const corePackage = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** wiflow's version (core's package version). */
export const WIFLOW_VERSION: string = corePackage.version;

/**
 * One wiflow runtime: its services (typed tokens), the frozen hooks, the plugin host and
 * node registry, the flow compiler and engine, and the HTTP host.
 */
export class Runtime {
  /** Services by typed token: the one way plugins, nodes and hosts reach them. */
  readonly services = new Services();
  readonly hooks: RuntimeHooks = createRuntimeHooks();
  readonly registry = new NodeRegistry();
  readonly config: ConfigStore;
  readonly logger: Logger;
  /** The recent log (entries of `logger`, secrets scrubbed), bounded by config `logs.bufferSize`. */
  readonly logs: LogBuffer;
  readonly dataDir: string;
  readonly http: HttpHost;
  readonly jobs: JobManager;
  readonly pipelines = new Map<string, DeployedPipeline>();
  readonly startedAt = Date.now();
  readonly version = WIFLOW_VERSION;
  #plugins!: PluginHost;
  #storage: Storage | undefined;
  #state: RuntimeState = 'created';
  /** This runtime's runner id and its hold on the data directory (once storage is open). */
  #runner: RunnerClaim | undefined;
  /** What `Tokens.System` and the lifecycle hooks hand out: a read-only view, never the runtime. */
  readonly #system: SystemInfo;

  private constructor(options: RuntimeOptions) {
    this.dataDir = path.resolve(options.dataDir ?? '.wiflow');
    mkdirSync(this.dataDir, { recursive: true });
    this.config = new ConfigStore(options.config ?? {});
    const logs = this.config.get('logs');
    this.logs = new LogBuffer(logs.bufferSize, logs.level);
    this.config.on('change', (changed: string[]) => {
      if (!changed.some((c) => c.startsWith('logs.'))) return;
      const next = this.config.get('logs');
      this.logs.configure({ capacity: next.bufferSize, level: next.level });
    });
    this.logger = recordingLogger(options.logger ?? createLogger(), this.logs);
    this.services.provideValue(Tokens.Logger, this.logger);
    this.services.provideValue(Tokens.Config, this.config);
    this.services.provide(Tokens.SecretBox, () => SecretBox.fromDataDir(this.dataDir));
    const jobs = this.config.get('jobs');
    this.jobs = new JobManager(this.hooks, this.services.reader(), { ...jobs, defaultTimeoutMs: jobs.timeoutMs });
    this.services.provideValue(Tokens.Jobs, this.jobs);
    this.http = new HttpHost(this);
    this.#system = systemInfoOf(this);
    this.services.provideValue(Tokens.System, this.#system);
    this.services.provideValue(Tokens.Flows, flowControlOf(this));
  }

  /** Build a runtime: core's built-in plugins, then discovered and explicit plugins. */
  static async create(options: RuntimeOptions = {}): Promise<Runtime> {
    const runtime = new Runtime(options);
    runtime.#plugins = new PluginHost({
      hooks: runtime.hooks,
      services: runtime.services,
      registry: runtime.registry,
      config: runtime.config,
      logger: runtime.logger,
      dataDir: runtime.dataDir,
      storage: () => runtime.#storage,
    });
    await runtime.#plugins.setup(ioPlugin, WIFLOW_VERSION, 'builtin');
    if (options.discover !== false) {
      const here = path.dirname(fileURLToPath(import.meta.url));
      await runtime.#plugins.loadDiscovered(options.searchFrom ?? [process.cwd(), here], runtime.config.get('plugins'));
    }
    for (const plugin of options.plugins ?? []) await runtime.#plugins.setup(plugin, '0.0.0', 'explicit');
    await runtime.hooks.pluginsLoaded.promise(runtime.#plugins.reports);
    return runtime;
  }

  /** What happened to each plugin. */
  get plugins(): readonly PluginReport[] {
    return this.#plugins.reports;
  }

  get state(): RuntimeState {
    return this.#state;
  }

  /** The storage service (after `start`). */
  get storage(): Storage {
    if (!this.#storage) throw CoreErrors.storageMissing();
    return this.#storage;
  }

  /** Whether a storage plugin resolved a storage service. */
  get hasStorage(): boolean {
    return this.#storage !== undefined;
  }

  /** This runtime as a job runner (after `start`, with storage; else null): its id and whether it holds the data directory. */
  get jobRunner(): JobRunnerInfo | null {
    const runner = this.#runner;
    if (!runner) return null;
    const by = runner.heldBy;
    return { runnerId: runner.runnerId, holdsDataDirectory: runner.holder, heldBy: by && by.pid > 0 ? { pid: by.pid, host: by.host, startedAt: by.startedAt || null } : null };
  }

  /** Resolve storage through the hook, run start hooks, freeze the registry. */
  async start(): Promise<void> {
    if (this.#state !== 'created') return;
    this.#state = 'starting';
    this.registry.freeze();
    const kind = this.config.get('storage').kind;
    const host = { config: this.config, services: this.services.reader(), registry: this.registry, logger: this.logger };
    this.#storage = await this.hooks.resolveStorage.promise({ kind, dataDir: this.dataDir, host });
    if (this.#storage) {
      await this.#storage.open();
      this.services.provideValue(Tokens.Storage, this.#storage);
      this.#runner = claimRunnerId(this.dataDir, { leaseMs: this.jobs.limits.leaseMs });
      const runner = this.jobRunner;
      if (runner && !runner.holdsDataDirectory) {
        // Debug: a CLI command beside the server (`wiflow users add`) meets this on every call.
        this.logger.debug('the data directory is held by another runtime: this one runs its jobs under its own id and leaves that runtime\'s jobs to it', { runnerId: runner.runnerId, heldBy: runner.heldBy });
      }
      const jobs = await this.jobs.attachStore(this.#storage.jobs, { runnerId: this.#runner.runnerId, logger: this.logger });
      if (jobs.interrupted) this.logger.warn(`${jobs.interrupted} job(s) were unfinished when the server last stopped; marked failed (WIFLOW_JOB_INTERRUPTED)`);
      if (jobs.vanished) this.logger.warn(`${jobs.vanished} job(s) of other instances were not written for jobs.leaseMs; marked failed (WIFLOW_JOB_INTERRUPTED)`);
    } else {
      this.logger.warn(`no storage plugin resolved storage kind ${kind}; persistence is off`);
    }
    await this.hooks.start.promise(this.#system);
    this.#state = 'started';
  }

  /** Start the runtime and listen on the configured port (0 for any free port). */
  async listen(port?: number, host?: string): Promise<{ port: number; host: string; url: string }> {
    await this.start();
    const server = this.config.get('server');
    const address = await this.http.listen(port ?? server.port, host ?? server.host);
    await this.hooks.ready.promise(this.#system);
    return address;
  }

  /**
   * Compile a flow against this runtime's registry (every problem at once); `access` limits the
   * capabilities its nodes may need; `inputs` (a job's) are written into the config fields their
   * io.input nodes bind (flow-interface.ts).
   */
  compile(data: FlowData, access: RunAccess = {}, inputs?: Readonly<Record<string, unknown>>): CompileResult {
    const engine = this.config.get('engine');
    return new FlowCompiler(this.registry, {
      defaultCapacity: engine.queueCapacity,
      defaultOverflow: engine.overflow,
      allowedCapabilities: access.capabilities,
      capabilityHolder: access.holder,
    }).compile(data, inputs);
  }

  /** Compile (or throw the problems: capability refusals as 403, others as 422) and apply the compileFlow hook. */
  async prepare(data: FlowData, access: RunAccess = {}, inputs?: Readonly<Record<string, unknown>>) {
    const result = this.compile(data, access, inputs);
    if (!result.ok) {
      const denied = result.problems.filter((p) => p.code === 'capability_denied');
      const error = denied.length ? CoreErrors.capabilityDenied(denied.map((p) => p.message).join('; ')) : CoreErrors.flowInvalid(result.problems.length);
      Object.assign(error, { details: { problems: result.problems } });
      throw error;
    }
    return this.hooks.compileFlow.promise(result.flow);
  }

  /**
   * Run a flow as a job (within `access` when given: capabilities and file roots): the one path
   * of `wiflow run`, the flow service's run and build APIs and MCP tools. Inputs reach io.input
   * nodes and the config fields they bind.
   */
  async runJob(data: FlowData, request: Omit<JobRequest, 'flow'> & { access?: RunAccess } = {}): Promise<Job> {
    const { access, ...rest } = request;
    const flow = await this.prepare(data, access, rest.inputs ?? {});
    return this.jobs.submit({ ...rest, files: access?.files ?? rest.files, flow });
  }

  /** Deploy a flow as a long-lived stream pipeline (within `access` when given). */
  async deploy(data: FlowData, options: { id?: string; flowId?: string; name?: string; source?: string; access?: RunAccess } = {}): Promise<DeployedPipeline> {
    const flow = await this.prepare(data, options.access);
    const id = options.id ?? randomUUID();
    if (this.pipelines.has(id)) await this.undeploy(id);
    const pipeline = new Pipeline(flow, { runId: id, mode: 'stream', hooks: this.hooks, services: this.services.reader(), files: options.access?.files });
    const deployed: DeployedPipeline = { id, flowId: options.flowId ?? null, name: options.name ?? null, source: options.source ?? null, data, pipeline, startedAt: Date.now(), outcome: null };
    void pipeline.done.then((outcome) => (deployed.outcome = outcome));
    this.pipelines.set(id, deployed);
    await pipeline.start();
    return deployed;
  }

  /** Stop a deployed pipeline, draining for at most `drainMs`. */
  async undeploy(id: string, drainMs = 2000): Promise<void> {
    const deployed = this.pipelines.get(id);
    if (!deployed) return;
    this.pipelines.delete(id);
    await deployed.pipeline.stop('undeployed', drainMs);
  }

  /**
   * Graceful shutdown within `timeoutMs`: stop sources and drain pipelines, cancel jobs,
   * run stop hooks (flush storage), close sockets and the server.
   */
  async stop(timeoutMs?: number): Promise<void> {
    if (this.#state === 'stopping' || this.#state === 'stopped') return;
    this.#state = 'stopping';
    const limit = timeoutMs ?? this.config.get('server').shutdownTimeoutMs;
    const deadline = Date.now() + limit;
    const work = (async () => {
      await this.hooks.beforeStop.promise(this.#system);
      await Promise.all([...this.pipelines.keys()].map((id) => this.undeploy(id, Math.max(0, Math.min(2000, deadline - Date.now() - 500)))));
      this.jobs.detachTimers();
      await this.jobs.cancelAll('runtime stopping');
      await this.jobs.settled();
      await this.http.close(Math.max(100, deadline - Date.now() - 200));
      await this.hooks.stop.promise(this.#system);
      await this.#storage?.close();
      this.#runner?.release();
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      work.catch((error) => this.logger.error('error during shutdown', { error: String(error) })),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.logger.warn(`shutdown took longer than ${limit} ms; forcing`);
          resolve();
        }, limit);
        timer.unref();
      }),
    ]);
    if (timer) clearTimeout(timer);
    this.#runner?.release();
    this.#state = 'stopped';
  }
}

/** A runtime's flow control: its own methods, bound, and read-only views; nothing else of it is reachable. */
function flowControlOf(runtime: Runtime): FlowControl {
  const { registry } = runtime;
  return Object.freeze({
    registry: Object.freeze({ get: registry.get.bind(registry), has: registry.has.bind(registry), list: registry.list.bind(registry), describe: registry.describe.bind(registry) }),
    jobs: runtime.jobs,
    pipelines: runtime.pipelines,
    compile: runtime.compile.bind(runtime),
    prepare: runtime.prepare.bind(runtime),
    runJob: runtime.runJob.bind(runtime),
    deploy: runtime.deploy.bind(runtime),
    undeploy: runtime.undeploy.bind(runtime),
  });
}

/** A runtime's system info: live getters over its state. */
function systemInfoOf(runtime: Runtime): SystemInfo {
  return Object.freeze({
    version: runtime.version,
    startedAt: runtime.startedAt,
    get state() {
      return runtime.state;
    },
    get hasStorage() {
      return runtime.hasStorage;
    },
    get jobRunner() {
      return runtime.jobRunner;
    },
    logs: runtime.logs,
    get httpServer() {
      return runtime.http.server;
    },
  });
}
