/**
 * The storage service every persistent feature reads and writes through. Storage plugins
 * (plugin-sqlite, plugin-mongodb) implement it and resolve it through `hooks.resolveStorage`.
 * The full interface is defined by the storage issue; this is its lifecycle part.
 */
export interface Storage {
  /** Storage kind, e.g. 'sqlite'. */
  readonly kind: string;
  /** Open connections, run migrations. */
  open(): Promise<void>;
  /** Write everything buffered and wait until it is durable. */
  flush(): Promise<void>;
  /** Flush and close. */
  close(): Promise<void>;
  /** Health figures for /health/detailed. */
  health(): Promise<{ status: 'healthy' | 'degraded' | 'unhealthy'; details: Record<string, unknown> }>;
}
