import type { AgentKnocOf } from '@postern/protocol';
import type { ParsedAddress } from '../../addresses.js';
import { CoalescingRunner } from '../../kit/coalescing-runner.js';
import type { AddressGroup, GroupShare } from '../../kit/address-group.js';
import { AddressGroupDriver } from '../../kit/address-group-driver.js';
import type { BatchItem, EntryBatch } from '../../kit/entry-batch.js';
import { sharesByFamily } from '../../kit/families.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { errorMessage } from '../../outcomes.js';
import { FortimanagerClient, type ChangeResult, type FmgFamily } from './fortimanager-client.js';

export interface FortimanagerDriverOptions extends VendorDriverOptions {
  /** How often an install task is polled (tests: 0). */
  pollMs?: number;
}

/** The object name prefix (the FortiManager backend has no Prefix field: Knocknoc's default). */
export const FORTIMANAGER_PREFIX = 'kk_';
/** The ADOM when the knoc's Name does not name one. */
export const DEFAULT_ADOM = 'root';

/** The key is one writer at a time per backend and ADOM (an ADOM lock covers the whole ADOM), as are installs. */
interface FmgTarget extends VendorTarget<FortimanagerClient> {
  adom: string;
  group: string;
  key: string;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], FmgFamily>> = { inet: 'ipv4', inet6: 'ipv6' };

/**
 * FortiManager ADOM objects through JSON-RPC (VENDORS.md 1.2, its "ADOM objects + install" mode).
 * The knoc's `Name` is the address group, in ADOM `root`, or `<ADOM>/<group>` (the part before the
 * first `/` is the ADOM). Each granted address is an ADOM address object `kk_<address>` and a member
 * of that group (IPv6 in the `addrgrp6` of the same name); only names with the prefix, whose object
 * opens exactly that address, are Postern's.
 *
 * The change is the shared address-group routine (kit/address-group.ts): read the group and
 * Postern's objects (what each opens), create the missing objects (already exists is fine) and add
 * them as members in one call each (one param per address: one bad address fails alone), read the
 * group back; then install. remove = delete the memberships (absent is fine; objects kept for
 * reuse), read back, install. In workspace mode the writes are wrapped in the ADOM's lock, commit
 * and unlock; a lock held by an administrator is reported as such.
 *
 * Install: the change reaches the FortiGates only when the ADOM's policy packages are installed.
 * After a change every package of the ADOM that is installed somewhere is installed again on its own
 * scope, and the task polled until done. Installs run one at a time per backend and ADOM and coalesce
 * (changes made while one runs go out with the next), so a burst of grants costs one or two installs.
 * An install also pushes other pending changes of those packages: that is the price of this mode, and
 * why VENDORS prefers a passive+ feed through the FortiManager (not built here). A failed install
 * fails the entries ("in the ADOM but not installed") and is tried again on the next call.
 */
export class FortimanagerDriver extends AddressGroupDriver<
  'fortimanager',
  FortimanagerClient,
  FmgTarget,
  FortimanagerDriverOptions
