import type { SensingFallEvent } from '@wiflow/core';

/** A fall waiting in the hold, with what it is about (room or link key) and the frame it came in. */
export interface HeldFall<T> {
  key: string;
  fall: SensingFallEvent;
  /** What the caller needs to raise it (the frame's room, link, estimator...). */
  context: T;
}

/**
 * Puts the falls of sensing frames back in time order and merges repeats before they are raised.
 *
 * A link reports a fall a few seconds after its peak (when its context after the peak is in), and a room's
 * links decide at different moments, so the falls reaching `sense.alerts` come in decision order, not in
 * the order they happened, and one fall seen by two links can arrive in two room seconds. Raised at once,
 * an older fall arriving after a newer one is suppressed by the newer one's cool-down (the alert would then
 * carry the wrong time), and one fall becomes two events. The hold keeps each fall until frame time has
 * passed it by `holdMs`, then releases falls oldest first; falls of the same key closer than `mergeMs` are
 * one fall (the most confident kept, at its own time).
 */
export class FallOrder<T> {
  readonly #held: HeldFall<T>[] = [];
  /** Per key, the time of the newest fall released: a repeat arriving after its twin was released is merged too. */
  readonly #released = new Map<string, number>();
  /** Falls merged into a more confident one of the same key. */
  merged = 0;

  constructor(private readonly options: { holdMs: number; mergeMs: number }) {}

  /** Hold a fall; a repeat of a held one (same key, within mergeMs) keeps only the more confident. */
  add(entry: HeldFall<T>): void {
    const released = this.#released.get(entry.key);
    if (released !== undefined && Math.abs(released - entry.fall.time) < this.options.mergeMs) {
      this.merged++;
      return;
    }
    const twin = this.#held.find((h) => h.key === entry.key && Math.abs(h.fall.time - entry.fall.time) < this.options.mergeMs);
    if (twin) {
      this.merged++;
      if (entry.fall.confidence > twin.fall.confidence) Object.assign(twin, entry);
      return;
    }
    this.#held.push(entry);
  }

  /** The falls frame time `now` has passed by holdMs (all of them when now is Infinity), oldest first. */
  release(now: number): HeldFall<T>[] {
    const due = this.#held.filter((h) => h.fall.time <= now - this.options.holdMs).sort((a, b) => a.fall.time - b.fall.time);
    for (const h of due) {
      this.#held.splice(this.#held.indexOf(h), 1);
      this.#released.set(h.key, Math.max(this.#released.get(h.key) ?? -Infinity, h.fall.time));
    }
    return due;
  }

  /** Falls held now. */
  get size(): number {
    return this.#held.length;
  }
}
