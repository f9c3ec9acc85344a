import type { Logger } from 'pino';
import type { AgentKnoc, ApplyMessage, DesiredEntry, EntryResult, StateMessage } from '@postern/protocol';
import type { DriverEntry, DriverSet } from '../drivers/driver.js';
import type { Clock } from './clock.js';
import { callDriver, errorMessage, KnocBatches } from './driver-calls.js';
import { entryKey, type EntryStore, type HeldEntry } from './entry-store.js';
import { canonicalAddress } from '../drivers/addresses.js';
import type { StateFileContent } from './state-file.js';

/** Failed removals are retried after 5 s, doubling to at most 5 minutes. */
const REMOVE_RETRY_FIRST_MS = 5_000;
const REMOVE_RETRY_MAX_MS = 300_000;

/** A removal request: a held entry, or an address the agent does not hold but the device might. */
interface Removal {
  aclId: string;
  ip: string;
  userName: string;
  knoc: AgentKnoc;
  held: HeldEntry | undefined;
  /** The tombstone's generation once removed. */
  generation: number;
}

interface Addition {
  entry: DesiredEntry;
  knoc: AgentKnoc;
}

/**
 * Turns the server's messages, local expiry and the state file into driver calls, and records the
 * outcome in the {@link EntryStore}. One driver call per knoc and action; removals before additions,
 * so a knoc whose configuration changed is emptied under the old one before it is filled under the
 * new one. Callers run these methods one at a time (see SerialQueue).
 *
 * Staleness rules (the protocol's generations):
 * - an `apply` at generation G changes an entry only when G is newer than the generation at which
 *   the entry last changed (added, refreshed or removed; removals leave a tombstone), and is ignored
 *   as a whole when a `state` at G or later was applied, since that state already included it;
 * - a `state` at G is ignored when a newer state was applied; otherwise it is the whole truth for
 *   every entry last changed at G or earlier: listed entries are added or refreshed, the others
 *   removed, and tombstones up to G are dropped. Entries changed by a newer `apply` keep that change.
 * An operation skipped as stale has no outcome: it is not listed in the result.
 */
export class Reconciler {
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

  /** Converges to a whole desired state; `receivedAtMs` (monotonic) is when the ttls were current. */
  async applyState(message: StateMessage, receivedAtMs: number): Promise<EntryResult[]> {
    const store = this.#store;
    const generation = message.generation;
    if (generation < store.stateGeneration) {
      this.#logger.warn(
        { generation, appliedStateGeneration: store.stateGeneration },
        'ignoring a desired state older than one already applied (was the server restored from a backup?)',
      );
      return [];
    }

    const knocs = this.#desiredKnocs(message.knocs);
    const desired = new Map<string, DesiredEntry>();
    for (const entry of message.entries) desired.set(entryKey(entry.aclId, entry.ip), entry);

    const removals: Removal[] = [];
    for (const [key, held] of store.entries) {
      if (held.generation > generation) continue;
      const knoc = knocs.get(held.aclId);
      if (!desired.has(key) || knoc !== held.knoc) removals.push(removalOf(held, generation));
    }
    const results: EntryResult[] = [];
    const additions: Addition[] = [];
    for (const entry of desired.values()) {
      const last = store.lastChange(entry.aclId, entry.ip);
      if (last !== undefined && last > generation) continue;
      const knoc = knocs.get(entry.aclId);
      if (knoc === undefined) results.push(failed(entry, 'add', 'the knoc is not among the knocs sent to this agent'));
      else additions.push({ entry, knoc });
    }

    const dropped = new Set<AgentKnoc>();
    for (const knoc of store.knocs.values()) if (!knocs.has(knoc.aclId)) dropped.add(knoc);
    for (const removal of removals) if (!knocs.has(removal.aclId)) dropped.add(removal.knoc);

    store.knocs = knocs;
    results.push(...(await this.#remove(removals)));
    await this.#flushDropped(dropped, generation);
    await this.#configureDrivers(knocs);
    await this.#removeDeviceExtras(knocs, desired, generation);
    results.push(...(await this.#add(additions, generation, receivedAtMs)));
    store.dropTombstonesUpTo(generation);
    store.advance(generation, true);
    this.#logger.info(
      { generation, knocs: knocs.size, entries: desired.size, held: store.entries.size },
      'applied the desired state',
    );
    return results;
  }

  /**
   * Tells each driver the knocs it serves now, so it can prepare before the first grant (knocproxy
   * opens its listeners and answers strangers with its 403 page). A failure is the driver's own
   * business: it is logged and the entries are still applied.
   */
  async #configureDrivers(knocs: ReadonlyMap<string, AgentKnoc>): Promise<void> {
    for (const [type, driver] of this.#drivers) {
      if (driver.configure === undefined) continue;
      const own = [...knocs.values()].filter((knoc) => knoc.backendType === type);
      try {
        await driver.configure(own);
      } catch (error) {
        this.#logger.warn(
          { type, error: error instanceof Error ? error.message : String(error) },
          'a driver could not prepare its knocs',
        );
      }
    }
  }

