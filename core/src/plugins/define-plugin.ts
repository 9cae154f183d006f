import type { z } from 'zod';
import type { RuntimeHooks } from '../hooks/hooks.js';
import type { NodeDefinition } from '../nodes/define-node.js';
import type { Logger } from '../runtime/logger.js';
import type { Runtime } from '../runtime/runtime.js';

/** The plugin API version this core provides; a plugin's package.json `wiflow.apiVersion` must have the same major. */
export const PLUGIN_API_VERSION = 1;

/** What a plugin's `setup` receives. */
export interface PluginContext {
  /** The plugin's name (its package name). */
  readonly name: string;
  readonly hooks: RuntimeHooks;
  readonly runtime: Runtime;
  readonly logger: Logger;
  /** Register a node type. */
  registerNode(definition: NodeDefinition): void;
  /** Register a service the runtime and nodes resolve by token (created once, lazily). */
  registerService<T>(token: string | symbol, factory: (runtime: Runtime) => T): void;
  /** Declare a top-level config section with its schema (defaults apply when absent). */
  configSection<S extends z.ZodType>(name: string, schema: S): void;
}

/** A wiflow plugin: its entry module default-exports this. */
export interface WiflowPlugin {
  /** Package name, e.g. '@wiflow/plugin-csi'. */
  name: string;
  /** Other plugins (by name) that must be loaded first. */
  dependencies?: string[];
  /** Register node types, services, hooks. Throwing makes the host skip the plugin. */
  setup(ctx: PluginContext): void | Promise<void>;
}

/** Declare a plugin; the identity function that gives plugin authors full typing. */
export function definePlugin(plugin: WiflowPlugin): WiflowPlugin {
  return plugin;
}
