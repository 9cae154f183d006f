import type { AnalyticsEvent, MetricSample, PoseFrame, SensingFrame } from '@wiflow/core';

/** What a flush writes. */
export interface PendingWrites {
  frames: PoseFrame[];
  events: AnalyticsEvent[];
  metrics: MetricSample[];
  sensing: SensingFrame[];
}

/** Options of the buffer. */
export interface AsyncWriteBufferOptions {
  flushIntervalMs: number;
  flushMaxRecords: number;
  maxBufferedRecords: number;
  /** Write one batch; rejects when nothing of it may be assumed written. */
  write(batch: PendingWrites): Promise<void>;
  onError(error: unknown): void;
}

function weightOf(frame: PoseFrame): number {
  return 1 + frame.persons.length;
}

/**
 * Time-series records wait in memory and are written in batches (every `flushIntervalMs` or
 * at `flushMaxRecords`), one batch at a time, in order. A failed batch is put back in front
 * for the next try (bounded by `maxBufferedRecords`).
 */
export class AsyncWriteBuffer {
  readonly #options: AsyncWriteBufferOptions;
  #pending: PendingWrites = { frames: [], events: [], metrics: [], sensing: [] };
  #records = 0;
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
    return this.#records;
  }

  addFrames(frames: PoseFrame[]): void {
    for (const frame of frames) {
      this.#pending.frames.push(frame);
      this.#records += weightOf(frame);
    }
    this.#schedule();
  }

  addEvents(events: AnalyticsEvent[]): void {
    this.#pending.events.push(...events);
    this.#records += events.length;
    this.#schedule();
  }

  addMetrics(samples: MetricSample[]): void {
    this.#pending.metrics.push(...samples);
    this.#records += samples.length;
    this.#schedule();
  }

  addSensing(frames: SensingFrame[]): void {
    this.#pending.sensing.push(...frames);
    this.#records += frames.length;
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
    if (this.#records === 0) return;
    const batch = this.#pending;
    const count = this.#records;
    this.#pending = { frames: [], events: [], metrics: [], sensing: [] };
    this.#records = 0;
    const started = performance.now();
    try {
      await this.#options.write(batch);
    } catch (error) {
      this.#pending = {
        frames: [...batch.frames, ...this.#pending.frames],
        events: [...batch.events, ...this.#pending.events],
        metrics: [...batch.metrics, ...this.#pending.metrics],
        sensing: [...batch.sensing, ...this.#pending.sensing],
      };
      this.#records += count;
      while (this.#records > this.#options.maxBufferedRecords && this.#pending.frames.length > 0) {
        const frame = this.#pending.frames.shift()!;
        this.#records -= weightOf(frame);
        this.dropped += weightOf(frame);
      }
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
    if (this.#records >= this.#options.flushMaxRecords) {
      if (!this.#queued) {
        this.#queued = true;
        this.#background();
      }
      return;
    }
    if (!this.#timer && this.#records > 0) {
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
