import {
  AsyncParallelHook,
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
} from 'tapable';
import type { Command } from 'commander';
import type { IncomingMessage } from 'node:http';
import type { CompiledFlow } from '../flows/compiler.js';
import type { HttpRegistrar } from '../http/http-host.js';
import type { PluginReport } from '../plugins/plugin-host.js';
import type { StorageHost, SystemInfo } from '../runtime/capabilities.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Storage } from '../storage/storage.js';

/** One message delivered along an edge (for tracing and metrics plugins). */
export interface MessageTrace {
  runId: string;
  edgeId: string;
  from: string;
  fromPort: string;
  to: string;
  toPort: string;
  value: unknown;
  /** performance.now() at enqueue. */
  time: number;
}

/** A node's handler threw. */
export interface NodeErrorEvent {
  runId: string;
  nodeId: string;
  nodeType: string;
  error: unknown;
  value: unknown;
}

/** What a storage plugin is asked to resolve. */
export interface StorageRequest {
  /** The configured storage kind, e.g. 'sqlite' or 'mongodb'. */
  kind: string;
  dataDir: string;
  /** Configuration, services, node types and logger to build the storage with. */
  host: StorageHost;
}

/** Credentials found on a request or a WebSocket upgrade. */
export interface AuthRequest {
  /** Bearer token from the Authorization header or a query parameter. */
  bearer?: string;
  /** X-API-Key header value. */
  apiKey?: string;
  /** The raw request, for schemes that need more. */
  request: IncomingMessage;
}

/** Who is calling. */
export interface Principal {
  userId: string;
  username: string;
  roles: string[];
  /** How the principal authenticated: 'jwt', 'apikey', 'local'... */
  via: string;
}

/** What CLI command registrations get. */
export interface CliContext {
  /** Build (or reuse) a runtime with plugins loaded, for commands that need one. */
  runtime(): Promise<Runtime>;
  /** Write a line to stdout. */
  print(line: string): void;
}

/**
 * The runtime's hooks: declared once, frozen. Plugins tap, core calls. Each hook's kind
 * follows its meaning: Series for ordered side effects, Waterfall for a transform, Bail for
 * the first answer, Sync for cheap observation.
 */
export function createRuntimeHooks() {
  return Object.freeze({
    /** After every plugin's setup ran; receives the load report of each discovered plugin. */
    pluginsLoaded: new AsyncSeriesHook<[PluginReport[]]>(['reports']),
    /** The runtime is starting: open resources (storage, brokers), in plugin order. */
    start: new AsyncSeriesHook<[SystemInfo]>(['system']),
    /** The runtime is started and its HTTP server listens; start pipelines here. */
    ready: new AsyncParallelHook<[SystemInfo]>(['system']),
    /** The runtime is stopping: stop sources and drain before storage closes. */
    beforeStop: new AsyncSeriesHook<[SystemInfo]>(['system']),
    /** The runtime is stopping: flush and close resources (storage last). */
    stop: new AsyncSeriesHook<[SystemInfo]>(['system']),
    /** Transform a compiled flow before it runs (instrument, rewrite, add nodes). */
    compileFlow: new AsyncSeriesWaterfallHook<[CompiledFlow]>(['compiled']),
    /** Every message delivered between two nodes; called only when tapped. */
    message: new SyncHook<[MessageTrace]>(['trace']),
    /** A node threw while handling a message or running. */
    nodeError: new SyncHook<[NodeErrorEvent]>(['event']),
    /** Register HTTP routes and WebSocket handlers on the one server. */
    http: new AsyncSeriesHook<[HttpRegistrar]>(['http']),
    /** Register CLI commands on the `wiflow` program. */
    cli: new SyncHook<[Command, CliContext]>(['program', 'context']),
    /** Resolve the storage service: the first plugin that returns one wins. */
    resolveStorage: new AsyncSeriesBailHook<[StorageRequest], Storage | undefined>(['request']),
    /** Authenticate credentials: the first plugin that returns a principal wins. */
    authenticate: new AsyncSeriesBailHook<[AuthRequest], Principal | undefined>(['request']),
  });
}

/** The runtime's frozen hooks object. */
export type RuntimeHooks = ReturnType<typeof createRuntimeHooks>;