  /** Applies incremental changes. */
  async applyIncrement(message: ApplyMessage, receivedAtMs: number): Promise<EntryResult[]> {
    const store = this.#store;
    const generation = message.generation;
    if (generation <= store.stateGeneration) {
      this.#logger.info(
        { generation, appliedStateGeneration: store.stateGeneration },
        'ignoring changes that a newer desired state already included',
      );
      return [];
    }
    const isNewer = (aclId: string, ip: string) => {
      const last = store.lastChange(aclId, ip);
      return last === undefined || last < generation;
    };

    const results: EntryResult[] = [];
    const removals: Removal[] = [];
    for (const key of message.remove) {
      if (!isNewer(key.aclId, key.ip)) continue;
      const held = store.entries.get(entryKey(key.aclId, key.ip));
      if (held !== undefined) {
        removals.push(removalOf(held, generation));
        continue;
      }
      // Not held here, but the device may still have it (a lost state file): remove it anyway.
      const knoc = store.knocs.get(key.aclId);
      if (knoc !== undefined) {
        removals.push({ aclId: key.aclId, ip: key.ip, userName: '', knoc, held: undefined, generation });
      } else {
        store.removed(key.aclId, key.ip, generation);
        results.push({ aclId: key.aclId, ip: key.ip, action: 'remove', ok: true, error: '' });
      }
    }
    const additions: Addition[] = [];
    for (const entry of message.add) {
      if (!isNewer(entry.aclId, entry.ip)) continue;
      const knoc = store.knocs.get(entry.aclId);
      if (knoc === undefined) results.push(failed(entry, 'add', 'the knoc is not among the knocs sent to this agent'));
      else additions.push({ entry, knoc });
    }

