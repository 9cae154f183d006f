import { Router, type NextFunction, type Request, type Response } from 'express';
import type { LogEntry } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { openLangflowStream, type LangflowStream } from '../http/langflow-stream.js';
import { parseWith } from '../http/validation.js';

/** How long a quiet log stream waits before a `keepalive` line (Langflow: 5 polls of 1 s). */
const KEEPALIVE_MS = 5_000;

/** Entries `GET /logs` answers with when the query names no count (Langflow's default). */
const DEFAULT_LINES = 10;

const LogsQuery = z.object({
  lines_before: z.coerce.number().int().default(0),
  lines_after: z.coerce.number().int().default(0),
  timestamp: z.coerce.number().int().default(0),
});

/** One entry as Langflow's log API shows it: the text, with wiflow's level, component and (scrubbed) fields. */
export function formatLogEntry(entry: LogEntry): string {
  let fields = '';
  if (entry.fields && Object.keys(entry.fields).length) {
    try {
      fields = ` ${JSON.stringify(entry.fields)}`;
    } catch {
      fields = ' [fields not serialisable]';
    }
  }
  return `${entry.level.toUpperCase()} ${entry.component ? `[${entry.component}] ` : ''}${entry.message}${fields}`;
}

/**
 * Entries as Langflow's `{"<epoch ms>": message}` object. Entries of the same millisecond
 * share one key, so their texts are joined by a newline rather than one overwriting the other.
 */
export function toLangflowLogs(entries: LogEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const key = String(entry.timestamp);
    const text = formatLogEntry(entry);
    out[key] = key in out ? `${out[key]}\n${text}` : text;
  }
  return out;
}

/** Which entries `GET /logs` answers with, by Langflow's rules for its query parameters. */
function selectEntries(studio: StudioContext, query: z.output<typeof LogsQuery>): LogEntry[] {
  const logs = studio.system.logs;
  const { lines_before: before, lines_after: after, timestamp } = query;
  if (after > 0 && before > 0) throw StudioErrors.badLogQuery('Cannot request logs before and after the timestamp');
  if (timestamp <= 0) {
    if (after > 0) throw StudioErrors.badLogQuery('Timestamp is required when requesting logs after the timestamp');
    return logs.last(before > 0 ? before : DEFAULT_LINES);
  }
  if (before > 0) return logs.before(timestamp, before);
  if (after > 0) return logs.after(timestamp, after);
  return logs.before(timestamp, DEFAULT_LINES);
}

/**
 * Langflow's log retrieval at the server root, backed by the runtime's recent log
 * (`SystemInfo.logs`, from `Tokens.System`): `GET /logs` (lines_before, lines_after, timestamp) and `GET /logs-stream`.
 * Same credentials as the rest of the flow service; like Langflow (superuser only), the
 * caller must be an admin, since the log is the whole server's, not one user's.
 */
export function logRoutes(studio: StudioContext): { router: Router; closeStreams(): void } {
  const router = Router();
  const streams = new Set<LangflowStream>();
  const auth = requireUser(studio, () => studio.config.autoLogin);
  const admin = (_req: Request, res: Response, next: NextFunction) => {
    if (!principalOf(res).roles.includes('admin')) throw StudioErrors.forbidden('Reading the server log needs the admin role');
    if (!studio.system.logs.enabled) throw StudioErrors.logsDisabled();
    next();
  };

  router.get('/logs', auth, admin, (req, res) => {
    res.json(toLangflowLogs(selectEntries(studio, parseWith(LogsQuery, req.query, 'query'))));
  });

  // Entries logged from now on, one `{"<epoch ms>": message}` object each, as Langflow streams them.
  router.get('/logs-stream', auth, admin, (req, res) => {
    const stream = openLangflowStream(res);
    streams.add(stream);
    let quiet = true;
    const off = studio.system.logs.subscribe((entry) => {
      quiet = false;
      stream.object({ [String(entry.timestamp)]: formatLogEntry(entry) });
    });
    const keepalive = setInterval(() => {
      if (quiet) stream.comment('keepalive');
      quiet = true;
    }, KEEPALIVE_MS);
    keepalive.unref();
    res.on('close', () => {
      off();
      clearInterval(keepalive);
      streams.delete(stream);
    });
  });

  return {
    router,
    closeStreams() {
      for (const stream of streams) stream.close();
    },
  };
}
