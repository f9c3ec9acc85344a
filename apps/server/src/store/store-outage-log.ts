import type { Logger } from 'pino';
import { isStoreUnavailable, unavailability } from './store-unavailable.js';

/**
 * Logs background work that the store could not serve (locked by another process, unreachable, out
 * of space) once per episode: a warning at the first failure, saying which of those it is, and a
 * note when the work succeeds again, instead of one line per retry or per timer tick for as long as
 * the outage lasts.
 */
export class StoreOutageLog {
  #failures = 0;

  constructor(
    private readonly log: Logger,
    /** What waits, for the log line ("agent results", "grant sweep"). */
    private readonly what: string,
  ) {}

  /**
   * Takes note of a failure. True when the store was unavailable (the caller tries again later);
   * false for any other error, which the caller reports as the fault it is.
   */
  failed(error: unknown): boolean {
    if (!isStoreUnavailable(error)) return false;
    this.#failures += 1;
    if (this.#failures === 1) {
      this.log.warn({ err: error }, `store unavailable (${unavailability(error)}): ${this.what} will be retried`);
    }
    return true;
  }

  /** The work went through: ends the episode, if there was one. */
  succeeded(): void {
    if (this.#failures === 0) return;
    this.log.info({ attempts: this.#failures + 1 }, `store available again: ${this.what} done`);
    this.#failures = 0;
  }
}