    results.push(...(await this.#remove(removals)));
    results.push(...(await this.#add(additions, generation, receivedAtMs)));
    store.advance(generation, false);
    return results;
  }

  /**
   * Removes every entry whose own deadline has passed: expired grants, and removals being retried.
   * Runs whether or not the server is reachable. Returns the outcomes, to report when connected.
   */
  async expireDue(): Promise<EntryResult[]> {
    const due = this.#store.takeDue(this.#clock.monotonicMs());
    if (due.length === 0) return [];
    const expired = due.filter((entry) => !entry.removing).length;
    if (expired > 0) this.#logger.info({ count: expired }, 'removing expired entries');
    return this.#remove(due.map((held) => removalOf(held, held.generation)));
  }

  /**
   * Puts back what the state file says, before any server connection: unexpired entries are applied
   * again with their remaining time (a reboot emptied the kernel sets), expired ones and unfinished
   * removals are removed. An entry whose re-apply fails is still held, so its timer removes it on time.
   */
  async restore(content: StateFileContent): Promise<void> {
    const store = this.#store;
    const nowWall = this.#clock.wallMs();
    const nowMs = this.#clock.monotonicMs();
    store.generation = content.generation;
    store.stateGeneration = content.stateGeneration;
    for (const tombstone of content.tombstones) store.removed(tombstone.aclId, tombstone.ip, tombstone.generation);

    const reapply = new KnocBatches<DriverEntry>();
    const removals: Removal[] = [];
    const knocs = new Map<string, AgentKnoc>();
    for (const stored of content.entries) {
      const knoc = content.knocs[stored.knoc];
      if (knoc === undefined) continue;
      const remainingMs = stored.expiresAt - nowWall;
      if (stored.removing || remainingMs <= 0) {
        const { aclId, ip, userName, generation } = stored;
        removals.push({ aclId, ip, userName, knoc, held: undefined, generation });
        continue;
      }
      knocs.set(knoc.aclId, knoc);
      store.hold({
        aclId: stored.aclId,
        ip: stored.ip,
        userName: stored.userName,
        knoc,
        deadlineMs: nowMs + remainingMs,
        generation: stored.generation,
      });
      reapply.add(knoc, { ip: stored.ip, ttlSeconds: Math.ceil(remainingMs / 1000), userName: stored.userName });
    }
    store.knocs = knocs;

    const removed = await this.#remove(removals);
    let restored = 0;
    let failures = 0;
    for (const [knoc, entries] of reapply) {
      const outcomes = await callDriver(this.#drivers, 'apply', knoc, entries);
      for (const outcome of outcomes) {
        if (outcome.ok) restored++;
        else failures++;
      }
      const firstError = outcomes.find((outcome) => !outcome.ok)?.error;
      if (firstError !== undefined) {
        this.#logger.warn(
          { aclId: knoc.aclId, backendType: knoc.backendType, error: firstError },
          'cannot re-apply entries from the state file; they are still removed at their expiry',
        );
      }
    }
    if (content.entries.length > 0) {
      this.#logger.info(
        { restored, failedToRestore: failures, removed: removed.filter((result) => result.ok).length },
        'restored entries from the state file',
      );
    }
  }

  /** The message's knocs, keeping the held configuration object where it did not change. */
  #desiredKnocs(list: readonly AgentKnoc[]): Map<string, AgentKnoc> {
    const knocs = new Map<string, AgentKnoc>();
    for (const knoc of list) {
      const current = this.#store.knocs.get(knoc.aclId);
      knocs.set(knoc.aclId, current !== undefined && sameKnoc(current, knoc) ? current : knoc);
    }
    // Held entries may refer to a configuration that left `store.knocs` earlier; reuse it when equal.
    for (const held of this.#store.entries.values()) {
      const knoc = knocs.get(held.aclId);
      if (knoc !== undefined && knoc !== held.knoc && sameKnoc(knoc, held.knoc)) knocs.set(held.aclId, held.knoc);
    }
    return knocs;
  }

  async #remove(removals: readonly Removal[]): Promise<EntryResult[]> {
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

  async #add(additions: readonly Addition[], generation: number, receivedAtMs: number): Promise<EntryResult[]> {
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

  /**
   * Flushes knocs the desired state no longer lists (deleted, or moved to another agent), after their
   * held entries were removed one by one: this drops what a lost state file forgot and lets a driver
   * release the knoc (knocproxy stops its listener). A knoc that a newer `apply` still holds entries
   * on is left alone. A knoc sharing a device set with a listed one is refilled by the additions that
   * follow.
   */
  async #flushDropped(dropped: ReadonlySet<AgentKnoc>, generation: number): Promise<void> {
    for (const knoc of dropped) {
      const driver = this.#drivers.get(knoc.backendType);
      if (driver === undefined) continue;
      const stillHeld = [...this.#store.entries.values()].some(
        (held) => held.aclId === knoc.aclId && held.generation > generation,
      );
      if (stillHeld) continue;
      try {
        await driver.flush(knoc);
      } catch (error) {
        this.#logger.warn(
          { aclId: knoc.aclId, backendType: knoc.backendType, error: errorMessage(error) },
          'cannot flush a knoc that is no longer sent to this agent',
        );
      }
    }
  }

  /**
   * Removes addresses a listed knoc's device holds but nobody granted: left there by a crash between
   * a driver call and the state file write, or by a lost state file. Addresses desired or held on any
   * knoc of the same backend type are spared, because two knocs may share one device set. A driver
   * that cannot list (or a listing that fails) is skipped; entries it missed expire on the device.
   */
  async #removeDeviceExtras(
    knocs: ReadonlyMap<string, AgentKnoc>,
    desired: ReadonlyMap<string, DesiredEntry>,
    generation: number,
  ): Promise<void> {
    const spared = new Map<string, Set<string>>();
    const spare = (type: string, ip: string) => {
      const set = spared.get(type) ?? new Set<string>();
      // Devices list a network by its network address (10.0.0.5/24 shows as 10.0.0.0/24), which is
      // the canonical spelling too.
      set.add(canonicalAddress(ip));
      spared.set(type, set);
    };
    for (const entry of desired.values()) {
      const knoc = knocs.get(entry.aclId);
      if (knoc !== undefined) spare(knoc.backendType, entry.ip);
    }
    for (const held of this.#store.entries.values()) spare(held.knoc.backendType, held.ip);

    for (const knoc of knocs.values()) {
      const driver = this.#drivers.get(knoc.backendType);
      if (driver === undefined) continue;
      let listed: string[];
      try {
        listed = await driver.list(knoc);
      } catch (error) {
        this.#logger.warn(
          { aclId: knoc.aclId, backendType: knoc.backendType, error: errorMessage(error) },
          'cannot list the device to reconcile; skipping',
        );
        continue;
      }
      const keep = spared.get(knoc.backendType) ?? new Set<string>();
      const extras = listed.filter((ip) => !keep.has(canonicalAddress(ip)));
      if (extras.length === 0) continue;
      const outcomes = await callDriver(
        this.#drivers,
        'remove',
        knoc,
        extras.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
      );
      this.#logger.info(
        {
          aclId: knoc.aclId,
          backendType: knoc.backendType,
          removed: outcomes.filter((outcome) => outcome.ok).length,
          failed: outcomes.filter((outcome) => !outcome.ok).length,
          generation,
        },
        'removed addresses the device held without a grant',
      );
    }
  }
}

function removalOf(held: HeldEntry, generation: number): Removal {
  return { aclId: held.aclId, ip: held.ip, userName: held.userName, knoc: held.knoc, held, generation };
}

function failed(entry: DesiredEntry, action: 'add' | 'remove', error: string): EntryResult {
  return { aclId: entry.aclId, ip: entry.ip, action, ok: false, error };
}

/** Whether two knoc configurations drive the device identically (compared field by field, key order aside). */
export function sameKnoc(a: AgentKnoc, b: AgentKnoc): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : inner,
  );
}
