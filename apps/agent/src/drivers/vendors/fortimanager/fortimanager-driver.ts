import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import { CoalescingRunner } from '../../coalescing-runner.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed, succeeded } from '../../outcomes.js';
import { FortimanagerClient, type FmgFamily } from './fortimanager-client.js';
import { type VendorDriverOptions, clientTuning, requiredSecret, requiredText } from '../../vendor-driver-kit.js';
import { logFailedEntries } from '../../vendor-outcome.js';

export interface FortimanagerDriverOptions extends VendorDriverOptions {
  /** How often an install task is polled (tests: 0). */
  pollMs?: number;
}

/** The object name prefix (the FortiManager backend has no Prefix field: Knocknoc's default). */
export const FORTIMANAGER_PREFIX = 'kk_';
/** The ADOM when the knoc's Name does not name one. */
export const DEFAULT_ADOM = 'root';

interface FmgTarget {
  client: FortimanagerClient;
  adom: string;
  group: string;
  /** One writer at a time per backend and ADOM (an ADOM lock covers the whole ADOM). */
  key: string;
  installKey: string;
}

interface Item {
  index: number;
  ip: string;
  address: ParsedAddress;
  name: string;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], FmgFamily>> = { inet: 'ipv4', inet6: 'ipv6' };

/**
 * FortiManager ADOM objects through JSON-RPC (VENDORS.md 1.2, its "ADOM objects + install" mode).
 * The knoc's `Name` is the address group, in ADOM `root`, or `<ADOM>/<group>` (the part before the
 * first `/` is the ADOM). Each granted address is an ADOM address object `kk_<address>` and a member
 * of that group (IPv6 in the `addrgrp6` of the same name); only names with the prefix are Postern's.
 *
 * apply = read the group, create the missing objects (already exists is fine) and add them as members
 * in one call each (one param per address: one bad address fails alone), read the group back (an
 * entry is ok only when it is a member), then install. remove = delete the memberships (absent is
 * fine; objects kept for reuse), read back, install. In workspace mode the writes are wrapped in the
 * ADOM's lock, commit and unlock; a lock held by an administrator is reported as such.
 *
 * Install: the change reaches the FortiGates only when the ADOM's policy packages are installed.
 * After a change every package of the ADOM that is installed somewhere is installed again on its own
 * scope, and the task polled until done. Installs run one at a time per backend and ADOM and coalesce
 * (changes made while one runs go out with the next), so a burst of grants costs one or two installs.
 * An install also pushes other pending changes of those packages: that is the price of this mode, and
 * why VENDORS prefers a passive+ feed through the FortiManager (not built here). A failed install
 * fails the entries ("in the ADOM but not installed") and is tried again on the next call.
 */
export class FortimanagerDriver implements Driver<'fortimanager'> {
  readonly type = 'fortimanager' as const;
  readonly #options: FortimanagerDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<FortimanagerClient>();
  readonly #queue = new KeyedSerialQueue();
  readonly #installers = new Map<string, CoalescingRunner>();
  readonly #uninstalled = new Set<string>();
  readonly #workspace = new Map<FortimanagerClient, boolean>();

