import type { OverflowPolicy } from '../flows/flow.js';

/**
 * A bounded FIFO between two ports. `drop-oldest` discards the oldest message when full;
 * `block` accepts the message but tells the sender to wait until there is room again, so a
 * queue overshoots its capacity by at most the messages one handler emits.
 */
export class EdgeQueue {
  #values: unknown[];
  #times: Float64Array;
  #head = 0;
  #length = 0;
  #waiters: (() => void)[] = [];

  constructor(readonly capacity: number, readonly overflow: OverflowPolicy, readonly targetPort: string) {
    const size = Math.max(2, capacity + 64);
    this.#values = new Array(size);
    this.#times = new Float64Array(size);
  }

  get length(): number {
    return this.#length;
  }

  /** Add a value; returns 'dropped' when an old value was discarded, 'full' when the sender should wait. */
  push(value: unknown, enqueuedAt: number): 'ok' | 'dropped' | 'full' {
    let result: 'ok' | 'dropped' | 'full' = 'ok';
    if (this.#length >= this.capacity) {
      if (this.overflow === 'drop-oldest') {
        this.#shiftRaw();
        result = 'dropped';
      } else {
        result = 'full';
      }
    }
    if (this.#length === this.#values.length) this.#grow();
    const tail = (this.#head + this.#length) % this.#values.length;
    this.#values[tail] = value;
    this.#times[tail] = enqueuedAt;
    this.#length++;
    return result;
  }

  /** Time the oldest value was enqueued. */
  peekTime(): number {
    return this.#times[this.#head];
  }

  /** Remove and return the oldest value; wakes blocked senders once below capacity. */
  shift(): unknown {
    const value = this.#shiftRaw();
    if (this.#waiters.length > 0 && this.#length < this.capacity) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    }
    return value;
  }

  /** A promise that resolves once the queue is below capacity. */
  waitForRoom(): Promise<void> {
    if (this.#length < this.capacity) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Drop everything and release waiters (used when a pipeline stops). */
  clear(): number {
    const dropped = this.#length;
    this.#values.fill(undefined);
    this.#head = 0;
    this.#length = 0;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
    return dropped;
  }

  #shiftRaw(): unknown {
    const value = this.#values[this.#head];
    this.#values[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#values.length;
    this.#length--;
    return value;
  }

  #grow(): void {
    const size = this.#values.length * 2;
    const values = new Array(size);
    const times = new Float64Array(size);
    for (let i = 0; i < this.#length; i++) {
      const j = (this.#head + i) % this.#values.length;
      values[i] = this.#values[j];
      times[i] = this.#times[j];
    }
    this.#values = values;
    this.#times = times;
    this.#head = 0;
  }
}
