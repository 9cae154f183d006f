import type { Command } from 'commander';
import type { z } from 'zod';
import type { CliContext, RuntimeHooks } from '../hooks/hooks.js';
import type { HttpRegistrar } from '../http/http-host.js';
import type { NodeDefinition } from '../nodes/define-node.js';
import type { Logger } from '../runtime/logger.js';
import type { ServiceReader, ServiceToken } from '../runtime/services.js';
import type { Storage } from '../storage/storage.js';

/**
 * The plugin API version this core provides; a plugin's package.json `wiflow.apiVersion` must
 * have the same major. 2: `setup(ctx)` gets capabilities (typed `ctx.config`, `ctx.storage`,
 * `ctx.services`, `ctx.registerRoutes`, `ctx.registerCommand`) instead of `ctx.runtime`, and a
 * failing setup is rolled back. 3: the runtime is reachable from no plugin: `Tokens.Runtime`,
 * `http.runtime` and `resolveStorage`'s `request.runtime` are gone; host plugins use
 * `Tokens.Flows`, `Tokens.System` and `Tokens.Config`, lifecycle hooks pass `SystemInfo`
 * (docs/plugins.md, "Migrating").
 */
export const PLUGIN_API_VERSION = 3;

/** The config sections a plugin declares: section name → zod schema (defaults apply when absent). */
export type PluginConfigSchemas = Record<string, z.ZodType>;

/** The parsed, typed values of a plugin's declared sections (read on each access, so updates show). */
export type PluginConfig<C extends PluginConfigSchemas> = { readonly [K in keyof C]: z.output<C[K]> };

/** Services a plugin provides and reaches, by typed token. */
export interface PluginServices extends ServiceReader {
  /** Provide a service (created once, on first `get`); withdrawn when the plugin's setup fails. */
  provide<T>(token: ServiceToken<T>, factory: () => T): void;
}

/**
 * What a plugin's `setup` receives: narrow capabilities, each registration recorded so a
 * setup that throws is undone (hook taps, services, routes, CLI commands, node types,
 * config sections).
 */
export interface PluginContext<C extends PluginConfigSchemas = PluginConfigSchemas> {
  /** The plugin's name (its package name). */
  readonly name: string;
  /** The plugin's declared config sections, parsed (defaults applied) and typed. */
  readonly config: PluginConfig<C>;
  /** The runtime's hooks; every tap made through them belongs to this plugin (removed when its setup fails). */
  readonly hooks: RuntimeHooks;
  /** Services by typed token: provide yours, reach others'. */
  readonly services: PluginServices;
  /** The storage service; throws WIFLOW_STORAGE_MISSING before start or when no storage plugin resolved one. */
  readonly storage: Storage;
  /** Whether a storage service is resolved (after start). */
  readonly hasStorage: boolean;
  /** The runtime's data directory (storage files, keys, uploads live here). */
  readonly dataDir: string;
  /** The plugin's logger (entries carry the plugin name). */
  readonly logger: Logger;
  /** Register a node type. */
  registerNode(definition: NodeDefinition): void;
  /** Register HTTP routes and WebSocket handlers on the one server (run when the server is built). */
  registerRoutes(register: (http: HttpRegistrar) => void | Promise<void>): void;
  /** Register `wiflow` CLI commands. */
  registerCommand(register: (program: Command, cli: CliContext) => void): void;
}

/** A wiflow plugin: its entry module default-exports this. */
export interface WiflowPlugin<C extends PluginConfigSchemas = PluginConfigSchemas> {
  /** Package name, e.g. '@wiflow/plugin-csi'. */
  name: string;
  /** Other plugins (by name) that must be loaded first. */
  dependencies?: string[];
  /** Top-level config sections this plugin owns, by name; `ctx.config.<name>` is the parsed value. */
  config?: C;
  /** Register node types, services, routes, commands, hook taps. Throwing makes the host undo them and skip the plugin. */
  setup(ctx: PluginContext<C>): void | Promise<void>;
}

/** Declare a plugin; the identity function that gives plugin authors full typing (`ctx.config` from `config`). */
export function definePlugin<C extends PluginConfigSchemas = Record<never, never>>(plugin: WiflowPlugin<C>): WiflowPlugin<C> {
  return plugin;
}
