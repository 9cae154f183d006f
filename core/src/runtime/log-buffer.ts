import type { LogLevel } from './logger.js';

/** A level an entry can have (`silent` is only a threshold). */
export type LogEntryLevel = Exclude<LogLevel, 'silent'>;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One log entry as kept in memory: fields already scrubbed of secrets. */
export interface LogEntry {
  /** Increases by one per recorded entry, so readers can tell entries of the same millisecond apart. */
  seq: number;
  /** Epoch milliseconds. */
  timestamp: number;
  level: LogEntryLevel;
  component: string | null;
  message: string;
  fields: Record<string, unknown> | null;
}

/**
 * The runtime's recent log: a bounded ring of entries fed by the core logger, for the log
 * retrieval API. A capacity of 0 keeps nothing (retrieval disabled). Readers may subscribe
 * to new entries instead of polling.
 */
export class LogBuffer {
  #items: (LogEntry | undefined)[] = [];
  #start = 0;
  #size = 0;
  #seq = 0;
  #capacity = 0;
  #level: LogLevel;
  readonly #listeners = new Set<(entry: LogEntry) => void>();

  constructor(capacity: number, level: LogLevel = 'info') {
    this.#level = level;
    this.configure({ capacity });
  }

  /** How many entries are kept at most (0: retrieval disabled). */
  get capacity(): number {
    return this.#capacity;
  }

  /** Whether entries are kept at all. */
  get enabled(): boolean {
    return this.#capacity > 0;
  }

  /** The least severe level recorded. */
  get level(): LogLevel {
    return this.#level;
  }

  /** Entries held now. */
  get size(): number {
    return this.#size;
  }

  /** Change capacity (oldest entries go first when shrinking) or the recorded level. */
  configure(options: { capacity?: number; level?: LogLevel }): void {
    if (options.level) this.#level = options.level;
    if (options.capacity === undefined || options.capacity === this.#capacity) return;
    const capacity = Math.max(0, Math.floor(options.capacity));
    const kept = capacity > 0 ? this.entries().slice(-capacity) : [];
    this.#capacity = capacity;
    this.#items = new Array<LogEntry | undefined>(capacity);
    this.#start = 0;
    this.#size = 0;
    for (const entry of kept) this.#push(entry);
  }

  /** Record an entry (ignored below the level or when disabled); returns it, or null when not kept. */
  record(level: LogEntryLevel, component: string | null, message: string, fields: Record<string, unknown> | null): LogEntry | null {
    if (this.#capacity === 0 || ORDER[level] < ORDER[this.#level]) return null;
    const entry: LogEntry = { seq: ++this.#seq, timestamp: Date.now(), level, component, message, fields };
    this.#push(entry);
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch {
        // A reader that throws must not break logging for everyone else.
      }
    }
    return entry;
  }

  /** Every entry held, oldest first. */
  entries(): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = 0; i < this.#size; i++) out.push(this.#items[(this.#start + i) % this.#capacity]!);
    return out;
  }

  /** The newest `n` entries, oldest first. */
  last(n: number): LogEntry[] {
    if (n <= 0) return [];
    return this.entries().slice(-n);
  }

  /** Up to `n` entries logged before the first entry at or after `timestamp`; the newest `n` when none is that late. */
  before(timestamp: number, n: number): LogEntry[] {
    const all = this.entries();
    const index = all.findIndex((e) => e.timestamp >= timestamp);
    if (index < 0) return this.last(n);
    return all.slice(Math.max(0, index - n), index);
  }

  /** The first `n` entries at or after `timestamp`. */
  after(timestamp: number, n: number): LogEntry[] {
    return this.entries()
      .filter((e) => e.timestamp >= timestamp)
      .slice(0, Math.max(0, n));
  }

  /** Call `listener` for every entry recorded from now on; returns the unsubscribe function. */
  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #push(entry: LogEntry): void {
    if (this.#size < this.#capacity) {
      this.#items[(this.#start + this.#size) % this.#capacity] = entry;
      this.#size++;
    } else {
      this.#items[this.#start] = entry;
      this.#start = (this.#start + 1) % this.#capacity;
    }
  }
}
