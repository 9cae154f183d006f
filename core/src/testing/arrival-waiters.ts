/**
 * Lets a test wait for what a test double receives (broker messages, HTTP requests) without
 * sleeping: the double calls `arrived()` on each arrival, a test awaits `until(condition)`.
 */
export class ArrivalWaiters {
  readonly #waiting: { test: () => boolean; resolve: () => void }[] = [];

  /** Call after each arrival: every wait whose condition now holds resolves. */
  arrived(): void {
    for (const waiter of [...this.#waiting]) {
      if (waiter.test()) {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  /**
   * Resolve when `test` holds (checked now and on every arrival); reject after `timeoutMs` with
   * "timed out after … waiting for `what`" and what `received()` says had arrived.
   */
  async until(test: () => boolean, what: string, timeoutMs: number, received: () => string): Promise<void> {
    if (test()) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#waiting.push({ test, resolve })),
      new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${received()}`)), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
