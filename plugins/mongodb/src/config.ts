import { z } from 'zod';

/** MongoDB options read from the core `storage` config section (beside `kind`). */
export const MongoStorageConfigSchema = z.object({
  url: z.string().min(1).optional().describe('Connection string; default the MONGODB_URL environment variable'),
  database: z.string().min(1).optional().describe('Database name; default the one in the URL, else "wiflow"'),
  maxPoolSize: z.number().int().min(1).max(1000).default(20),
  minPoolSize: z.number().int().min(0).max(1000).default(0),
  serverSelectionTimeoutMS: z.number().int().min(100).default(10_000),
  flushIntervalMs: z.number().int().min(1).max(60_000).default(100).describe('Longest a buffered record waits before it is written'),
  flushMaxRecords: z.number().int().min(1).max(1_000_000).default(10_000).describe('Buffered records that trigger a write before the interval'),
  retentionIntervalMs: z.number().int().min(1000).default(3_600_000),
});

/** Parsed MongoDB storage options. */
export type MongoStorageConfig = z.output<typeof MongoStorageConfigSchema>;

/** The URL with any password replaced by '***' (for health details and logs). */
export function redactUrl(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)([^:@/]+):([^@/]*)@/, '$1$2:***@');
}

/** The database name in a connection string's path, if any. */
export function databaseFromUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

/** Resolve URL and database from config and environment; throws a clear error when there is no URL. */
export function resolveConnection(section: unknown, env: NodeJS.ProcessEnv = process.env): MongoStorageConfig & { url: string; database: string } {
  const config = MongoStorageConfigSchema.parse(section ?? {});
  const url = config.url ?? env.MONGODB_URL;
  if (!url) throw new Error('storage kind mongodb needs a connection string: set storage.url in the config or MONGODB_URL in the environment');
  if (!/^mongodb(\+srv)?:\/\//.test(url)) throw new Error(`storage.url must start with mongodb:// or mongodb+srv://, got ${redactUrl(url)}`);
  return { ...config, url, database: config.database ?? databaseFromUrl(url) ?? 'wiflow' };
}
