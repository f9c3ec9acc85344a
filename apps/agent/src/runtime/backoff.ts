/** Reconnect timing; tests shorten it. */
export interface BackoffSettings {
  /** The first retry waits up to this long. */
  baseMs: number;
  /** No retry waits longer than this. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 500, capMs: 60_000 };

/**
 * Exponential back-off with full jitter: attempt n waits a uniformly random time between 0 and
 * min(cap, base·2ⁿ). Full jitter spreads a fleet of agents that lost the server at the same moment,
 * so they do not all come back in the same instant. {@link reset} after a connection that lasted.
 */
export class Backoff {
  readonly #settings: BackoffSettings;
  readonly #random: () => number;
  #attempt = 0;

  constructor(settings: BackoffSettings = DEFAULT_BACKOFF, random: () => number = Math.random) {
    this.#settings = settings;
    this.#random = random;
  }

  /** The wait before the next attempt. */
  next(): number {
    const ceiling = Math.min(this.#settings.capMs, this.#settings.baseMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt++;
    return Math.round(this.#random() * ceiling);
  }

  /**
   * A wait near the cap (between half the cap and the cap), for a refusal that retrying soon cannot
   * fix, such as an unknown token; later attempts draw from the full range up to the cap until {@link reset}.
   */
  atCap(): number {
    this.#attempt = 31;
    const cap = this.#settings.capMs;
    return Math.round(cap / 2 + (this.#random() * cap) / 2);
  }

  /**
   * The wait after the server said it is stopping (goodbye, close code 4004): between 4 and 8 times
   * the base (2–4 s by default), never past the cap. A restart takes about that long, and a fleet
   * told goodbye at the same instant neither hammers the stopping server (which turns every
   * connection away) nor lands on the next one all at once. Later attempts grow from there.
   */
  afterServerStopping(): number {
    this.#attempt = Math.max(this.#attempt, 3);
    const floor = Math.min(this.#settings.capMs / 2, this.#settings.baseMs * 4);
    return Math.round(floor + this.#random() * floor);
  }

  /** Starts again from the base delay. */
  reset(): void {
    this.#attempt = 0;
  }
}
