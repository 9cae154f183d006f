import type { AnalyticsEvent, MetricSample, PoseFrame } from '@wiflow/core';

/** What a flush writes in one transaction. */
export interface PendingWrites {
  frames: PoseFrame[];
  events: AnalyticsEvent[];
  metrics: MetricSample[];
}

/** Options of the write buffer. */
export interface WriteBufferOptions {
  /** Longest a record waits in memory before it is written (ms). */
  flushIntervalMs: number;
  /** Records (persons + frames + events + metrics) that trigger a write before the interval. */
  flushMaxRecords: number;
  /** Records held at most while writes fail; beyond it the oldest are dropped and counted. */
  maxBufferedRecords: number;
  /** Write a batch in one transaction (throws when it failed and wrote nothing). */
  write(batch: PendingWrites): void;
  /** A background write failed. */
  onError(error: unknown): void;
}

function weightOf(frame: PoseFrame): number {
  return 1 + frame.persons.length;
}

/**
 * Keeps appended time-series records in memory and writes them in one transaction every
 * `flushIntervalMs` or once `flushMaxRecords` are waiting, so the hot path (a pipeline
 * appending frames) never waits on the disk. A write that fails keeps its records for the
 * next try (up to `maxBufferedRecords`).
 */
export class WriteBuffer {
  readonly #options: WriteBufferOptions;
  #pending: PendingWrites = { frames: [], events: [], metrics: [] };
  #records = 0;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  /** Records written since open. */
  written = 0;
  /** Records dropped because writes kept failing. */
  dropped = 0;
  /** Background writes that failed. */
  failures = 0;
  lastFlushAt: number | null = null;
  lastFlushMs = 0;
  lastError: string | null = null;

  constructor(options: WriteBufferOptions) {
    this.#options = options;
  }

  /** Records waiting in memory (not yet durable). */
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

  /** Write everything waiting now; throws when the write failed (records kept for a retry). */
  flushNow(): void {
    this.#cancel();
    if (this.#records === 0) return;
    const batch = this.#pending;
    const count = this.#records;
    this.#pending = { frames: [], events: [], metrics: [] };
    this.#records = 0;
    const started = performance.now();
    try {
      this.#options.write(batch);
    } catch (error) {
      this.#restore(batch, count);
      this.lastError = error instanceof Error ? error.message : String(error);
      throw error;
    }
    this.lastFlushMs = performance.now() - started;
    this.lastFlushAt = Date.now();
    this.lastError = null;
    this.written += count;
  }

  /** Stop the timers (pending records stay; call flushNow first to keep them). */
  stop(): void {
    this.#cancel();
  }

  #restore(batch: PendingWrites, count: number): void {
    this.#pending = {
      frames: [...batch.frames, ...this.#pending.frames],
      events: [...batch.events, ...this.#pending.events],
      metrics: [...batch.metrics, ...this.#pending.metrics],
    };
    this.#records += count;
    while (this.#records > this.#options.maxBufferedRecords && this.#pending.frames.length > 0) {
      const frame = this.#pending.frames.shift()!;
      this.#records -= weightOf(frame);
      this.dropped += weightOf(frame);
    }
    // Retry after the interval, not at once: a failing disk should not spin the event loop.
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  #schedule(): void {
    if (this.#records >= this.#options.flushMaxRecords) {
      if (!this.#immediate) this.#immediate = setImmediate(() => this.#background());
      return;
    }
    if (!this.#timer && this.#records > 0) {
      this.#timer = setTimeout(() => this.#background(), this.#options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  #background(): void {
    this.#immediate = null;
    this.#timer = null;
    try {
      this.flushNow();
    } catch (error) {
      this.failures++;
      this.#options.onError(error);
    }
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
  }
}
