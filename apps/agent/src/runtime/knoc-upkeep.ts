import type { Logger } from 'pino';
import type { AgentKnoc, DesiredEntry } from '@postern/protocol';
import type { DriverSet } from '../drivers/driver.js';
import { canonicalAddress } from '../drivers/addresses.js';
import { callDriver, errorMessage, withDriverBudget } from './driver-calls.js';
import type { EntryStore } from './entry-store.js';

/**
 * What a `state` does to drivers and devices beyond its entries: tell each driver its knocs, flush
 * knocs no longer listed, and remove device addresses nobody granted. None of it is reported in the
 * result; failures are logged.
 */
export class KnocUpkeep {
  readonly #store: EntryStore;
  readonly #drivers: DriverSet;
  readonly #logger: Logger;

  constructor(options: { store: EntryStore; drivers: DriverSet; logger: Logger }) {
    this.#store = options.store;
    this.#drivers = options.drivers;
    this.#logger = options.logger;
  }

  /**
   * Tells each driver the knocs it serves now, so it can prepare before the first grant (knocproxy
   * opens its listeners and answers strangers with its 403 page). A failure is the driver's own
   * business: it is logged and the entries are still applied.
   */
  async configureDrivers(knocs: ReadonlyMap<string, AgentKnoc>): Promise<void> {
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

  /**
   * Flushes knocs the desired state no longer lists (deleted, or moved to another agent), after their
   * held entries were removed one by one: this drops what a lost state file forgot and lets a driver
   * release the knoc (knocproxy stops its listener). A knoc that a newer `apply` still holds entries
   * on is left alone. A knoc sharing a device set with a listed one is refilled by the additions that
   * follow.
   */
  async flushDropped(dropped: ReadonlySet<AgentKnoc>, generation: number): Promise<void> {
    for (const knoc of dropped) {
      const driver = this.#drivers.get(knoc.backendType);
      if (driver === undefined) continue;
      const stillHeld = [...this.#store.entries.values()].some(
        (held) => held.aclId === knoc.aclId && held.generation > generation,
      );
      if (stillHeld) continue;
      try {
        await withDriverBudget(() => driver.flush(knoc));
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
  async removeDeviceExtras(
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
        listed = await withDriverBudget(() => driver.list(knoc));
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
