import { CoreErrors } from '../errors.js';
import type { RuntimeHooks } from '../hooks/hooks.js';
import type { NodeRegistry } from '../nodes/registry.js';
import type { ConfigStore } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import type { ServiceToken, Services } from '../runtime/services.js';
import type { Storage } from '../storage/storage.js';
import type { PluginConfigSchemas, PluginContext, WiflowPlugin } from './define-plugin.js';

/** The parts of a runtime a plugin context hands out, narrowed. */
export interface PluginHostParts {
  hooks: RuntimeHooks;
  services: Services;
  registry: NodeRegistry;
  config: ConfigStore;
  logger: Logger;
  dataDir: string;
  /** The resolved storage, or undefined before start / without a storage plugin. */
  storage(): Storage | undefined;
}

/** A plugin's context and the way to undo everything it registered. */
export interface PluginLedger {
  context: PluginContext;
  /** Node types the plugin registered (for its report). */
  nodeTypes: string[];
  /** Declare the plugin's config sections (throws WIFLOW_CONFIG_INVALID when a configured value is invalid). */
  declareConfig(): void;
  /** Undo every registration; the context refuses new ones afterwards. */
  rollback(): void;
}

type AnyHook = RuntimeHooks[keyof RuntimeHooks];
type TapMethod = 'tap' | 'tapAsync' | 'tapPromise';
const TAP_METHODS = new Set<string | symbol>(['tap', 'tapAsync', 'tapPromise']);

/** Where the old `ctx.runtime` went, for plugins written against plugin API 1. */
const RUNTIME_REMOVED =
  'ctx.runtime was removed in plugin API 2: use ctx.config (declare `config` in definePlugin), ctx.storage, ctx.services (host plugins: Tokens.Flows, Tokens.System, Tokens.Config), ctx.registerRoutes, ctx.registerCommand, ctx.hooks (see docs/plugins.md, "Migrating")';

/**
 * Build the context one plugin's setup receives. Every tap, service, node type, config
 * section, route and command it registers is recorded, so `rollback` leaves nothing behind.
 */
export function createPluginContext(parts: PluginHostParts, plugin: WiflowPlugin): PluginLedger {
  const name = plugin.name;
  const nodeTypes: string[] = [];
  const taps: { hook: AnyHook; fn: unknown }[] = [];
  const interceptors: { hook: AnyHook; interceptor: unknown }[] = [];
  const services: ServiceToken<unknown>[] = [];
  const sections: { name: string; previous: ReturnType<ConfigStore['schemaOf']> }[] = [];
  let closed = false;
  const open = (what: string) => {
    if (closed) throw CoreErrors.pluginLoadFailed(name, `cannot register ${what}: its setup failed and was rolled back`);
  };

  type Tapper = Record<TapMethod, (options: unknown, fn: unknown) => void>;
  /** The tap methods of `tapper` (a hook, or what its `withOptions` returns), each recording its tap on `hook`. */
  const trackedTap = (hook: AnyHook, tapper: Tapper, method: TapMethod) => (options: unknown, fn: unknown) => {
    open(`a ${method} on a hook`);
    tapper[method](options, fn);
    taps.push({ hook, fn });
  };
  const trackedHook = (hook: AnyHook): AnyHook =>
    new Proxy(hook, {
      get(target, property) {
        if (TAP_METHODS.has(property)) return trackedTap(target, target as unknown as Tapper, property as TapMethod);
        if (property === 'withOptions') {
          return (options: unknown) => {
            const inner = (target.withOptions as (o: unknown) => Tapper)(options);
            return { ...inner, tap: trackedTap(target, inner, 'tap'), tapAsync: trackedTap(target, inner, 'tapAsync'), tapPromise: trackedTap(target, inner, 'tapPromise') };
          };
        }
        if (property === 'intercept') {
          return (interceptor: unknown) => {
            open('a hook interceptor');
            (target.intercept as (i: unknown) => void)(interceptor);
            interceptors.push({ hook: target, interceptor: target.interceptors[target.interceptors.length - 1] });
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  const hooks = Object.freeze(Object.fromEntries(Object.entries(parts.hooks).map(([key, hook]) => [key, trackedHook(hook)]))) as unknown as RuntimeHooks;

  const config = {} as Record<string, unknown>;
  for (const section of Object.keys(plugin.config ?? {})) Object.defineProperty(config, section, { enumerable: true, get: () => parts.config.get(section) });

  const context: PluginContext = {
    name,
    config: Object.freeze(config),
    hooks,
    services: {
      provide: (token, factory) => {
        open(`service ${token.name}`);
        parts.services.provide(token, factory, name);
        services.push(token);
      },
      get: (token) => parts.services.get(token),
      has: (token) => parts.services.has(token),
    },
    get storage(): Storage {
      const storage = parts.storage();
      if (!storage) throw CoreErrors.storageMissing();
      return storage;
    },
    get hasStorage() {
      return parts.storage() !== undefined;
    },
    dataDir: parts.dataDir,
    logger: parts.logger.child(name),
    registerNode: (definition) => {
      open(`node type ${definition.type}`);
      parts.registry.register(definition, name);
      nodeTypes.push(definition.type);
    },
    registerRoutes: (register) => hooks.http.tapPromise(name, async (http) => register(http)),
    registerCommand: (register) => hooks.cli.tap(name, register),
  };
  Object.defineProperty(context, 'runtime', {
    enumerable: false,
    get() {
      throw CoreErrors.pluginLoadFailed(name, RUNTIME_REMOVED);
    },
  });

  const rollback = () => {
    closed = true;
    for (const { hook, fn } of taps) {
      const index = hook.taps.findIndex((t) => t.fn === fn);
      if (index >= 0) hook.taps.splice(index, 1);
      resetCompilation(hook);
    }
    for (const { hook, interceptor } of interceptors) {
      const index = hook.interceptors.indexOf(interceptor as never);
      if (index >= 0) hook.interceptors.splice(index, 1);
      resetCompilation(hook);
    }
    for (const token of services) parts.services.withdraw(token, name);
    for (const type of nodeTypes) parts.registry.unregister(type);
    nodeTypes.length = 0;
    for (const section of sections.reverse()) parts.config.restoreSection(section.name, section.previous);
    taps.length = interceptors.length = services.length = sections.length = 0;
  };
  const declareConfig = () => {
    for (const [section, schema] of Object.entries(plugin.config ?? {})) {
      sections.push({ name: section, previous: parts.config.schemaOf(section) });
      parts.config.section(section, schema);
    }
  };
  return { context, nodeTypes, declareConfig, rollback };
}

/** Make a hook recompile its call functions from its (changed) taps on the next call. */
function resetCompilation(hook: AnyHook): void {
  (hook as unknown as { _resetCompilation(): void })._resetCompilation();
}
