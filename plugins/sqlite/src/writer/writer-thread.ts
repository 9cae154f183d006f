import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FromWriter, ToWriter, WriterData } from './write-worker.js';
import type { WriteBatch } from './write-statements.js';

/**
 * The compiled worker script. Beside this module when running from dist; when this module
 * runs from source (the package's own tests), the built copy under dist, since a worker
 * thread cannot load TypeScript.
 */
function workerScript(): string {
  const beside = fileURLToPath(new URL('./write-worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../dist/writer/write-worker.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`the SQLite writer thread script is missing (${beside}); build @wiflow/plugin-sqlite`);
}

/** The writer thread seen from the storage: post a batch, get a promise of its commit. */
export class WriterThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (ms: number) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #closed: Promise<void> | null = null;
  #dead: Error | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (msg: FromWriter) => {
      if (msg.type !== 'written' && msg.type !== 'failed') return;
      const waiter = this.#waiting.get(msg.id);
      this.#waiting.delete(msg.id);
      if (msg.type === 'written') waiter?.resolve(msg.ms);
      else waiter?.reject(new Error(msg.message));
    });
    const fail = (error: Error) => {
      this.#dead = error;
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite writer thread exited (code ${code})`)));
  }

  /** Start a writer on `file` (already migrated) and wait until its connection is open. */
  static start(data: WriterData): Promise<WriterThread> {
    const worker = new Worker(workerScript(), { workerData: data });
    return new Promise((resolve, reject) => {
      const onMessage = (msg: FromWriter) => {
        if (msg.type === 'ready') {
          cleanup();
          resolve(new WriterThread(worker));
        } else if (msg.type === 'open-failed') {
          cleanup();
          reject(new Error(msg.message));
        }
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
  }

  /**
   * Post a batch; resolves with the transaction's duration (ms) once it is committed, rejects
   * when it rolled back. `transfer` (the batch's arenas) moves to the thread and is unusable here after.
   */
  write(batch: WriteBatch, transfer: ArrayBuffer[] = []): Promise<number> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ type: 'write', id, batch } satisfies ToWriter, transfer);
    });
  }

  /** Close the writer's connection and end the thread (batches posted before run first). */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#closed = new Promise<void>((resolve) => {
      this.#worker.once('exit', () => resolve());
      if (this.#dead) {
        resolve();
        return;
      }
      this.#worker.postMessage({ type: 'close' } satisfies ToWriter);
    });
    return this.#closed;
  }
}
