import type { LogBuffer } from './log-buffer.js';

/** Log levels, most to least verbose. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A structured logger: one JSON line per entry on stderr. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `component` to every entry. */
  child(component: string): Logger;
}

/** Field names whose values are never written to a log. */
const SECRET_FIELDS = /pass(word)?|secret|token|api[_-]?key|authorization/i;

/** A password written in a URL's user info (`scheme://user:password@host`, also a URL mistyped without its scheme's colon), wherever it sits in a string. */
const URL_PASSWORD = /(^|\/\/|\s)([^\s/@:]*):[^\s/@]*@/g;

/** A string as it may be written or shown: a password in any URL it holds replaced by `***`. */
export function scrubUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(URL_PASSWORD, '$1$2:***@') : text;
}

function scrubValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) return scrubUrlPasswords(value.message);
  if (typeof value === 'string') return scrubUrlPasswords(value);
  if (typeof value !== 'object' || value === null) return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  // Deep enough for the config objects and request summaries logged; deeper is cut rather than risked.
  if (depth >= 4) return '[nested]';
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.test(k) ? '[redacted]' : scrubValue(v, depth + 1);
  return out;
}

/**
 * Fields as they may be written anywhere: values of secret-named keys (at any depth) replaced by
 * `[redacted]`, and a password in a URL in any string (`mqtt://user:***@host`).
 */
export function scrubLogFields(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return undefined;
  return scrubValue(fields, 0) as Record<string, unknown>;
}

/** Create a logger writing to `write` (stderr by default) at `level` (WIFLOW_LOG_LEVEL or 'info'). */
export function createLogger(options: { level?: LogLevel; component?: string; write?: (line: string) => void } = {}): Logger {
  const level = options.level ?? ((process.env.WIFLOW_LOG_LEVEL as LogLevel | undefined) ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, ...(options.component ? { component: options.component } : {}), message: scrubUrlPasswords(message), ...scrubLogFields(fields) }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (component) => createLogger({ level, write, component: options.component ? `${options.component}.${component}` : component }),
  };
}

/**
 * A logger that also records every entry (fields scrubbed) in `buffer`, the runtime's recent
 * log, then passes it on to `inner`; children keep recording under their component name.
 */
export function recordingLogger(inner: Logger, buffer: LogBuffer, component: string | null = null): Logger {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) => {
    try {
      buffer.record(level, component, scrubUrlPasswords(message), scrubLogFields(fields) ?? null);
    } catch {
      // Keeping a copy must never stop the entry from reaching the real log.
    }
    inner[level](message, fields);
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (name) => recordingLogger(inner.child(name), buffer, component ? `${component}.${name}` : name),
  };
}
