/**
 * Time as postern-client sees it. Injected so the tests drive the poll and persist loops through
 * hours of virtual time without waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Waits `ms`, or less when `signal` aborts. It resolves rather than rejects on abort: the loops
   * look at the signal after every wait, which keeps their shutdown path in one place.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted === true) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
};
