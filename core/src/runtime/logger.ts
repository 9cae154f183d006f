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

function scrub(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_FIELDS.test(k) ? '[redacted]' : v;
  return out;
}

/** Create a logger writing to `write` (stderr by default) at `level` (WIFLOW_LOG_LEVEL or 'info'). */
export function createLogger(options: { level?: LogLevel; component?: string; write?: (line: string) => void } = {}): Logger {
  const level = options.level ?? ((process.env.WIFLOW_LOG_LEVEL as LogLevel | undefined) ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, ...(options.component ? { component: options.component } : {}), message, ...scrub(fields) }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (component) => createLogger({ level, write, component: options.component ? `${options.component}.${component}` : component }),
  };
}
