import { z } from 'zod';
import type { ServiceReader } from '../runtime/services.js';
import type { FileAccess } from '../security/file-access.js';
import type { PortSpec } from './ports.js';

/**
 * What a node type may reach beyond its messages. A flow runs only when whoever it runs for
 * holds every capability its nodes declare (the flow service maps user roles to them).
 */
export const NODE_CAPABILITIES = ['fs.read', 'fs.write', 'net.listen', 'net.connect', 'device', 'process'] as const;

/** One node capability: files (read, write), sockets (listen, connect), hardware devices, child processes. */
export type NodeCapability = (typeof NODE_CAPABILITIES)[number];

/** How a node's instance reaches the runtime while it runs. */
export interface NodeContext<C = unknown> {
  /** The node's id in the flow. */
  readonly id: string;
  /** Validated config (defaults applied, secrets included). */
  readonly config: C;
  /** 'stream' for live pipelines, 'job' for request/response runs. */
  readonly mode: 'stream' | 'job';
  /** Aborted when the pipeline or job stops; sources must end their `run()` then. */
  readonly signal: AbortSignal;
  /**
   * Send a value out of an output port. Returns a promise only when a downstream queue with
   * the `block` policy is full; sources must await it, handlers may ignore it (the engine
   * holds the node's next message until the queue has room).
   */
  emit(port: string, value: unknown): void | Promise<void>;
  /**
   * Resolves when no message is queued or being handled anywhere in the pipeline: a source
   * that must acknowledge its input only after downstream work finished (at-least-once
   * delivery) emits a batch, awaits `idle()`, then acknowledges.
   */
  idle(): Promise<void>;
  /** Report job progress (0..1) with a message; ignored in stream mode. */
  progress(fraction: number, message?: string): void;
  /** Append an event to the job's event log (ignored in stream mode). */
  log(event: { event: string; data?: unknown }): void;
  /** Job mode: set a named job output ('last' keeps the latest value, 'all' collects a list). */
  setOutput(name: string, value: unknown, collect: 'last' | 'all'): void;
  /** Runtime services by typed token (`ctx.services.get(Tokens.Config)`). */
  readonly services: ServiceReader;
  /** Inputs of the job (job mode only), by io.input name. */
  readonly jobInputs: Readonly<Record<string, unknown>>;
  /** Where this run may open files: nodes with `fs.*` capabilities resolve every path through it. */
  readonly files: FileAccess;
}

/** A running node. */
export interface NodeInstance {
  /** Handle one value arriving on an input port. Throwing fails this message (or the job). */
  receive?(port: string, value: unknown): void | Promise<void>;
  /** Sources: produce values until done or until `ctx.signal` aborts. Resolving means no more output. */
  run?(): Promise<void>;
  /** Called once all upstream nodes are done: emit anything buffered (a partial window, a summary). */
  flush?(): void | Promise<void>;
  /** Release resources; called once when the pipeline or job ends. */
  close?(): void | Promise<void>;
  /** Live figures the node wants shown beside its counters (rates, loss...). */
  stats?(): Record<string, number | string | null>;
  /**
   * Structured live detail for a tool that knows this node type (the studio's Installer page reads
   * `sense.link`'s links): JSON-serialisable, read on request, never pushed with the counters.
   */
  details?(): unknown;
}

/** A node type: what it is, its ports, its config, and how to create an instance. */
export interface NodeDefinition<S extends z.ZodType = z.ZodType> {
  /** Unique type id, `<plugin>.<name>`, e.g. 'csi.replay'. */
  type: string;
  /** Human title for the palette. */
  title: string;
  /** Palette group: 'sources', 'signal', 'models', 'tracking', 'analytics', 'transports', 'io', 'storage'... */
  category: string;
  description: string;
  /** Named input ports. */
  inputs: Record<string, PortSpec>;
  /** Named output ports. */
  outputs: Record<string, PortSpec>;
  /** Config schema; its JSON Schema drives forms, validation and MCP tool schemas. */
  config: S;
  /** Names of top-level config fields that are secrets: write-only, never returned or exported. */
  secrets?: readonly string[];
  /** What the node reaches beyond its messages (files, sockets, devices, processes); none when left out. */
  capabilities?: readonly NodeCapability[];
  /** Whether the node produces values without inputs (its instance has `run`). */
  source?: boolean;
  /** Create an instance for one pipeline or job run. */
  create(ctx: NodeContext<z.output<S>>): NodeInstance | Promise<NodeInstance>;
}

/** Declare a node type; the identity function that gives plugin authors full typing. */
export function defineNode<S extends z.ZodType>(definition: NodeDefinition<S>): NodeDefinition<S> {
  return definition;
}

/** JSON Schema (draft 2020-12) of a node's config, with secret fields marked write-only. */
export function nodeConfigJsonSchema(definition: NodeDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(definition.config, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const name of definition.secrets ?? []) {
    if (properties?.[name]) properties[name] = { ...properties[name], writeOnly: true, format: 'password' };
  }
  return schema;
}

/** The placeholder that stands for a stored secret in anything returned or exported. */
export const SECRET_MASK = '********';

/** A copy of a config with secret fields removed (for export) or masked (for display). */
export function redactSecrets(definition: NodeDefinition | undefined, config: Record<string, unknown>, how: 'remove' | 'mask' = 'mask'): Record<string, unknown> {
  if (!definition?.secrets?.length) return { ...config };
  const copy = { ...config };
  for (const name of definition.secrets) {
    if (!(name in copy)) continue;
    if (how === 'remove' || copy[name] === undefined || copy[name] === null || copy[name] === '') delete copy[name];
    else copy[name] = SECRET_MASK;
  }
  return copy;
}

/** Apply an update to a config: secret fields sent as the mask (or left out) keep their stored value. */
export function mergeSecrets(definition: NodeDefinition | undefined, update: Record<string, unknown>, stored: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!definition?.secrets?.length || !stored) return update;
  const merged = { ...update };
  for (const name of definition.secrets) {
    if ((merged[name] === undefined || merged[name] === SECRET_MASK) && stored[name] !== undefined) merged[name] = stored[name];
  }
  return merged;
}
