/**
 * Runs a job one at a time and lets callers share runs: a caller arriving while a run is under way
 * waits for the next run (which starts after the current one and sees its change); callers arriving
 * while that next run is still waiting to start join it. So N changes in a burst cost at most two
 * runs, and every caller's change is covered by a run that started after the caller asked.
 */
export class CoalescingRunner {
  #running: Promise<unknown> | null = null;
  #queued: Promise<unknown> | null = null;

  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#queued !== null) return this.#queued as Promise<T>;
    const previous = this.#running ?? Promise.resolve();
    const next: Promise<T> = previous
      .catch(() => undefined)
      .then(() => {
        this.#queued = null;
        this.#running = next;
        return job();
      });
    this.#queued = next;
    const clear = () => {
      if (this.#running === next) this.#running = null;
    };
    next.then(clear, clear);
    return next;
  }

  /** Settles once every run asked for so far has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([this.#running, this.#queued]);
  }
}
