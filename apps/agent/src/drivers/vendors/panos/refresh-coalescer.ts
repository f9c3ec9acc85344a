/**
 * Runs a refresh per key so that a burst of callers costs at most two: while one refresh runs, every
 * caller that arrives joins the single next one, which starts after it (so it still sees what those
 * callers changed before they asked). A list refresh on a firewall is a job that fetches the whole
 * list; ten grants in a second need the fetch after the last of them, not ten fetches in a row.
 */
export class RefreshCoalescer {
  readonly #running = new Map<string, Promise<void>>();
  readonly #next = new Map<string, Promise<void>>();

  run(key: string, refresh: () => Promise<void>): Promise<void> {
    const queued = this.#next.get(key);
    if (queued !== undefined) return queued;
    const start = (): Promise<void> => {
      this.#next.delete(key);
      const running = refresh();
      this.#running.set(key, running);
      const forget = () => {
        if (this.#running.get(key) === running) this.#running.delete(key);
      };
      running.then(forget, forget);
      return running;
    };
    const running = this.#running.get(key);
    if (running === undefined) return start();
    const next = running.then(start, start);
    this.#next.set(key, next);
    return next;
  }
}
