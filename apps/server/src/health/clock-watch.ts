import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../store/schema.js';
import type { StoreDialect } from '../store/store.js';
import type { Clock, MonotonicClock } from '../lib/clock.js';
import { startInterval, type IntervalHandle } from '../lib/start-interval.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';

/**
 * Watches this server's wall clock, which every expiry it computes depends on (a grant's
 * ExpiresAt, a session's Ends, the ttl sent to agents). A clock set back by an hour makes every ttl
 * an hour long too many; agents refuse to lengthen what they hold (apps/agent's deadline rule), but
 * the operator must hear of it. Three references:
 * - `monotonic`: the process's own monotonic clock; a change of wall minus monotonic between two
 *   checks is a step of the wall clock while the server runs;
 * - `store`: PostgreSQL's `clock_timestamp()` (another machine's clock). The embedded SQLite store
 *   runs in this process on this machine's clock, so there it tells nothing and is not measured;
 * - `agents`: the median of the connected agents' clocks (their hello and heartbeats carry their
 *   wall clock), each against this server's time when the message arrived.
 * An offset is reference minus server: positive when the server is behind. A step is a change of a
 * reference's offset by more than {@link CLOCK_STEP_THRESHOLD_MS} between two checks (a step of the
 * server's own clock shows under every reference at once; under `store` or `agents` alone, it was
 * that clock that moved).
 */

/** A change of an offset by more than this between two checks is a step (NTP slews far less). */
export const CLOCK_STEP_THRESHOLD_MS = 5_000;
/** A reference this far from the server's clock is an offset worth an operator's look. */
export const CLOCK_OFFSET_THRESHOLD_MS = 30_000;
/** How long the health endpoint says `stepped` after the last step. */
export const CLOCK_STEPPED_SHOWN_MS = 15 * 60_000;
/** How often the running server checks. */
export const CLOCK_CHECK_INTERVAL_MS = 30_000;

/** What the clock is measured against. */
export type ClockReference = 'monotonic' | 'store' | 'agents';
/** What /readyz says of the clock: `offset` while a reference is far off, else `stepped` for a while after a step. */
export type ClockHealth = 'ok' | 'stepped' | 'offset';

/** The agents' clock offsets this replica knows (the agent hub). */
export interface AgentClockOffsets {
  /** For each connected agent that reported its clock: its clock minus this server's, in ms. */
  agentClockOffsets(): number[];
}

export interface ClockWatchOptions {
  clock: Clock;
  monotonic: MonotonicClock;
  db: Kysely<Database>;
  dialect: StoreDialect;
  logger: Logger;
  metrics: ServerMetrics;
  agents: AgentClockOffsets;
}

/** One offset as the metrics show it. */
export interface ClockOffset {
  reference: 'store' | 'agents';
  seconds: number;
}

export class ClockWatch {
  readonly #options: ClockWatchOptions;
  /** Monotonic minus wall at the last check: the monotonic reference's "offset" (its origin is arbitrary). */
  #baseline: number | null = null;
  readonly #offsets = new Map<'store' | 'agents', number>();
  /** The references currently beyond the offset threshold (logged on the way in and out). */
  readonly #far = new Set<'store' | 'agents'>();
  /** Monotonic time of the last step seen. */
  #lastStepAt: number | null = null;

  constructor(options: ClockWatchOptions) {
    this.#options = options;
  }

  /** Checks every {@link CLOCK_CHECK_INTERVAL_MS} until stopped (the running server). */
  start(): IntervalHandle {
    return startInterval({
      name: 'clock check',
      intervalMs: CLOCK_CHECK_INTERVAL_MS,
      logger: this.#options.logger,
      run: () => this.check(),
    });
  }

  /** Measures every reference once: logs and counts a step, notes the offsets. */
  async check(): Promise<void> {
    const { clock, monotonic } = this.#options;
    const offset = monotonic.monotonicMs() - clock.now();
    if (this.#baseline !== null) this.#compare('monotonic', this.#baseline, offset);
    this.#baseline = offset;
    this.#observe('store', await this.#storeOffset());
    this.#observe('agents', median(this.#options.agents.agentClockOffsets()));
  }

  /** What /readyz says of the clock. */
  health(): ClockHealth {
    if (this.#far.size > 0) return 'offset';
    const last = this.#lastStepAt;
    if (last !== null && this.#options.monotonic.monotonicMs() - last < CLOCK_STEPPED_SHOWN_MS) return 'stepped';
    return 'ok';
  }

  /** The offsets measured at the last check (none for a reference not measured). */
  offsets(): ClockOffset[] {
    return [...this.#offsets].map(([reference, ms]) => ({ reference, seconds: ms / 1000 }));
  }

  #observe(reference: 'store' | 'agents', offset: number | null): void {
    const previous = this.#offsets.get(reference);
    if (offset === null) {
      this.#offsets.delete(reference);
      this.#far.delete(reference);
      return;
    }
    this.#offsets.set(reference, offset);
    if (previous !== undefined) this.#compare(reference, previous, offset);
    const far = Math.abs(offset) > CLOCK_OFFSET_THRESHOLD_MS;
    if (far && !this.#far.has(reference)) {
      this.#far.add(reference);
      this.#options.logger.warn(
        { reference, offsetSeconds: Math.round(offset / 1000) },
        "this server's clock is far from the reference's; check NTP on both (positive: the server is behind)",
      );
    } else if (!far && this.#far.delete(reference)) {
      this.#options.logger.info(
        { reference, offsetSeconds: Math.round(offset / 1000) },
        'the clock offset is back in bounds',
      );
    }
  }

  /**
   * A step when the offset to `reference` moved by more than the threshold since the last check:
   * the server's clock moved by `previous - current` against it (negative: set back).
   */
  #compare(reference: ClockReference, previous: number, current: number): void {
    const stepMs = previous - current;
    if (Math.abs(stepMs) <= CLOCK_STEP_THRESHOLD_MS) return;
    this.#lastStepAt = this.#options.monotonic.monotonicMs();
    this.#options.metrics.clockStepped(reference);
    this.#options.logger.warn(
      { reference, stepSeconds: Math.round(stepMs / 1000) },
      "this server's clock stepped against a reference (negative: set back); expiries computed meanwhile may be off by as much",
    );
  }

  /** PostgreSQL's clock minus this server's, measured at the midpoint of the query; null on SQLite or when it fails. */
  async #storeOffset(): Promise<number | null> {
    const { db, dialect, clock, logger } = this.#options;
    if (dialect !== 'postgres') return null;
    try {
      const before = clock.now();
      const result = await sql<{
        ms: string;
      }>`select (extract(epoch from clock_timestamp()) * 1000)::text as ms`.execute(db);
      const after = clock.now();
      const storeMs = Number(result.rows[0]?.ms);
      return Number.isFinite(storeMs) ? storeMs - (before + after) / 2 : null;
    } catch (error) {
      logger.debug({ err: error }, 'could not read the store’s clock');
      return null;
    }
  }
}

/** The median, or null for none. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
