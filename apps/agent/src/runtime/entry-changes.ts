import type { Logger } from 'pino';
import type { AgentKnoc, DesiredEntry, EntryResult } from '@postern/protocol';
import type { DriverSet } from '../drivers/driver.js';
import type { Clock } from './clock.js';
import { callDriver, KnocBatches } from './driver-calls.js';
import { entryKey, type EntryStore, type HeldEntry } from './entry-store.js';

/** Failed removals are retried after 5 s, doubling to at most 5 minutes. */
const REMOVE_RETRY_FIRST_MS = 5_000;
const REMOVE_RETRY_MAX_MS = 300_000;

/** A removal request: a held entry, or an address the agent does not hold but the device might. */
export interface Removal {
  aclId: string;
  ip: string;
  userName: string;
  knoc: AgentKnoc;
  held: HeldEntry | undefined;
  /** The tombstone's generation once removed. */
  generation: number;
}

export interface Addition {
  entry: DesiredEntry;
  knoc: AgentKnoc;
}

export function removalOf(held: HeldEntry, generation: number): Removal {
  return { aclId: held.aclId, ip: held.ip, userName: held.userName, knoc: held.knoc, held, generation };
}

/**
 * Per-entry removals and additions: one driver call per knoc and action, each outcome reported as an
 * entry result and recorded in the {@link EntryStore} (held, tombstoned, or kept for a removal retry).
 * The reconciler decides which changes to make; this carries them out.
 */
export class EntryChanges {
  readonly #store: EntryStore;
  readonly #drivers: DriverSet;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: { store: EntryStore; drivers: DriverSet; clock: Clock; logger: Logger }) {
    this.#store = options.store;
    this.#drivers = options.drivers;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  async remove(removals: readonly Removal[]): Promise<EntryResult[]> {
    const batches = new KnocBatches<Removal>();
    for (const removal of removals) batches.add(removal.knoc, removal);
    const results: EntryResult[] = [];
    for (const [knoc, batch] of batches) {
      const entries = batch.map((removal) => ({
        ip: removal.ip,
        ttlSeconds: 1,
        userName: removal.userName,
      }));
      const outcomes = await callDriver(this.#drivers, 'remove', knoc, entries);
      // Without a driver (a state file from a build that had one) a retry cannot succeed.
      const hopeless = !this.#drivers.has(knoc.backendType);
      batch.forEach((removal, index) => {
        const outcome = outcomes[index] ?? { ok: false, error: 'no outcome' };
        results.push({ aclId: removal.aclId, ip: removal.ip, action: 'remove', ok: outcome.ok, error: outcome.error });
        if (outcome.ok || hopeless) {
          this.#store.removed(removal.aclId, removal.ip, removal.generation);
        } else {
          this.#removalFailed(removal, knoc, outcome.error);
        }
      });
    }
    return results;
  }

  /** Keeps a failed removal as a held entry in `removing` state, retried with back-off. */
  #removalFailed(removal: Removal, knoc: AgentKnoc, error: string): void {
    const held =
      removal.held ??
      ({
        aclId: removal.aclId,
        ip: removal.ip,
        userName: removal.userName,
        knoc,
        deadlineMs: 0,
        generation: removal.generation,
        removing: true,
        removeAttempts: 0,
      } satisfies HeldEntry);
    const delay = Math.min(REMOVE_RETRY_MAX_MS, REMOVE_RETRY_FIRST_MS * 2 ** held.removeAttempts);
    this.#store.removalFailed(held, removal.generation, this.#clock.monotonicMs() + delay);
    this.#logger.warn(
      { aclId: removal.aclId, ip: removal.ip, backendType: knoc.backendType, error, retryInMs: delay },
      'cannot remove an entry; will retry',
    );
  }

  /** Applies additions; `receivedAtMs` (monotonic) is when their ttls were current. */
  async add(additions: readonly Addition[], generation: number, receivedAtMs: number): Promise<EntryResult[]> {
    const batches = new KnocBatches<Addition>();
    for (const addition of additions) batches.add(addition.knoc, addition);
    const results: EntryResult[] = [];
    for (const [knoc, batch] of batches) {
      const entries = batch.map(({ entry }) => ({
        ip: entry.ip,
        ttlSeconds: entry.ttlSeconds,
        userName: entry.userName,
      }));
      const outcomes = await callDriver(this.#drivers, 'apply', knoc, entries);
      batch.forEach(({ entry }, index) => {
        const outcome = outcomes[index] ?? { ok: false, error: 'no outcome' };
        results.push({ aclId: entry.aclId, ip: entry.ip, action: 'add', ok: outcome.ok, error: outcome.error });
        const held = this.#store.entries.get(entryKey(entry.aclId, entry.ip));
        if (outcome.ok) {
          if (held !== undefined && held.knoc !== knoc) {
            this.#logger.warn(
              { aclId: entry.aclId, ip: entry.ip },
              'an entry under the knoc’s previous configuration could not be removed and is no longer tracked',
            );
          }
          this.#store.hold({
            aclId: entry.aclId,
            ip: entry.ip,
            userName: entry.userName,
            knoc,
            deadlineMs: receivedAtMs + entry.ttlSeconds * 1000,
            generation,
          });
        } else if (held !== undefined && !held.removing && held.knoc === knoc) {
          // A failed refresh: the device keeps the entry until its old expiry, and so do we.
          this.#store.touched(held, generation);
        }
      });
      const firstError = outcomes.find((outcome) => !outcome.ok)?.error;
      if (firstError !== undefined) {
        this.#logger.warn(
          { aclId: knoc.aclId, backendType: knoc.backendType, error: firstError, generation },
          'cannot apply entries',
        );
      }
    }
    return results;
  }
}
