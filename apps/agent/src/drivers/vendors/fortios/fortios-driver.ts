import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed, succeeded } from '../../outcomes.js';
import { FortiosClient, type FortiosFamily } from './fortios-client.js';
import {
  type VendorDriverOptions,
  clientTuning,
  parseEntries,
  removeAllListed,
  requiredSecret,
  requiredText,
} from '../../vendor-driver-kit.js';
import { logFailedEntries } from '../../vendor-outcome.js';

export type FortiosDriverOptions = VendorDriverOptions;

/** The default object name prefix (the spec's, and Knocknoc's). */
export const DEFAULT_FORTIOS_PREFIX = 'kk_';

/** What a knoc's configuration resolves to. */
interface FortiosTarget {
  client: FortiosClient;
  prefix: string;
  group: string;
  /** The serial-queue key: one writer at a time per backend, VDOM and group. */
  key: string;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], FortiosFamily>> = { inet: 'ipv4', inet6: 'ipv6' };

/**
 * FortiGate address groups through the REST API (VENDORS.md 1.1). Each granted address is an address
 * object named `<Prefix><address>` (`kk_203.0.113.7`, `kk_2001:db8::7`, `kk_10.0.0.0/24`) and a member
 * of the knoc's group (`Name`; IPv6 addresses go to the `addrgrp6` group of the same name), in the
 * backend's VDOM. Only names with the prefix are Postern's: `list` and `flush` never see or touch
 * anything else.
 *
 * apply = create the object + add the membership (already a member is fine) + read the membership
 * back: an entry is ok only when the FortiGate shows it. The group and Postern's address objects are
 * read once first, so addresses the group already holds cost nothing more. An object that already
 * exists under Postern's name counts only when it opens exactly the granted address (its subnet or
 * ip6 is read, never trusted by name): otherwise the grant fails and the object leaves the group. remove = delete the membership (absent is
 * fine); the address object is kept for reuse, as Knocknoc does, because another knoc's group may
 * still use it. FortiOS keeps no timers: the agent's own expiry removes entries.
 *
 * Writes to one group run one call at a time (FortiOS serialises configuration changes; VENDORS
 * recommends at most one or two in flight per device).
 */
export class FortiosDriver implements Driver<'fortios'> {
  readonly type = 'fortios' as const;
  readonly #options: FortiosDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<FortiosClient>();
  readonly #queue = new KeyedSerialQueue();