  constructor(options: FortimanagerDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'fortimanager'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, items } = parseEntries(entries);
    if (items.length === 0) return outcomes;
    const changed = await this.#queue.run(target.key, () =>
      this.#write(target, items, outcomes, async (family, batch) => {
        const members = await target.client.groupMembers(family, target.adom, target.group);
        if (members === null) {
          for (const item of batch) outcomes[item.index] = failed(item.ip, missingGroup(target.group, family));
          return false;
        }
        const present = new Set(members);
        const missing = batch.filter((item) => !present.has(item.name));
        if (missing.length === 0) return false;
        const created = await target.client.createAddresses(
          family,
          target.adom,
          missing.map((item) => ({ name: item.name, address: item.address.address, prefix: item.address.prefix })),
        );
        const ready = missing.filter((item, i) => {
          const error = created[i]?.error ?? 'no answer';
          if (error !== '') outcomes[item.index] = failed(item.ip, error);
          return error === '';
        });
        if (ready.length === 0) return false;
        const added = await target.client.addMembers(
          family,
          target.adom,
          target.group,
          ready.map((item) => item.name),
        );
        ready.forEach((item, i) => {
          const error = added[i]?.error ?? 'no answer';
          if (error !== '') outcomes[item.index] = failed(item.ip, error);
        });
        await this.#readBack(target, family, ready, outcomes, true);
        return true;
      }),
    );
    await this.#installIfNeeded(target, changed, items, outcomes);
    logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
    return outcomes;
  }

  async remove(knoc: AgentKnocOf<'fortimanager'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, items } = parseEntries(entries);
    if (items.length === 0) return outcomes;
    const changed = await this.#queue.run(target.key, () =>
      this.#write(target, items, outcomes, async (family, batch) => {
        const members = await target.client.groupMembers(family, target.adom, target.group);
        // No group: nothing of Postern's can be in it.
        if (members === null) return false;
        const present = batch.filter((item) => members.includes(item.name));
        if (present.length === 0) return false;
        const deleted = await target.client.deleteMembers(
          family,
          target.adom,
          target.group,
          present.map((item) => item.name),
        );
        present.forEach((item, i) => {
          const error = deleted[i]?.error ?? 'no answer';
          if (error !== '') outcomes[item.index] = failed(item.ip, error);
        });
        await this.#readBack(target, family, present, outcomes, false);
        return true;
      }),
    );
    await this.#installIfNeeded(target, changed, items, outcomes);
    logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
    return outcomes;
  }

  async list(knoc: AgentKnocOf<'fortimanager'>): Promise<string[]> {
    const target = this.#target(knoc);
    return this.#queue.run(target.key, async () => {
      const held = new Set<string>();
      for (const family of ['ipv4', 'ipv6'] as const) {
        for (const name of (await target.client.groupMembers(family, target.adom, target.group)) ?? []) {
          if (!name.startsWith(FORTIMANAGER_PREFIX)) continue;
          const address = parseAddress(name.slice(FORTIMANAGER_PREFIX.length));
          // Only a name this driver would have written counts as Postern's.
          if (address !== null && objectName(address) === name) held.add(address.canonical);
        }
      }
      return [...held];
    });
  }

  async flush(knoc: AgentKnocOf<'fortimanager'>): Promise<void> {
    const held = await this.list(knoc);
    if (held.length === 0) return;
    const outcomes = await this.remove(
      knoc,
      held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`fortimanager: could not remove ${failure.ip}: ${failure.error}`);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    await Promise.allSettled([...this.#installers.values()].map((installer) => installer.idle()));
    this.#clients.closeAll();
  }

  /**
   * Runs `change` per family inside the ADOM's workspace lock when the FortiManager uses workspaces;
   * a failure that is not per entry fails the family's entries. True when anything was written.
   */
  async #write(
    target: FmgTarget,
    items: readonly Item[],
    outcomes: EntryOutcome[],
    change: (family: FmgFamily, batch: Item[]) => Promise<boolean>,
  ): Promise<boolean> {
    let workspace: boolean;
    try {
      workspace = await this.#workspaceMode(target.client);
      if (workspace) await target.client.workspace(target.adom, 'lock');
    } catch (error) {
      for (const item of items) outcomes[item.index] = failed(item.ip, errorMessage(error));
      return false;
    }
    let changed = false;
    try {
      for (const family of ['ipv4', 'ipv6'] as const) {
        const batch = items.filter((item) => FAMILY[item.address.family] === family);
        if (batch.length === 0) continue;
        try {
          if (await change(family, batch)) changed = true;
        } catch (error) {
          for (const item of batch) outcomes[item.index] = failed(item.ip, errorMessage(error));
        }
      }
      if (workspace && changed) await target.client.workspace(target.adom, 'commit');
    } catch (error) {
      for (const item of items)
        if (outcomes[item.index]?.ok === true) outcomes[item.index] = failed(item.ip, errorMessage(error));
    } finally {
      if (workspace) await target.client.workspace(target.adom, 'unlock').catch(() => undefined);
    }
    return changed;
  }

  /** Marks the items not (or, for a removal, still) members as failed. */
  async #readBack(
    target: FmgTarget,
    family: FmgFamily,
    items: readonly Item[],
    outcomes: EntryOutcome[],
    wanted: boolean,
  ) {
    const pending = items.filter((item) => outcomes[item.index]?.ok === true);
    if (pending.length === 0) return;
    const members = new Set((await target.client.groupMembers(family, target.adom, target.group)) ?? []);
    for (const item of pending) {
      if (members.has(item.name) === wanted) continue;
      outcomes[item.index] = failed(
        item.ip,
        `fortimanager: ${item.name} was ${wanted ? 'added to' : 'removed from'} address group ${target.group} but is ${wanted ? 'not there' : 'still there'} when read back`,
      );
    }
  }

  /** Installs the ADOM's packages (coalesced) after a change, or when the last install failed. */
  async #installIfNeeded(target: FmgTarget, changed: boolean, items: readonly Item[], outcomes: EntryOutcome[]) {
    if (!changed && !this.#uninstalled.has(target.installKey)) return;
    let installer = this.#installers.get(target.installKey);
    if (installer === undefined) {
      installer = new CoalescingRunner();
      this.#installers.set(target.installKey, installer);
    }
    try {
      const packages = await installer.run(async () => {
        const list = await target.client.installedPackages(target.adom);
        for (const pkg of list) await target.client.installPackage(target.adom, pkg.name, pkg.scope);
        return list.length;
      });
      this.#uninstalled.delete(target.installKey);
      this.#logger.info({ adom: target.adom, packages }, 'fortimanager policy packages installed');
    } catch (error) {
      this.#uninstalled.add(target.installKey);
      const message = `fortimanager: the change is in ADOM ${target.adom} but not installed: ${errorMessage(error)}`;
      for (const item of items) if (outcomes[item.index]?.ok === true) outcomes[item.index] = failed(item.ip, message);
    }
  }

  async #workspaceMode(client: FortimanagerClient): Promise<boolean> {
    const known = this.#workspace.get(client);
    if (known !== undefined) return known;
    const mode = await client.workspaceMode();
    this.#workspace.set(client, mode);
    return mode;
  }

  #target(knoc: AgentKnocOf<'fortimanager'>): FmgTarget {
    const { Hostname, Insecure, ApiKey } = knoc.backend;
    const name = (knoc.acl.Name ?? '').trim();
    const hostname = requiredText(Hostname, 'fortimanager: the backend has no Hostname');
    const apiKey = requiredSecret(ApiKey, 'fortimanager: the backend has no ApiKey');
    const slash = name.indexOf('/');
    const adom = slash < 0 ? DEFAULT_ADOM : name.slice(0, slash).trim();
    const group = slash < 0 ? name : name.slice(slash + 1).trim();
    if (group === '' || adom === '')
      throw new Error(`fortimanager: knoc ${knoc.aclId} names no address group (Name: <group> or <ADOM>/<group>)`);
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      return new FortimanagerClient({
        hostname,
        insecure: Insecure === true,
        apiKey,
        logger: this.#logger,
        ...clientTuning(this.#options),
        ...(this.#options.pollMs === undefined ? {} : { pollMs: this.#options.pollMs }),
      });
    });
    const installKey = JSON.stringify([knoc.backendId, adom]);
    return { client, adom, group, key: installKey, installKey };
  }
}

function objectName(address: ParsedAddress): string {
  return `${FORTIMANAGER_PREFIX}${address.canonical}`;
}

function missingGroup(group: string, family: FmgFamily): string {
  return `fortimanager: address group ${group} does not exist${family === 'ipv6' ? ' as an IPv6 group (addrgrp6)' : ''} in the ADOM`;
}

function parseEntries(entries: readonly DriverEntry[]): { outcomes: EntryOutcome[]; items: Item[] } {
  const outcomes = entries.map((entry) => succeeded(entry.ip));
  const items: Item[] = [];
  entries.forEach((entry, index) => {
    const address = parseAddress(entry.ip);
    if (address === null) outcomes[index] = failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
    else items.push({ index, ip: entry.ip, address, name: objectName(address) });
  });
  return { outcomes, items };
}
