/** How much of a received value an error may echo back. */
export interface EchoBounds {
  /** Levels of arrays and objects kept (deeper ones become a short description). */
  maxDepth: number;
  /** Characters of a string kept. */
  maxStringLength: number;
  /** Items of an array and keys of an object kept. */
  maxEntries: number;
}

/** Bounds for echoed values in API errors: enough to recognise the value, never the whole of a hostile one. */
export const DEFAULT_ECHO_BOUNDS: EchoBounds = { maxDepth: 3, maxStringLength: 200, maxEntries: 10 };

/**
 * A copy of a received value small enough to echo in an error (e.g. `received_value`):
 * long strings, long arrays, wide or deep objects are cut and say so ("… truncated"). The
 * walk stops at `maxDepth`, so a value of any shape costs a bounded amount of work and bytes.
 */
export function boundedEcho(value: unknown, bounds: EchoBounds = DEFAULT_ECHO_BOUNDS, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length <= bounds.maxStringLength ? value : `${value.slice(0, bounds.maxStringLength)}… (${value.length - bounds.maxStringLength} more characters truncated)`;
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value !== 'object' || value === null) return typeof value === 'function' || typeof value === 'symbol' ? String(value) : value;
  if (Array.isArray(value)) {
    if (depth >= bounds.maxDepth) return `[array of ${value.length} items truncated]`;
    const kept = value.slice(0, bounds.maxEntries).map((item) => boundedEcho(item, bounds, depth + 1));
    if (value.length > bounds.maxEntries) kept.push(`… ${value.length - bounds.maxEntries} more items truncated`);
    return kept;
  }
  const keys = Object.keys(value);
  if (depth >= bounds.maxDepth) return `[object with ${keys.length} keys truncated]`;
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, bounds.maxEntries)) out[boundedEcho(key, bounds, bounds.maxDepth) as string] = boundedEcho((value as Record<string, unknown>)[key], bounds, depth + 1);
  if (keys.length > bounds.maxEntries) out['…'] = `${keys.length - bounds.maxEntries} more keys truncated`;
  return out;
}
