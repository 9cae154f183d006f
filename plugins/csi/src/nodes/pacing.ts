import { abortableSleep, type CsiFrame } from '@wiflow/core';

/**
 * Paces frames by their device timestamps: `speed` 1 is the recorded rate, 2 twice as fast,
 * 0 as fast as possible (yielding to the event loop now and then).
 */
export class Pacer {
  #startWall = -1;
  #startTimestamp = 0;
  #count = 0;

  constructor(
    readonly speed: number,
    readonly signal: AbortSignal,
  ) {}

  /** Wait until `frame` is due. */
  async wait(frame: CsiFrame): Promise<void> {
    this.#count++;
    if (this.speed <= 0) {
      if (this.#count % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    if (this.#startWall < 0 || frame.timestamp < this.#startTimestamp) {
      this.#startWall = performance.now();
      this.#startTimestamp = frame.timestamp;
      return;
    }
    const due = this.#startWall + (frame.timestamp - this.#startTimestamp) / 1000 / this.speed;
    await abortableSleep(due - performance.now(), this.signal);
  }
}

/** Shifts timestamps on each loop pass so a looped replay stays monotonic. */
export class LoopClock {
  #offset = 0;
  #first = Number.NaN;
  #last = Number.NaN;
  #previous = Number.NaN;
  #interval = 0;

  /** A copy of the frame with the loop offset applied. */
  apply(frame: CsiFrame): CsiFrame {
    if (Number.isNaN(this.#first)) this.#first = frame.timestamp;
    if (!Number.isNaN(this.#previous) && frame.timestamp > this.#previous) this.#interval = frame.timestamp - this.#previous;
    this.#previous = frame.timestamp;
    this.#last = frame.timestamp;
    if (this.#offset === 0) return frame;
    return { ...frame, timestamp: frame.timestamp + this.#offset, time: frame.time + this.#offset / 1000 };
  }

  /** Start another pass: later frames come one interval after this pass's last. */
  nextPass(): void {
    if (Number.isNaN(this.#first)) return;
    this.#offset += this.#last - this.#first + (this.#interval || 1);
    this.#previous = Number.NaN;
  }
}
