/** One entry of a job's event log. */
export interface JobEvent {
  /** 1-based, strictly increasing within a job. */
  seq: number;
  event: string;
  data: unknown;
  /** Wall-clock ms. */
  timestamp: number;
}

/**
 * The ordered event log of one job. Readers poll (`since`), or subscribe from a sequence
 * number and receive exactly the events after it, then live ones, until the log closes.
 */
export class JobLog {
  readonly #events: JobEvent[] = [];
  readonly #listeners = new Set<(event: JobEvent | null) => void>();
  #closed = false;

  /**
   * A log holding stored events (a job read back from storage), closed unless `open` (a job
   * that has yet to be ended). Sequence numbers are kept, gaps included, so `since` and
   * `Last-Event-ID` mean what they meant before.
   */
  static restore(events: readonly JobEvent[], options: { open?: boolean } = {}): JobLog {
    const log = new JobLog();
    log.#events.push(...[...events].sort((a, b) => a.seq - b.seq));
    log.#closed = !options.open;
    return log;
  }

  /** Append an event; ignored once the log is closed. */
  append(event: string, data?: unknown): JobEvent | undefined {
    if (this.#closed) return undefined;
    const entry: JobEvent = { seq: this.lastSeq + 1, event, data: data ?? null, timestamp: Date.now() };
    this.#events.push(entry);
    for (const listener of this.#listeners) listener(entry);
    return entry;
  }

  /** No more events will come (the job ended). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#listeners) listener(null);
    this.#listeners.clear();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sequence number of the last event (0 when empty). */
  get lastSeq(): number {
    return this.#events.at(-1)?.seq ?? 0;
  }

  /** Events with a sequence number greater than `seq`. */
  since(seq = 0): JobEvent[] {
    // A live log is dense (seq = index + 1); a restored one may have gaps, so search.
    let low = 0;
    let high = this.#events.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#events[mid].seq <= seq) low = mid + 1;
      else high = mid;
    }
    return this.#events.slice(low);
  }

  /**
   * Replay the events after `seq`, then deliver new ones as they come; `listener(null)`
   * marks the end. Returns the unsubscribe function.
   */
  subscribe(seq: number, listener: (event: JobEvent | null) => void): () => void {
    for (const e of this.since(seq)) listener(e);
    if (this.#closed) {
      listener(null);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Async iteration over the events after `seq`, ending when the log closes. */
  async *read(seq = 0, signal?: AbortSignal): AsyncGenerator<JobEvent> {
    let next = seq;
    while (!signal?.aborted) {
      const pending = this.since(next);
      for (const e of pending) {
        next = e.seq;
        yield e;
      }
      if (this.#closed && next >= this.lastSeq) return;
      // One wake-up per wait, whichever comes first; both registrations are undone so a long
      // read does not pile abort listeners on the caller's signal.
      await new Promise<void>((resolve) => {
        let unsubscribe: (() => unknown) | undefined;
        let woken = false;
        const wake = () => {
          if (woken) return;
          woken = true;
          unsubscribe?.();
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        signal?.addEventListener('abort', wake, { once: true });
        unsubscribe = this.subscribe(next, wake);
        if (woken) unsubscribe();
      });
    }
  }
}
