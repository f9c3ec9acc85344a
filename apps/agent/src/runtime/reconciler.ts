import type { Logger } from 'pino';
import type { AgentKnoc, ApplyMessage, DesiredEntry, EntryResult, StateMessage } from '@postern/protocol';
import type { DriverEntry, DriverSet } from '../drivers/driver.js';
import type { Clock } from './clock.js';
import { callDriver, KnocBatches } from './driver-calls.js';
import { repairDrift, type DriftReport } from './drift-repair.js';
import { canonicalAddress } from '../drivers/addresses.js';
import { RAISE_TOLERANCE_MS } from './deadline-rule.js';
import { EntryChanges, removalOf, type Addition, type EntryChangesOptions, type Removal } from './entry-changes.js';
import { entryKey, type EntryStore } from './entry-store.js';
import { desiredKnocs } from './knoc-config.js';
import { KnocUpkeep } from './knoc-upkeep.js';
import type { StateFileContent } from './state-file.js';

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
  readonly #changes: EntryChanges;
  readonly #upkeep: KnocUpkeep;

  constructor(options: EntryChangesOptions) {
    this.#store = options.store;
    this.#drivers = options.drivers;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#changes = new EntryChanges(options);
    this.#upkeep = new KnocUpkeep(options);
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

    const knocs = desiredKnocs(store, message.knocs);
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
    // This state is the whole truth up to its generation: a retry of an entry it does not list ends.
    this.#changes.retries?.retain(
      (pending) =>
        pending.generation > generation ||
        (desired.has(entryKey(pending.entry.aclId, pending.entry.ip)) && knocs.has(pending.entry.aclId)),
    );
    results.push(...(await this.#changes.remove(removals)));
    await this.#upkeep.flushDropped(dropped, generation);
    await this.#upkeep.configureDrivers(knocs);
    await this.#upkeep.removeDeviceExtras(knocs, desired, generation);
    results.push(...(await this.#changes.add(additions, generation, receivedAtMs, true)));
    store.dropTombstonesUpTo(generation);
    store.advance(generation, true);
    this.#logger.info(
      { generation, knocs: knocs.size, entries: desired.size, held: store.entries.size },
      'applied the desired state',
    );
    return results;
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
      this.#changes.retries?.cancel(key.aclId, key.ip);
      const held = store.entries.get(entryKey(key.aclId, key.ip));
      if (held !== undefined) {
        removals.push(removalOf(held, generation));
        continue;
      }
      // Not held here, but the device may still have it (a lost state file): remove it anyway.
      const knoc = store.knocs.get(key.aclId);
      if (knoc !== undefined) {
        removals.push({ aclId: key.aclId, ip: key.ip, userName: '', knoc, generation });
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

    results.push(...(await this.#changes.remove(removals)));
    results.push(...(await this.#changes.add(additions, generation, receivedAtMs)));
    store.advance(generation, false);
    return results;
  }

  /** Failed applies waiting for a retry (apply-retries.ts); null when retries are off. */
  get retries(): EntryChanges['retries'] {
    return this.#changes.retries;
  }

  /** Stops retrying failed applies (shutdown): their timers are cleared. */
  stopRetries(): void {
    this.#changes.retries?.stop();
  }

  /**
   * Puts the devices back to what the agent holds (see drift-repair.ts). Runs on a period, whether
   * or not the server is reachable; a desired state does the same for its knocs on every connect.
   */
  async repairDrift(): Promise<DriftReport> {
    return repairDrift({ store: this.#store, drivers: this.#drivers, clock: this.#clock, logger: this.#logger });
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
    return this.#changes.remove(due.map((held) => removalOf(held, held.generation)));
  }

  /**
   * Puts back what the state file says, before any server connection: unexpired entries are applied
   * again with their remaining time (a reboot emptied the kernel sets), expired ones and removals
   * not confirmed are removed (never put back). An entry the device still has with a shorter timeout
   * keeps the device's (the wall clock was set back while the agent was down). An entry whose
   * re-apply fails is still held, so its timer removes it on time.
   */
  async restore(content: StateFileContent): Promise<void> {
    const store = this.#store;
    const nowWall = this.#clock.wallMs();
    const nowMs = this.#clock.monotonicMs();
    store.generation = content.generation;
    store.stateGeneration = content.stateGeneration;
    for (const tombstone of content.tombstones) store.removed(tombstone.aclId, tombstone.ip, tombstone.generation);

    const live = new KnocBatches<StateFileContent['entries'][number]>();
    const removals: Removal[] = [];
    const knocs = new Map<string, AgentKnoc>();
    for (const stored of content.entries) {
      const knoc = content.knocs[stored.knoc];
      if (knoc === undefined) continue;
      if (stored.removing || stored.expiresAt <= nowWall) {
        const { aclId, ip, userName, generation } = stored;
        removals.push({ aclId, ip, userName, knoc, generation });
        continue;
      }
      knocs.set(knoc.aclId, knoc);
      live.add(knoc, stored);
    }
    store.knocs = knocs;

    const reapply = new KnocBatches<DriverEntry>();
    for (const [knoc, entries] of live) {
      const onDevice = await this.#changes.deviceDeadlines(knoc);
      for (const stored of entries) {
        const fromFileMs = nowMs + (stored.expiresAt - nowWall);
        const deviceMs = onDevice.get(canonicalAddress(stored.ip));
        const deadlineMs = deviceMs === undefined ? fromFileMs : Math.min(fromFileMs, deviceMs);
        const refused = fromFileMs - deadlineMs > RAISE_TOLERANCE_MS;
        if (refused) this.#changes.raiseRefused(knoc, stored.ip, fromFileMs - deadlineMs, undefined, 'state file');
        store.hold({
          aclId: stored.aclId,
          ip: stored.ip,
          userName: stored.userName,
          knoc,
          deadlineMs,
          endsAt: stored.endsAt,
          raiseRefused: refused,
          generation: stored.generation,
        });
        reapply.add(knoc, {
          ip: stored.ip,
          ttlSeconds: Math.max(1, Math.ceil((deadlineMs - nowMs) / 1000)),
          userName: stored.userName,
        });
      }
    }

    const removed = await this.#changes.remove(removals);
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
}

function failed(entry: DesiredEntry, action: 'add' | 'remove', error: string): EntryResult {
  return { aclId: entry.aclId, ip: entry.ip, action, ok: false, error };
}
