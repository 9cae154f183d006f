import type { AnalyticsEvent, MetricSample, PoseFrame, SensingFrame } from '@wiflow/core';
import { PendingRecords, type PendingWrites } from '@wiflow/storage-kit';

/** What a flush writes in one transaction. */
export type { PendingWrites };

/** Options of the write buffer. */
export interface WriteBufferOptions {
  /** Longest a record waits in memory before it is written (ms). */
  flushIntervalMs: number;
  /** Records (persons + frames + events + metrics + sensing frames) that trigger a write before the interval. */
  flushMaxRecords: number;
  /** Records held at most while writes fail; beyond it the oldest are dropped and counted. */
  maxBufferedRecords: number;
  /**
   * Write a batch in one transaction: encode it now (synchronously, on this thread) and
   * resolve once it is committed, with the transaction's duration in ms; reject when it
   * rolled back (nothing of it written).
   */
  write(batch: PendingWrites): Promise<number>;
  /** A background write failed. */
  onError(error: unknown): void;
}

/**
 * Keeps appended time-series records in memory and hands them to the writer every
 * `flushIntervalMs` or once `flushMaxRecords` are waiting, so the hot path (a pipeline
 * appending frames) never waits on the disk. Several batches may be in flight at once (the
 * writer commits them in order). A batch that fails comes back to the front of the queue for
 * the next try (up to `maxBufferedRecords`).
 */
export class WriteBuffer {
  readonly #options: WriteBufferOptions;
  readonly #pending = new PendingRecords();
  #inFlightRecords = 0;
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  /** Records committed since open. */
  written = 0;
  /** Records dropped because writes kept failing. */
  dropped = 0;
  /** Writes that failed. */
  failures = 0;
  lastFlushAt: number | null = null;
  /** Duration of the last committed transaction (ms, in the writer). */
  lastFlushMs = 0;
  lastError: string | null = null;

  constructor(options: WriteBufferOptions) {
    this.#options = options;
  }

  /** Records not yet committed: waiting in memory or posted to the writer. */
  get buffered(): number {
    return this.#pending.records + this.#inFlightRecords;
  }

  addFrames(frames: PoseFrame[]): void {
    this.#pending.addFrames(frames);
    this.#schedule();
  }

  addEvents(events: AnalyticsEvent[]): void {
    this.#pending.addEvents(events);
    this.#schedule();
  }

  addMetrics(samples: MetricSample[]): void {
    this.#pending.addMetrics(samples);
    this.#schedule();
  }

  addSensing(frames: SensingFrame[]): void {
    this.#pending.addSensing(frames);
    this.#schedule();
  }

  /**
   * Hand everything waiting to the writer and wait until all of it, and every batch already in
   * flight, is committed; rejects when one of them failed (its records are kept for a retry).
   */
  async flush(): Promise<void> {
    this.#cancel();
    if (this.#pending.records > 0) this.#post();
    if (this.#inFlight.size === 0) return;
    const results = await Promise.allSettled([...this.#inFlight]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Stop the timers (pending records stay; call flush first to keep them). */
  stop(): void {
    this.#cancel();
  }

  #post(): Promise<void> {
    const { batch, count } = this.#pending.take();
    let written: Promise<number>;
    try {
      written = this.#options.write(batch);
    } catch (error) {
      written = Promise.reject(error);
    }
    this.#inFlightRecords += count;
    const tracked = written.then(
      (ms) => {
        this.#inFlightRecords -= count;
        this.#inFlight.delete(tracked);
        this.lastFlushMs = ms;
        this.lastFlushAt = Date.now();
        this.lastError = null;
        this.written += count;
      },
      (error: unknown) => {
        this.#inFlightRecords -= count;
        this.#inFlight.delete(tracked);
        this.failures++;
        this.lastError = error instanceof Error ? error.message : String(error);
        this.#restore(batch, count);
        throw error;
      },
    );
    this.#inFlight.add(tracked);
    return tracked;
  }

  #restore(batch: PendingWrites, count: number): void {
    this.dropped += this.#pending.putBack(batch, count, this.#options.maxBufferedRecords);
    // Retry after the interval, not at once: a failing disk should not spin the event loop.
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  #schedule(): void {
    if (this.#pending.records >= this.#options.flushMaxRecords) {
      if (!this.#immediate) this.#immediate = setImmediate(() => this.#background());
      return;
    }
    if (!this.#timer && this.#pending.records > 0) {
      this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  #background(): void {
    this.#immediate = null;
    this.#timer = null;
    if (this.#pending.records === 0) return;
    this.#post().catch((error: unknown) => this.#options.onError(error));
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
  }
}
