import { EventEmitter } from 'node:events';
import { z } from 'zod';
import { CoreErrors } from '../errors.js';

/** Core's own configuration sections. */
export const CoreConfigSchema = {
  server: z
    .object({
      port: z.number().int().min(0).max(65535).default(8080).describe('HTTP port'),
      host: z.string().default('127.0.0.1').describe('Address to listen on'),
      shutdownTimeoutMs: z.number().int().positive().default(10_000).describe('Longest a graceful shutdown may take'),
      trustProxy: z
        .union([z.boolean(), z.number().int().min(1).max(16), z.string().min(1), z.array(z.string().min(1)).min(1)])
        .default(false)
        .describe(
          'Which proxies may set X-Forwarded-For (Express "trust proxy": true, a hop count, or addresses/subnets such as "loopback" or ["10.0.0.0/8"]); false (default): the client address is the TCP peer, so rate limits key on it',
        ),
      maxJsonDepth: z.number().int().min(2).max(1000).default(64).describe('Deepest nesting of arrays and objects a JSON request body may have (deeper: 400 before parsing)'),
    })
    .prefault({}),
  storage: z
    .object({ kind: z.string().default('sqlite').describe('Storage plugin to resolve: sqlite or mongodb') })
    .passthrough()
    .default({ kind: 'sqlite' }),
  plugins: z
    .object({
      allow: z.array(z.string()).optional().describe('Only these plugins load (package names)'),
      deny: z.array(z.string()).default([]).describe('These plugins never load'),
    })
    .default({ deny: [] }),
  jobs: z
    .object({
      maxConcurrent: z.number().int().positive().default(8),
      maxPerUser: z.number().int().positive().default(4),
      maxPerFlow: z.number().int().positive().default(4),
      timeoutMs: z.number().int().positive().default(300_000),
      keepStored: z.number().int().positive().default(500).describe('Jobs kept in storage, newest first; older ones are deleted as new ones end'),
      checkpointMs: z
        .number()
        .int()
        .min(0)
        .default(1000)
        .describe('While a job runs, its state and new events are stored this often (ms), so a killed process leaves them; 0: only when queued, started and ended'),
      leaseMs: z
        .number()
        .int()
        .min(1000)
        .default(60_000)
        .describe("An unfinished job of another instance on the same database not written for this long (ms) is ended as interrupted; each runtime rewrites its own unfinished jobs every quarter of it"),
    })
    .default({ maxConcurrent: 8, maxPerUser: 4, maxPerFlow: 4, timeoutMs: 300_000, keepStored: 500, checkpointMs: 1000, leaseMs: 60_000 }),
  engine: z
    .object({
      queueCapacity: z.number().int().positive().default(1024).describe('Default per-edge queue capacity'),
      overflow: z.enum(['block', 'drop-oldest']).default('block').describe('Default per-edge overflow policy'),
    })
    .default({ queueCapacity: 1024, overflow: 'block' }),
  logs: z
    .object({
      bufferSize: z.number().int().min(0).max(100_000).default(1000).describe('Recent log entries kept in memory for GET /logs and /logs-stream (0 disables retrieval)'),
      level: z.enum(['debug', 'info', 'warn', 'error']).default('info').describe('Least severe level kept in that memory'),
    })
    .default({ bufferSize: 1000, level: 'info' }),
};

/** Core's own sections, parsed: what `config.get('server')` and the like return. */
export type CoreConfig = { [K in keyof typeof CoreConfigSchema]: z.output<(typeof CoreConfigSchema)[K]> };

/** The name of one of core's own sections. */
export type CoreSectionName = keyof typeof CoreConfigSchema;

/**
 * A config section as one reader sees it: its name and the zod schema that gives the reader
 * its typed value. The package that declares the section exports its own (schema and all);
 * a package reading another's section declares a view with only the keys it reads.
 */
export interface ConfigSection<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly schema: S;
}

