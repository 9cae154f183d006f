import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A package that declares itself a wiflow plugin. */
export interface DiscoveredPlugin {
  name: string;
  version: string;
  /** Directory of the package (symlinks resolved). */
  directory: string;
  /** Absolute path of the entry module. */
  entry: string;
  apiVersion: string;
}

/** What a plugin package.json carries. */
interface PluginManifest {
  name?: string;
  version?: string;
  keywords?: string[];
  wiflow?: { entry?: string; apiVersion?: number | string };
}

/** Every `node_modules` folder from `start` up to the filesystem root. */
function nodeModulesChain(start: string): string[] {
  const out: string[] = [];
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, 'node_modules');
    if (existsSync(candidate)) out.push(candidate);
    const parent = path.dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

function packageDirs(nodeModules: string): string[] {
  const dirs: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(nodeModules);
  } catch {
    return dirs;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const full = path.join(nodeModules, entry);
    if (entry.startsWith('@')) {
      try {
        for (const inner of readdirSync(full)) dirs.push(path.join(full, inner));
      } catch {
        // an unreadable scope folder holds no plugin we can load
      }
    } else {
      dirs.push(full);
    }
  }
  return dirs;
}

/**
 * Find installed packages whose package.json has the keyword `wiflow-plugin` and a
 * `wiflow` key. Searches the `node_modules` chains above each path; the first package of a
 * name wins (nearest install), as Node's resolution would.
 */
export function discoverPlugins(searchFrom: string[]): DiscoveredPlugin[] {
  const found = new Map<string, DiscoveredPlugin>();
  for (const start of searchFrom) {
    for (const nodeModules of nodeModulesChain(start)) {
      for (const dir of packageDirs(nodeModules)) {
        const manifestPath = path.join(dir, 'package.json');
        let manifest: PluginManifest;
        try {
          manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PluginManifest;
        } catch {
          continue;
        }
        if (!manifest.name || !manifest.wiflow || !manifest.keywords?.includes('wiflow-plugin')) continue;
        if (found.has(manifest.name)) continue;
        let directory: string;
        try {
          directory = realpathSync(dir);
        } catch {
          continue;
        }
        found.set(manifest.name, {
          name: manifest.name,
          version: manifest.version ?? '0.0.0',
          directory,
          entry: path.resolve(directory, manifest.wiflow.entry ?? 'dist/index.js'),
          apiVersion: String(manifest.wiflow.apiVersion ?? ''),
        });
      }
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The major version an apiVersion string asks for ('1', '^1', '1.x', 1), or NaN. */
export function apiMajor(apiVersion: string): number {
  const match = /^[\^~]?(\d+)/.exec(apiVersion.trim());
  return match ? Number(match[1]) : Number.NaN;
}
