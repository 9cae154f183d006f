import type { Alert, AnalyticsEvent, NodeInstance, PoseFrame } from '@wiflow/core';
import { isoTime } from './time-buckets.js';

/**
 * The frame time a domain analyzer has seen: the first and last timestamps, and per
 * environment the step from its previous frame, so time is counted only while observed.
 */
export class FrameClock {
  first: number | null = null;
  last: number | null = null;
  readonly #lastFrame = new Map<string, number>();

  /** Note a frame; returns the ms since its environment's previous frame, 0 for the first or after a gap longer than `maxGapMs`. */
  step(frame: PoseFrame, maxGapMs: number): number {
    const t = frame.timestamp;
    this.first ??= t;
    this.last = t;
    const previous = this.#lastFrame.get(frame.environmentId);
    this.#lastFrame.set(frame.environmentId, t);
    const gap = previous === undefined ? 0 : t - previous;
    return gap > 0 && gap <= maxGapMs ? gap : 0;
  }

  /** The period seen, as metrics records give it (ISO times, null before any frame). */
  period(): { start: string | null; end: string | null } {
    return { start: this.first === null ? null : isoTime(this.first), end: this.last === null ? null : isoTime(this.last) };
  }
}

/** What `analyzerNode` drives: a domain analyzer fed frame by frame. */
export interface FrameAnalyzer {
  update(frame: PoseFrame): { events: AnalyticsEvent[]; alerts: Alert[] };
  metrics(): unknown;
}

/**
 * The instance of a domain analytics node: each frame goes to the analyzer, its events and
 * alerts out on `events` / `alerts`, and its metrics record on `metrics` every
 * `reportIntervalSeconds` of frame time and once at the end.
 */
export function analyzerNode(ctx: { emit(port: string, value: unknown): void }, analyzer: FrameAnalyzer, reportIntervalSeconds: number): NodeInstance {
  let lastReport: number | null = null;
  let frames = 0;
  return {
    receive(_port, value) {
      const frame = value as PoseFrame;
      const out = analyzer.update(frame);
      frames++;
      for (const e of out.events) ctx.emit('events', e);
      for (const a of out.alerts) ctx.emit('alerts', a);
      lastReport ??= frame.timestamp;
      if (frame.timestamp - lastReport >= reportIntervalSeconds * 1000) {
        lastReport = frame.timestamp;
        ctx.emit('metrics', analyzer.metrics());
      }
    },
    flush() {
      if (frames > 0) ctx.emit('metrics', analyzer.metrics());
    },
  };
}