/** Name a config section with its schema, for `config.read(section)` (typed by the schema, no cast). */
export function configSection<S extends z.ZodType>(name: string, schema: S): ConfigSection<S> {
  return Object.freeze({ name, schema });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep-merge `patch` into `base` (objects merge, everything else replaces). */
export function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/** Dotted paths of every leaf that differs between two objects. */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((k) => changedPaths(before[k], after[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

/**
 * The runtime's configuration: raw values (file + overrides) validated per section by the
 * schemas that core and plugins declare. One schema validates, fills defaults and produces
 * the JSON Schema (`/config/schema`).
 */
export class ConfigStore extends EventEmitter {
  readonly #sections = new Map<string, z.ZodType>();
  #raw: Record<string, unknown>;
  #cache = new Map<string, unknown>();
  /** Values of sections read through another schema than the declared one (`read`), per section and schema. */
  #views = new Map<string, Map<z.ZodType, unknown>>();

  constructor(raw: Record<string, unknown> = {}) {
    super();
    this.#raw = raw;
    for (const [name, schema] of Object.entries(CoreConfigSchema)) this.section(name, schema);
  }

  /** Declare a section; its current raw value must validate. */
  section(name: string, schema: z.ZodType): void {
    this.#sections.set(name, schema);
    this.#forget(name);
    const parsed = schema.safeParse(this.#raw[name] ?? undefined);
    if (!parsed.success) throw CoreErrors.configInvalid(`${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`);
  }

  /** The schema declared for a section, if any. */
  schemaOf(name: string): z.ZodType | undefined {
    return this.#sections.get(name);
  }

  /** Put back a section's earlier schema, or remove the section when it had none (a failed plugin's rollback). */
  restoreSection(name: string, previous: z.ZodType | undefined): void {
    if (previous) this.#sections.set(name, previous);
    else this.#sections.delete(name);
    this.#forget(name);
  }

  /** The validated value of one of core's sections (defaults applied), typed by core's schema. */
  get<K extends CoreSectionName>(name: K): CoreConfig[K];
  /** The validated value of any section (defaults applied); `read(section)` gives it typed. */
  get(name: string): unknown;
  get(name: string): unknown {
    if (this.#cache.has(name)) return this.#cache.get(name);
    const schema = this.#sections.get(name);
    const value = schema ? schema.parse(this.#raw[name] ?? undefined) : this.#raw[name];
    this.#cache.set(name, value);
    return value;
  }

  /**
   * A section typed by the reader's schema. The declared schema validates and fills defaults
   * first (when the section is declared); the reader's schema then shapes that value, so a
   * view that names a few keys of another package's section gets them typed, and a section
   * nobody declared gets the view's defaults. WIFLOW_CONFIG_INVALID when the view refuses it.
   */
  read<S extends z.ZodType>(section: ConfigSection<S>): z.output<S> {
    const declared = this.get(section.name);
    // The declaring package's own section object: its value is already this schema's output.
    if (this.#sections.get(section.name) === section.schema) return declared as z.output<S>;
    let views = this.#views.get(section.name);
    if (!views) this.#views.set(section.name, (views = new Map()));
    if (views.has(section.schema)) return views.get(section.schema) as z.output<S>;
    const parsed = section.schema.safeParse(declared);
    if (!parsed.success) throw CoreErrors.configInvalid(`${section.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`);
    views.set(section.schema, parsed.data);
    return parsed.data;
  }

  /** Drop cached values (of one section, or all). */
  #forget(name?: string): void {
    if (name === undefined) {
      this.#cache.clear();
      this.#views.clear();
    } else {
      this.#cache.delete(name);
      this.#views.delete(name);
    }
  }

  /** Every declared section, validated. */
  all(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.#sections.keys()) out[name] = this.get(name);
    return out;
  }

  /** The combined schema of every section. */
  schema(): z.ZodObject {
    return z.object(Object.fromEntries(this.#sections)).strict();
  }

  /** JSON Schema of the whole configuration. */
  jsonSchema(): Record<string, unknown> {
    return z.toJSONSchema(this.schema(), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  }

  /**
   * Validate and apply a partial update; returns the dotted paths that changed. Nothing
   * changes when any section is invalid; unknown sections are rejected.
   */
  update(patch: Record<string, unknown>): { changed: string[]; errors: { field: string; message: string; received?: unknown }[] } {
    const errors: { field: string; message: string; received?: unknown }[] = [];
    const next = deepMerge(this.#raw, patch);
    const before = this.all();
    const parsedSections: Record<string, unknown> = {};
    for (const key of Object.keys(patch)) {
      const schema = this.#sections.get(key);
      if (!schema) {
        errors.push({ field: key, message: 'unknown configuration section', received: patch[key] });
        continue;
      }
      const parsed = schema.safeParse(next[key]);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = [key, ...issue.path.map(String)].join('.');
          errors.push({ field, message: issue.message, received: getPath(next, field) });
        }
      } else {
        parsedSections[key] = parsed.data;
      }
    }
    if (errors.length > 0) return { changed: [], errors };
    this.#raw = next;
    this.#forget();
    const changed = changedPaths(before, this.all());
    if (changed.length) this.emit('change', changed);
    return { changed, errors };
  }
}

/** Read a dotted path from an object. */
export function getPath(obj: unknown, dotted: string): unknown {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}
