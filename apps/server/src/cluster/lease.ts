import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { IntervalHandle } from '../lib/start-interval.js';
import type { Database } from '../store/schema.js';
import { startStoreJob } from '../store/store-job.js';

/** How long a lease lasts unless renewed: a dead holder's work moves to another server within it. */
export const LEASE_TTL_MS = 15_000;
/** How often the holder renews it (and another server tries to take it). */
export const LEASE_RENEW_MS = 5_000;

/** What a lease needs of the context: the store and the time. */
export interface LeaseContext {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
}

/**
 * A named job that runs on one server at a time (Pomerium's maybeAcquireLease): the row is taken by
 * a conditional upsert that succeeds only when the lease is free, expired or already this holder's,
 * so two servers never both think they hold it. The holder renews it every LEASE_RENEW_MS; a server
 * that stops renewing (killed, cut off from the store) loses it after LEASE_TTL_MS, and the next
 * server to try takes it over. The holder counts the lease as held a renewal period short of its
 * expiry, so it stops before another can start even if its clock runs a little behind theirs.
 */
export class Lease {
  /** Until when (this server's clock) the lease counts as held. */
  #heldUntil = 0;
  /** Whether the last log line said the lease was held. */
  #reportedHeld = false;

  constructor(
    private readonly ctx: LeaseContext,
    readonly name: string,
    readonly holder: string,
  ) {}

  /** Whether this server holds the lease now. */
  get held(): boolean {
    return this.ctx.clock.now() < this.#heldUntil;
  }

  /** Takes or renews the lease; true when this server holds it afterwards. */
  async renew(): Promise<boolean> {
    try {
      return await this.#renew();
    } finally {
      // Also when the renewal failed (the store out of reach or full): the lease lapses by time.
      this.#reportChange();
    }
  }

  async #renew(): Promise<boolean> {
    const now = this.ctx.clock.now();
    const taken = await this.ctx.db
      .insertInto('leases')
      .values({ name: this.name, holder: this.holder, expiresAt: now + LEASE_TTL_MS })
      .onConflict((conflict) =>
        conflict
          .column('name')
          .doUpdateSet({ holder: this.holder, expiresAt: now + LEASE_TTL_MS })
          .where((eb) => eb.or([eb('leases.expiresAt', '<', now), eb('leases.holder', '=', this.holder)])),
      )
      .returning('holder')
      .executeTakeFirst();
    this.#heldUntil = taken === undefined ? 0 : now + LEASE_TTL_MS - LEASE_RENEW_MS;
    return this.held;
  }

  /** Logs the lease taken or lost when that changed since the last renewal. */
  #reportChange(): void {
    if (this.held === this.#reportedHeld) return;
    this.#reportedHeld = this.held;
    this.ctx.logger.info({ lease: this.name, holder: this.holder }, this.held ? 'lease taken' : 'lease lost');
  }

  /** Renews the lease every `renewMs` until stopped; stopping gives it up. */
  keep(renewMs = LEASE_RENEW_MS): IntervalHandle {
    const job = startStoreJob(this.ctx.logger, `${this.name} lease`, renewMs, async () => {
      await this.renew();
    });
    return {
      stop: async () => {
        await job.stop();
        await this.release().catch((error: unknown) => {
          this.ctx.logger.warn({ err: error, lease: this.name }, 'could not give up the lease');
        });
      },
    };
  }

  /** Gives the lease up (shutdown), so another server takes it over at once rather than at expiry. */
  async release(): Promise<void> {
    if (this.#heldUntil === 0) return;
    this.#heldUntil = 0;
    this.#reportedHeld = false;
    await this.ctx.db.deleteFrom('leases').where('name', '=', this.name).where('holder', '=', this.holder).execute();
  }
}
