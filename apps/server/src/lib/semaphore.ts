/** Lets at most `limit` tasks run at once; the rest wait in arrival order. */
export class Semaphore {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  /**
   * With `yieldBetween`, a waiting task starts in a later turn of the event loop (setImmediate), not
   * straight after the one that freed its slot: tasks whose awaits all resolve at once (the SQLite
   * store answers synchronously) would otherwise run back to back, thousands in one turn, while
   * every request waits for the event loop.
   */
  constructor(
    private readonly limit: number,
    private readonly options: { yieldBetween?: boolean } = {},
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // Hand the slot straight to the next waiter so a newcomer cannot overtake it.
      if (next === undefined) this.#running -= 1;
      else if (this.options.yieldBetween === true) setImmediate(next);
      else next();
    }
  }

  /** Tasks waiting for a slot (for tests and logs). */
  get waiting(): number {
    return this.#waiting.length;
  }
}