  constructor(options: FortiosDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'fortios'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    return this.#queue.run(target.key, async () => {
      for (const family of ['ipv4', 'ipv6'] as const) {
        const batch = [...addresses].filter(([, address]) => FAMILY[address.family] === family);
        if (batch.length === 0) continue;
        const members = await target.client.groupMembers(family, target.group);
        const present = new Set(members ?? []);
        const objects =
          members === null
            ? new Map<string, string | null>()
            : await target.client.addressObjects(family, target.prefix);
        for (const [index, address] of batch) {
          const ip = entries[index]?.ip ?? address.canonical;
          if (members === null) {
            outcomes[index] = failed(ip, missingGroup(target.group, family));
            continue;
          }
          const name = `${target.prefix}${address.canonical}`;
          const opened = objects.get(name);
          // An object under Postern's name that opens anything but this address was not made by
          // Postern (or was changed since): never Granted through it, and out of the group it goes.
          if (opened !== undefined && opened !== address.cidr) {
            outcomes[index] = await this.#refuseForeignContent(target, family, name, opened, address, ip, present);
            continue;
          }
          // The group read above is the read-back for an address it already holds.
          if (present.has(name)) continue;
          outcomes[index] = await this.#applyOne(target, family, name, address, ip, opened === undefined);
          if (outcomes[index].ok) present.add(name);
        }
      }
      logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
      return outcomes;
    });
  }

  async remove(knoc: AgentKnocOf<'fortios'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    return this.#queue.run(target.key, async () => {
      for (const [index, address] of addresses) {
        const ip = entries[index]?.ip ?? address.canonical;
        const name = `${target.prefix}${address.canonical}`;
        try {
          const result = await target.client.deleteMember(FAMILY[address.family], target.group, name);
          if (result.error !== '') outcomes[index] = failed(ip, result.error);
        } catch (error) {
          outcomes[index] = failed(ip, errorMessage(error));
        }
      }
      logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
      return outcomes;
    });
  }

  async list(knoc: AgentKnocOf<'fortios'>): Promise<string[]> {
    const target = this.#target(knoc);
    return this.#queue.run(target.key, async () => {
      const held = new Set<string>();
      for (const family of ['ipv4', 'ipv6'] as const) {
        const members = (await target.client.groupMembers(family, target.group)) ?? [];
        const ours = members.filter((name) => name.startsWith(target.prefix));
        const objects =
          ours.length === 0
            ? new Map<string, string | null>()
            : await target.client.addressObjects(family, target.prefix);
        for (const name of ours) {
          const address = parseAddress(name.slice(target.prefix.length));
          // Only a name this driver would have written counts as Postern's, and only while its object
          // opens exactly that address: drift repair then re-applies (and refuses) any other.
          if (address === null || `${target.prefix}${address.canonical}` !== name) continue;
          if (objects.get(name) === address.cidr) held.add(address.canonical);
        }
      }
      return [...held];
    });
  }

  async flush(knoc: AgentKnocOf<'fortios'>): Promise<void> {
    await removeAllListed(this, knoc);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    this.#clients.closeAll();
  }

  /**
   * An object named as Postern's for `address` opens `opened` instead (0.0.0.0/0, a range, another
   * address): the grant fails, and the object leaves the knoc's group if it is in it, so the group
   * opens no more than Postern's grants. The object itself is not Postern's to change or delete.
   */
  async #refuseForeignContent(
    target: FortiosTarget,
    family: FortiosFamily,
    name: string,
    opened: string | null,
    address: ParsedAddress,
    ip: string,
    present: Set<string>,
  ): Promise<EntryOutcome> {
    const what = opened === null ? 'something other than one address or network' : opened;
    let removal = '';
    if (present.has(name)) {
      try {
        const removed = await target.client.deleteMember(family, target.group, name);
        removal = removed.error === '' ? `; it was taken out of address group ${target.group}` : `; ${removed.error}`;
        if (removed.error === '') present.delete(name);
      } catch (error) {
        removal = `; ${errorMessage(error)}`;
      }
    }
    return failed(
      ip,
      `fortios: address object ${name} exists but opens ${what}, not ${address.cidr}: Postern grants only through objects that open exactly the granted address; correct or delete it on the FortiGate${removal}`,
    );
  }

  /** One address the group does not hold yet: object (unless `create` is false: it exists, checked), membership, read-back. */
  async #applyOne(
    target: FortiosTarget,
    family: FortiosFamily,
    name: string,
    address: ParsedAddress,
    ip: string,
    create: boolean,
  ): Promise<EntryOutcome> {
    try {
      if (create) {
        const created = await target.client.createAddress(family, name, address.cidr);
        if (created.error !== '') return failed(ip, created.error);
        // Made by someone else since the table was read: trusted only for what it opens.
        if (created.outcome === 'alreadyPresent') {
          const opened = (await target.client.addressObjects(family, target.prefix)).get(name);
          if (opened !== address.cidr) {
            return await this.#refuseForeignContent(target, family, name, opened ?? null, address, ip, new Set());
          }
        }
      }
      const added = await target.client.addMember(family, target.group, name);
      if (added.error !== '') return failed(ip, added.error);
      if (!(await target.client.hasMember(family, target.group, name))) {
        return failed(
          ip,
          `fortios: ${name} was added to address group ${target.group} but is not there when read back`,
        );
      }
      return succeeded(ip);
    } catch (error) {
      return failed(ip, errorMessage(error));
    }
  }

  /** The knoc's client, prefix and group; throws when the configuration cannot work at all. */
  #target(knoc: AgentKnocOf<'fortios'>): FortiosTarget {
    const { Url, Bearer, Insecure, VDOM } = knoc.backend;
    const prefix = (knoc.backend.Prefix ?? DEFAULT_FORTIOS_PREFIX).trim();
    const url = requiredText(Url, 'fortios: the backend has no Url');
    const bearer = requiredSecret(Bearer, 'fortios: the backend has no Bearer token');
    const group = requiredText(knoc.acl.Name, `fortios: knoc ${knoc.aclId} names no address group (Name)`);
    // Without a prefix every object in the group would look like Postern's, and flush would empty it.
    if (prefix === '')
      throw new Error('fortios: the backend Prefix must not be empty: it marks the objects Postern owns');
    const vdom = (VDOM ?? '').trim();
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      return new FortiosClient({
        url,
        insecure: Insecure === true,
        token: bearer,
        vdom,
        logger: this.#logger,
        ...clientTuning(this.#options),
      });
    });
    return { client, prefix, group, key: JSON.stringify([knoc.backendId, vdom, group]) };
  }
}

function missingGroup(group: string, family: FortiosFamily): string {
  return `fortios: address group ${group} does not exist${family === 'ipv6' ? ' as an IPv6 group (addrgrp6)' : ''} on the FortiGate`;
}
