import { pathToFileURL } from 'node:url';
import { CoreErrors, errorMessage } from '../errors.js';
import { PLUGIN_API_VERSION, type WiflowPlugin } from './define-plugin.js';
import { apiMajor, discoverPlugins, type DiscoveredPlugin } from './discovery.js';
import { createPluginContext, type PluginHostParts } from './plugin-context.js';

/** What happened to one plugin. */
export interface PluginReport {
  name: string;
  version: string;
  /** 'builtin' for core's own, else the package directory. */
  location: string;
  status: 'loaded' | 'denied' | 'failed';
  /** Why it was denied or failed. */
  reason: string | null;
  nodeTypes: string[];
}

/** Which plugins the runtime config lets in. */
export interface PluginFilter {
  allow?: string[];
  deny?: string[];
}

/**
 * Loads plugins: discovered packages, then explicit ones. Each setup gets its own context;
 * a setup that throws is rolled back (taps, services, routes, commands, node types, config
 * sections), reported and skipped.
 */
export class PluginHost {
  readonly reports: PluginReport[] = [];

  constructor(private readonly parts: PluginHostParts) {}

  /** Discover installed plugins, import and set up each allowed one. Never throws for one plugin. */
  async loadDiscovered(searchFrom: string[], filter: PluginFilter): Promise<void> {
    const discovered = discoverPlugins(searchFrom);
    const modules: { meta: DiscoveredPlugin; plugin: WiflowPlugin }[] = [];
    for (const meta of discovered) {
      const denied = this.#denied(meta.name, filter);
      if (denied) {
        this.reports.push({ name: meta.name, version: meta.version, location: meta.directory, status: 'denied', reason: denied, nodeTypes: [] });
        continue;
      }
      const major = apiMajor(meta.apiVersion);
      if (major !== PLUGIN_API_VERSION) {
        const error = major < PLUGIN_API_VERSION ? CoreErrors.pluginApiOutdated(meta.name, meta.apiVersion, String(PLUGIN_API_VERSION)) : CoreErrors.pluginIncompatible(meta.name, meta.apiVersion || '(none)', String(PLUGIN_API_VERSION));
        this.#failed(meta, error.message);
        continue;
      }
      try {
        const mod = (await import(pathToFileURL(meta.entry).href)) as { default?: WiflowPlugin };
        const plugin = mod.default;
        if (!plugin || typeof plugin.setup !== 'function') throw CoreErrors.pluginInvalid(meta.name, 'its entry has no default export with a setup function');
        modules.push({ meta, plugin });
      } catch (error) {
        this.#failed(meta, CoreErrors.pluginLoadFailed(meta.name, errorMessage(error)).message);
      }
    }
    for (const { meta, plugin } of this.#order(modules)) {
      await this.setup(plugin, meta.version, meta.directory);
    }
  }

  /** Set up one plugin object; failures are reported, the runtime lives on. */
  async setup(plugin: WiflowPlugin, version: string, location: string): Promise<PluginReport> {
    const ledger = createPluginContext(this.parts, plugin);
    const report: PluginReport = { name: plugin.name, version, location, status: 'loaded', reason: null, nodeTypes: ledger.nodeTypes };
    const missing = (plugin.dependencies ?? []).filter((d) => !this.reports.some((r) => r.name === d && r.status === 'loaded'));
    if (missing.length > 0) {
      report.status = 'failed';
      report.reason = `missing dependencies: ${missing.join(', ')}`;
    } else {
      try {
        ledger.declareConfig();
        await plugin.setup(ledger.context);
      } catch (error) {
        report.status = 'failed';
        report.reason = CoreErrors.pluginLoadFailed(plugin.name, errorMessage(error)).message;
        ledger.rollback();
      }
    }
    if (report.status === 'failed') this.parts.logger.warn(`plugin skipped: ${report.reason}`, { plugin: plugin.name });
    this.reports.push(report);
    return report;
  }

  #denied(name: string, filter: PluginFilter): string | null {
    if (filter.deny?.includes(name)) return 'denied by config plugins.deny';
    if (filter.allow && filter.allow.length > 0 && !filter.allow.includes(name)) return 'not in config plugins.allow';
    return null;
  }

  #failed(meta: DiscoveredPlugin, reason: string): void {
    this.parts.logger.warn(`plugin skipped: ${reason}`, { plugin: meta.name });
    this.reports.push({ name: meta.name, version: meta.version, location: meta.directory, status: 'failed', reason, nodeTypes: [] });
  }

  /** Dependencies first; otherwise alphabetical. */
  #order<T extends { plugin: WiflowPlugin }>(items: T[]): T[] {
    const byName = new Map(items.map((i) => [i.plugin.name, i]));
    const out: T[] = [];
    const seen = new Set<string>();
    const visit = (item: T, stack: Set<string>) => {
      if (seen.has(item.plugin.name) || stack.has(item.plugin.name)) return;
      stack.add(item.plugin.name);
      for (const dep of item.plugin.dependencies ?? []) {
        const d = byName.get(dep);
        if (d) visit(d, stack);
      }
      seen.add(item.plugin.name);
      out.push(item);
    };
    for (const item of items) visit(item, new Set());
    return out;
  }
}