> {
  readonly type = 'fortimanager' as const;
  readonly #installers = new Map<string, CoalescingRunner>();
  /** Backends and ADOMs whose last install failed: installed again on the next call. */
  readonly #uninstalled = new Set<string>();
  readonly #workspace = new Map<FortimanagerClient, boolean>();

  protected groups(target: FmgTarget, items: readonly BatchItem[]): GroupShare[] {
    return sharesByFamily(items, (family) => this.#group(target, FAMILY[family]));
  }

  protected listedGroups(target: FmgTarget): AddressGroup[] {
    return [this.#group(target, 'ipv4'), this.#group(target, 'ipv6')];
  }

  protected override async add(target: FmgTarget, batch: EntryBatch): Promise<boolean> {
    return this.#inWorkspace(target, () => super.add(target, batch));
  }

  protected override async delete(target: FmgTarget, batch: EntryBatch): Promise<boolean> {
    return this.#inWorkspace(target, () => super.delete(target, batch));
  }

  /** Installs the ADOM's packages (coalesced) after a change, or when the last install failed. */
  protected override async afterChange(target: FmgTarget, batch: EntryBatch, changed: boolean): Promise<void> {
    if (!changed && !this.#uninstalled.has(target.key)) return;
    let installer = this.#installers.get(target.key);
    if (installer === undefined) {
      installer = new CoalescingRunner();
      this.#installers.set(target.key, installer);
    }
    try {
      const packages = await installer.run(async () => {
        const list = await target.client.installedPackages(target.adom);
        for (const pkg of list) await target.client.installPackage(target.adom, pkg.name, pkg.scope);
        return list.length;
      });
      this.#uninstalled.delete(target.key);
      this.logger.info({ adom: target.adom, packages }, 'fortimanager policy packages installed');
    } catch (error) {
      this.#uninstalled.add(target.key);
      batch.failPending(
        batch.items,
        `fortimanager: the change is in ADOM ${target.adom} but not installed: ${errorMessage(error)}`,
      );
    }
  }

  protected override async idle(): Promise<void> {
    await Promise.allSettled([...this.#installers.values()].map((installer) => installer.idle()));
  }

  /** Runs `change` inside the ADOM's workspace lock when the FortiManager uses workspaces; true when it wrote. */
  async #inWorkspace(target: FmgTarget, change: () => Promise<boolean>): Promise<boolean> {
    const { client, adom } = target;
    const workspace = await this.#workspaceMode(client);
    if (workspace) await client.workspace(adom, 'lock');
    try {
      const changed = await change();
      if (workspace && changed) await client.workspace(adom, 'commit');
      return changed;
    } finally {
      if (workspace) await client.workspace(adom, 'unlock').catch(() => undefined);
    }
  }

  /** One family's group in the ADOM, as the address-group routine sees it. */
  #group(target: FmgTarget, family: FmgFamily): AddressGroup {
    const { client, adom, group } = target;
    const errorsOf = (names: readonly string[], results: readonly ChangeResult[]) =>
      new Map(
        names.flatMap((name, i): [string, string][] => {
          const error = results[i]?.error ?? 'no answer';
          return error === '' ? [] : [[name, error]];
        }),
      );
    return {
      vendor: this.type,
      label: `address group ${group}`,
      objectKind: 'address object',
      device: 'the FortiManager',
      prefix: FORTIMANAGER_PREFIX,
      // FortiManager, like FortiOS, keeps an address group from being empty with the built-in `none`.
      placeholder: 'none',
      missing: `fortimanager: address group ${group} does not exist${family === 'ipv6' ? ' as an IPv6 group (addrgrp6)' : ''} in the ADOM`,
      members: () => client.groupMembers(family, adom, group),
      objects: () => client.addressObjects(family, adom, FORTIMANAGER_PREFIX),
      create: async (items) => {
        const results = await client.createAddresses(
          family,
          adom,
          items.map(({ address }) => ({
            name: `${FORTIMANAGER_PREFIX}${address.canonical}`,
            address: address.address,
            prefix: address.prefix,
          })),
        );
        return items.map((_, i) => {
          const result = results[i];
          if (result === undefined) return { error: 'fortimanager: no answer for creating the address object' };
          if (result.error !== '') return { error: result.error };
          return result.outcome === 'alreadyPresent' ? { exists: true } : { created: true };
        });
      },
      writeMembers: async ({ add, remove }) => {
        const errors = new Map<string, string>();
        if (add.length > 0)
          for (const [name, error] of errorsOf(add, await client.addMembers(family, adom, group, add)))
            errors.set(name, error);
        if (remove.length > 0)
          for (const [name, error] of errorsOf(remove, await client.deleteMembers(family, adom, group, remove)))
            errors.set(name, error);
        return errors;
      },
    };
  }

  async #workspaceMode(client: FortimanagerClient): Promise<boolean> {
    const known = this.#workspace.get(client);
    if (known !== undefined) return known;
    const mode = await client.workspaceMode();
    this.#workspace.set(client, mode);
    return mode;
  }

  /** The knoc's client, ADOM and group; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'fortimanager'>): FmgTarget {
    const { Hostname, Insecure, ApiKey } = knoc.backend;
    const name = (knoc.acl.Name ?? '').trim();
    const hostname = requiredText(Hostname, 'fortimanager: the backend has no Hostname');
    const apiKey = requiredSecret(ApiKey, 'fortimanager: the backend has no ApiKey');
    const slash = name.indexOf('/');
    const adom = slash < 0 ? DEFAULT_ADOM : name.slice(0, slash).trim();
    const group = slash < 0 ? name : name.slice(slash + 1).trim();
    if (group === '' || adom === '')
      throw new Error(`fortimanager: knoc ${knoc.aclId} names no address group (Name: <group> or <ADOM>/<group>)`);
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new FortimanagerClient({
          hostname,
          insecure: Insecure === true,
          apiKey,
          logger: this.logger,
          ...clientTuning(this.options),
          ...(this.options.pollMs === undefined ? {} : { pollMs: this.options.pollMs }),
        }),
    );
    return { client, adom, group, key: JSON.stringify([knoc.backendId, adom]) };
  }
}
