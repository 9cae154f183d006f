import type { AnalyticsEvent, MetricSample, PoseFrame, SensingFrame } from '@wiflow/core';
import { PendingRecords, type PendingWrites } from '@wiflow/storage-kit';

/** What a flush writes. */
export type { PendingWrites };

/** Options of the buffer. */
export interface AsyncWriteBufferOptions {
  flushIntervalMs: number;
  flushMaxRecords: number;
  maxBufferedRecords: number;
  /** Write one batch; rejects when nothing of it may be assumed written. */
  write(batch: PendingWrites): Promise<void>;
  onError(error: unknown): void;
}

/**
 * Time-series records wait in memory and are written in batches (every `flushIntervalMs` or
 * at `flushMaxRecords`), one batch at a time, in order. A failed batch is put back in front
 * for the next try (bounded by `maxBufferedRecords`).
 */
export class AsyncWriteBuffer {
  readonly #options: AsyncWriteBufferOptions;
  readonly #pending = new PendingRecords();
  #timer: NodeJS.Timeout | null = null;
  #chain: Promise<void> = Promise.resolve();
  #queued = false;
  written = 0;
  dropped = 0;
  failures = 0;
  lastFlushAt: number | null = null;
  lastFlushMs = 0;
  lastError: string | null = null;

  constructor(options: AsyncWriteBufferOptions) {
    this.#options = options;
  }

  get buffered(): number {
    return this.#pending.records;
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

  /** Write everything appended so far; resolves when it is written, rejects when the write failed. */
  flush(): Promise<void> {
    this.#cancel();
    const run = this.#chain.then(() => this.#writeNow());
    this.#chain = run.catch(() => undefined);
    return run;
  }

  stop(): void {
    this.#cancel();
  }

  async #writeNow(): Promise<void> {
    this.#queued = false;
    if (this.#pending.records === 0) return;
    const { batch, count } = this.#pending.take();
    const started = performance.now();
    try {
      await this.#options.write(batch);
    } catch (error) {
      this.dropped += this.#pending.putBack(batch, count, this.#options.maxBufferedRecords);
      this.lastError = error instanceof Error ? error.message : String(error);
      this.#retryLater();
      throw error;
    }
    this.lastFlushMs = performance.now() - started;
    this.lastFlushAt = Date.now();
    this.lastError = null;
    this.written += count;
  }

  #schedule(): void {
    if (this.#pending.records >= this.#options.flushMaxRecords) {
      if (!this.#queued) {
        this.#queued = true;
        this.#background();
      }
      return;
    }
    if (!this.#timer && this.#pending.records > 0) {
      this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  #retryLater(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
    this.#timer.unref();
  }

  #background(): void {
    this.flush().catch((error: unknown) => {
      this.failures++;
      this.#options.onError(error);
    });
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
