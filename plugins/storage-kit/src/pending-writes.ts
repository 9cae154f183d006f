import type { AnalyticsEvent, MetricSample, PoseFrame, SensingFrame } from '@wiflow/core';

/** What one write of a storage's time-series buffer carries. */
export interface PendingWrites {
  frames: PoseFrame[];
  events: AnalyticsEvent[];
  metrics: MetricSample[];
  sensing: SensingFrame[];
}

/** Records a pose frame counts for in a buffer's limits: the frame and each of its persons. */
function weightOf(frame: PoseFrame): number {
  return 1 + frame.persons.length;
}

/**
 * Time-series records waiting in memory for a storage's write: appended in order, taken as one
 * batch, and put back in front of what came since when that write failed, with the oldest pose
 * frames dropped (and counted) beyond the buffer's limit. The storages' write buffers (SQLite,
 * MongoDB) keep their own timing and in-flight rules around it.
 */
export class PendingRecords {
  #pending: PendingWrites = { frames: [], events: [], metrics: [], sensing: [] };
  #records = 0;

  /** Records waiting (a pose frame counts 1 + its persons). */
  get records(): number {
    return this.#records;
  }

  addFrames(frames: PoseFrame[]): void {
    for (const frame of frames) {
      this.#pending.frames.push(frame);
      this.#records += weightOf(frame);
    }
  }

  addEvents(events: AnalyticsEvent[]): void {
    this.#pending.events.push(...events);
    this.#records += events.length;
  }

  addMetrics(samples: MetricSample[]): void {
    this.#pending.metrics.push(...samples);
    this.#records += samples.length;
  }

  addSensing(frames: SensingFrame[]): void {
    this.#pending.sensing.push(...frames);
    this.#records += frames.length;
  }

  /** Everything waiting, as one batch with its record count; the buffer is empty after. */
  take(): { batch: PendingWrites; count: number } {
    const taken = { batch: this.#pending, count: this.#records };
    this.#pending = { frames: [], events: [], metrics: [], sensing: [] };
    this.#records = 0;
    return taken;
  }

  /**
   * A batch whose write failed goes back in front of what was appended since; while more than
   * `maxRecords` wait, the oldest pose frames are dropped. Returns the records dropped.
   */
  putBack(batch: PendingWrites, count: number, maxRecords: number): number {
    this.#pending = {
      frames: [...batch.frames, ...this.#pending.frames],
      events: [...batch.events, ...this.#pending.events],
      metrics: [...batch.metrics, ...this.#pending.metrics],
      sensing: [...batch.sensing, ...this.#pending.sensing],
    };
    this.#records += count;
    let dropped = 0;
    while (this.#records > maxRecords && this.#pending.frames.length > 0) {
      const weight = weightOf(this.#pending.frames.shift()!);
      this.#records -= weight;
      dropped += weight;
    }
    return dropped;
  }
}
