// The writer thread: owns a second connection to the database file and runs each posted batch
// in one transaction, so the thread that appends (a pipeline) only encodes and posts. On two
// cores the encoding of one batch and the SQLite work of the previous one run in parallel.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import BetterSqlite3, { type Statement } from 'better-sqlite3';
import { STATEMENT_WIDTHS, WRITE_STATEMENTS, type WriteBatch } from './write-statements.js';

/** What the worker is started with. */
export interface WriterData {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
}

/** Messages to the worker. */
export type ToWriter = { type: 'write'; id: number; batch: WriteBatch } | { type: 'close' };

/** Messages from the worker. */
export type FromWriter = { type: 'ready' } | { type: 'written'; id: number; ms: number } | { type: 'failed'; id: number; message: string } | { type: 'open-failed'; message: string } | { type: 'closed' };

const port = parentPort!;
const { file, synchronous } = workerData as WriterData;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let db: BetterSqlite3.Database;
let statements: (Statement | null)[];
try {
  db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  // Prepared on first use: a statement over a table that is gone fails that batch, not the thread.
  statements = WRITE_STATEMENTS.map(() => null);
  port.postMessage({ type: 'ready' } satisfies FromWriter);
} catch (error) {
  port.postMessage({ type: 'open-failed', message: message(error) } satisfies FromWriter);
  process.exit(0);
}

function statement(index: number): Statement {
  let s = statements[index];
  if (!s) {
    s = db.prepare(WRITE_STATEMENTS[index]!);
    statements[index] = s;
  }
  return s;
}

/**
 * One binder per statement width: `s.run(p[at], p[at + 1], …)` with the arguments spelled out,
 * so running a row allocates nothing (a slice per row was a tenth of this thread's time in
 * garbage collection at 50k rows a second).
 */
type Binder = (s: Statement, p: unknown[], at: number) => unknown;
// Generated from the statement widths only (no outside input).
const binders: Binder[] = STATEMENT_WIDTHS.map((width) => new Function('s', 'p', 'at', `return s.run(${Array.from({ length: width }, (_, i) => `p[at + ${i}]`).join(', ')});`) as Binder);

const writeBatch = (batch: WriteBatch): void => {
  for (let index = 0; index < batch.length; index++) {
    const params = batch[index]!;
    if (params.length === 0) continue;
    const width = STATEMENT_WIDTHS[index]!;
    const s = statement(index);
    const bind = binders[index]!;
    for (let at = 0; at < params.length; at += width) bind(s, params, at);
  }
};

function close(): void {
  db.close();
  port.postMessage({ type: 'closed' } satisfies FromWriter);
  port.close();
}

/**
 * Group commit: batches that queued up while the previous transaction ran are committed
 * together in one transaction (one fsync), so a writer that falls behind catches up with
 * fewer, larger commits instead of falling further behind.
 */
port.on('message', (first: ToWriter) => {
  const writes: Extract<ToWriter, { type: 'write' }>[] = [];
  let closing = false;
  for (let msg: ToWriter | undefined = first; msg; msg = (receiveMessageOnPort(port)?.message as ToWriter | undefined)) {
    if (msg.type === 'close') closing = true;
    else writes.push(msg);
  }
  if (writes.length > 0) {
    const started = performance.now();
    try {
      db.transaction(() => {
        for (const w of writes) writeBatch(w.batch);
      })();
      const ms = performance.now() - started;
      for (const w of writes) port.postMessage({ type: 'written', id: w.id, ms } satisfies FromWriter);
    } catch (error) {
      // A statement prepared before a schema change may be stale; prepare afresh next time.
      statements = WRITE_STATEMENTS.map(() => null);
      for (const w of writes) port.postMessage({ type: 'failed', id: w.id, message: message(error) } satisfies FromWriter);
    }
  }
  if (closing) close();
});
