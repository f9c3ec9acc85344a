import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { netmaskPrefixLength, parseAddress, type ParsedAddress } from '../../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed } from '../../outcomes.js';
import { removeUnusedObjects } from '../sophos/remove-unused.js';
import { SophosSfosClient, type SfosHost } from './sophossfos-client.js';
import {
  isAlreadyAbsent,
  isAlreadyPresent,
  isDone,
  type SfosEntityStatus,
  type SfosHostContent,
} from './sophossfos-responses.js';
import {
  type VendorDriverOptions,
  clientTuning,
  parseEntries,
  removeAllListed,
  requiredSecret,
  requiredText,
} from '../../vendor-driver-kit.js';
import { logFailedEntries } from '../../vendor-outcome.js';

export type SophosSfosDriverOptions = VendorDriverOptions;

/** The name prefix marking Postern's IP hosts (the spec's, and Knocknoc's); SFOS backends have no Prefix field. */
export const SOPHOS_SFOS_PREFIX = 'kk_';

type Family = 'IPv4' | 'IPv6';

interface SfosTarget {
  client: SophosSfosClient;
  /** The knoc's group per family; '' when the knoc names none (GroupNameV6 is optional). */
  groups: Readonly<Record<Family, string>>;
  key: string;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], Family>> = { inet: 'IPv4', inet6: 'IPv6' };

/**
 * Sophos Firewall (SFOS/XGS) IP host groups through the XML API (VENDORS.md 1.6). Each granted
 * address is an IP host named `kk_<address>` (HostType IP, or Network for a prefix) in the knoc's
 * group: `GroupName` for IPv4, `GroupNameV6` for IPv6 (SFOS groups hold one family). Only hosts named
 * so are Postern's: `list` and `flush` never see or touch any other.
 *
 * A group's `HostList` is replaced as a whole with no conditional write, so every change is
 * read-modify-write: read the group, create the missing hosts in one request ("already exists" is
 * fine), write the host list once, read the group back (an entry is ok only when the read-back holds
 * it). remove = write the list without them, then remove the hosts no other group uses. It all runs
 * one backend call at a time: the hosts are shared by every group of the firewall, and a host must
 * not be removed while another group's grant adds it.
 */
export class SophosSfosDriver implements Driver<'sophossfos'> {
  readonly type = 'sophossfos' as const;
  readonly #options: SophosSfosDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<SophosSfosClient>();
  readonly #queue = new KeyedSerialQueue();

  constructor(options: SophosSfosDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'sophossfos'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    return this.#queue.run(target.key, async () => {
      // One read of Postern's hosts serves both families; read again only when a create finds a host
      // someone else made since.
      let opened: Map<string, string | null> | undefined;
      const hosts: OpenedHosts = async (fresh) => {
        if (fresh || opened === undefined) opened = await openedByHost(target.client);
        return opened;
      };
      for (const family of ['IPv4', 'IPv6'] as const) {
        const batch = [...addresses].filter(([, address]) => FAMILY[address.family] === family);
        if (batch.length > 0) await this.#applyFamily(target, family, batch, entries, outcomes, hosts);
      }
      return logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
    });
  }

  async remove(knoc: AgentKnocOf<'sophossfos'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    return this.#queue.run(target.key, async () => {
      const leaving: string[] = [];
      for (const family of ['IPv4', 'IPv6'] as const) {
        const batch = [...addresses].filter(([, address]) => FAMILY[address.family] === family);
        const groupName = target.groups[family];
        // No group for the family: nothing of it can be held.
        if (batch.length === 0 || groupName === '') continue;
        const fail = (error: string) => {
          for (const [index] of batch) outcomes[index] = failed(entries[index]?.ip ?? '', error);
        };
        try {
          const group = await target.client.group(groupName);
          if (group === null) continue;
          const names = new Set(batch.map(([, address]) => hostName(address)).filter((n) => group.hosts.includes(n)));
          if (names.size === 0) continue;
          const status = await target.client.setHosts(
            group,
            group.hosts.filter((host) => !names.has(host)),
          );
          if (!isDone(status)) fail(statusError(`could not update IP host group ${groupName}`, status));
          else leaving.push(...names);
        } catch (error) {
          fail(errorMessage(error));
        }
      }
      if (leaving.length > 0) await this.#removeUnused(target.client, leaving);
      return logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
    });
  }

  async list(knoc: AgentKnocOf<'sophossfos'>): Promise<string[]> {
    const target = this.#target(knoc);
    return this.#queue.run(target.key, async () => {
      const held = new Set<string>();
      let opened: Map<string, string | null> | undefined;
      for (const family of ['IPv4', 'IPv6'] as const) {
        const groupName = target.groups[family];
        if (groupName === '') continue;
        const ours = ((await target.client.group(groupName))?.hosts ?? []).filter((name) =>
          name.startsWith(SOPHOS_SFOS_PREFIX),
        );
        if (ours.length > 0) opened ??= await openedByHost(target.client);
        for (const name of ours) {
          const address = parseAddress(name.slice(SOPHOS_SFOS_PREFIX.length));
          // Only a name this driver would have written counts as Postern's, and only while its host
          // opens exactly that address: drift repair then re-applies (and refuses) any other.
          if (address === null || hostName(address) !== name) continue;
          if (opened?.get(name) === address.cidr) held.add(address.canonical);
        }
      }
      return [...held];
    });
  }

  async flush(knoc: AgentKnocOf<'sophossfos'>): Promise<void> {
    await removeAllListed(this, knoc);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    this.#clients.closeAll();
  }

  /** One family's entries: read the group, create the missing hosts, write the list once, read back. */
  async #applyFamily(
    target: SfosTarget,
    family: Family,
    batch: readonly (readonly [number, ParsedAddress])[],
    entries: readonly DriverEntry[],
    outcomes: EntryOutcome[],
    hosts: OpenedHosts,
  ): Promise<void> {
    const groupName = target.groups[family];
    const ipOf = (index: number) => entries[index]?.ip ?? '';
    const fail = (indexes: Iterable<number>, error: string) => {
      for (const index of indexes) outcomes[index] = failed(ipOf(index), error);
    };
    if (groupName === '') {
      fail(
        batch.map(([index]) => index),
        'sophossfos: the knoc names no IPv6 group (GroupNameV6), so IPv6 addresses cannot be granted',
      );
      return;
    }
    try {
      const group = await target.client.group(groupName);
      if (group === null) {
        fail(
          batch.map(([index]) => index),
          `sophossfos: IP host group ${groupName} does not exist on the firewall`,
        );
        return;
      }
      // A host under Postern's name that opens anything but its address was not made by Postern (or
      // was changed since): never Granted through it, and it leaves the group below.
      let opened = await hosts(false);
      const impostors = new Set<string>();
      const trusted = batch.filter(([index, address]) => {
        const name = hostName(address);
        const content = opened.get(name);
        if (content === undefined || content === address.cidr) return true;
        fail([index], foreignContent(name, content, address));
        impostors.add(name);
        return false;
      });
      // The group read above is the read-back for the addresses it already holds.
      const missing = trusted.filter(([, address]) => !group.hosts.includes(hostName(address)));
      const toCreate = missing.filter(([, address]) => !opened.has(hostName(address)));
      const statuses = toCreate.length === 0 ? [] : await target.client.addHosts(toCreate.map(([, a]) => hostOf(a)));
      const createdWith = new Map(
        toCreate.map(([index], position) => [index, statuses[position] ?? { code: '', text: 'no status' }]),
      );
      // A host made by someone else since the read ("already exists") is trusted only for what it opens.
      if (statuses.some(isAlreadyPresent)) opened = await hosts(true);
      const created: [number, string][] = [];
      for (const [index, address] of missing) {
        const name = hostName(address);
        const status = createdWith.get(index);
        if (status !== undefined && !isDone(status) && !isAlreadyPresent(status)) {
          fail([index], statusError(`could not create IP host ${name}`, status));
        } else if (opened.has(name) && opened.get(name) !== address.cidr) {
          fail([index], foreignContent(name, opened.get(name) ?? null, address));
        } else {
          created.push([index, name]);
        }
      }
      const kept = group.hosts.filter((host) => !impostors.has(host));
      if (created.length === 0 && kept.length === group.hosts.length) return;
      const status = await target.client.setHosts(group, [...kept, ...created.map(([, name]) => name)]);
      if (!isDone(status)) {
        fail(
          created.map(([index]) => index),
          statusError(`could not update IP host group ${groupName}`, status),
        );
        return;
      }
      const after = (await target.client.group(groupName))?.hosts ?? [];
      for (const [index, name] of created) {
        if (!after.includes(name))
          fail([index], `sophossfos: ${name} was added to IP host group ${groupName} but is not there when read back`);
      }
    } catch (error) {
      // Only entries still counted ok get the call's failure; ones already failed keep their reason.
      fail(
        batch.map(([index]) => index).filter((index) => outcomes[index]?.ok === true),
        errorMessage(error),
      );
    }
  }

  /** Removes the hosts that left a group when no group still holds them; failures are only logged. */
  async #removeUnused(client: SophosSfosClient, names: readonly string[]): Promise<void> {
    await removeUnusedObjects({
      leaving: names,
      groupMembers: async () => (await client.groups()).map((group) => group.hosts),
      remove: async (unused) => {
        const statuses = await client.removeHosts(unused);
        statuses.forEach((status, position) => {
          if (!isDone(status) && !isAlreadyAbsent(status))
            this.#logger.warn(
              { host: unused[position], error: statusError('could not remove the IP host', status) },
              'sophossfos could not remove an unused IP host',
            );
        });
      },
      logger: this.#logger,
      failure: 'sophossfos could not remove unused IP hosts',
    });
  }

  /** The knoc's client and groups; throws when the configuration cannot work at all. */
  #target(knoc: AgentKnocOf<'sophossfos'>): SfosTarget {
    const { Hostname, Insecure, Username, Password } = knoc.backend;
    const v6 = (knoc.acl.GroupNameV6 ?? '').trim();
    const hostname = requiredText(Hostname, 'sophossfos: the backend has no Hostname');
    const username = requiredText(Username, 'sophossfos: the backend has no Username');
    const password = requiredSecret(Password, 'sophossfos: the backend has no Password');
    const v4 = requiredText(knoc.acl.GroupName, `sophossfos: knoc ${knoc.aclId} names no IP host group (GroupName)`);
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      return new SophosSfosClient({
        hostname,
        insecure: Insecure === true,
        username,
        password,
        logger: this.#logger,
        ...clientTuning(this.#options),
      });
    });
    // One writer per backend (see the class comment), which also serialises each group.
    return { client, groups: { IPv4: v4, IPv6: v6 }, key: knoc.backendId };
  }
}

/** Postern's IP hosts and what each opens (see openedByHost); `fresh` reads them again. */
type OpenedHosts = (fresh: boolean) => Promise<Map<string, string | null>>;

/**
 * Postern's IP hosts (named with the prefix) by name, each with the network it opens (canonical,
 * with its prefix length), or null for a host that is not one plain address or network.
 */
async function openedByHost(client: SophosSfosClient): Promise<Map<string, string | null>> {
  const opened = new Map<string, string | null>();
  for (const host of await client.hosts(SOPHOS_SFOS_PREFIX)) {
    if (host.name.startsWith(SOPHOS_SFOS_PREFIX)) opened.set(host.name, openedNetwork(host));
  }
  return opened;
}

/** What an IP host opens ("203.0.113.7/32"), or null when it is not an IP or a Network host. */
function openedNetwork(host: SfosHostContent): string | null {
  if (host.type === 'IP') return parseAddress(host.address)?.cidr ?? null;
  if (host.type !== 'Network') return null;
  const length =
    host.family === 'IPv6'
      ? /^\d{1,3}$/.test(host.subnet)
        ? Number(host.subnet)
        : null
      : netmaskPrefixLength(host.subnet);
  if (length === null) return null;
  return parseAddress(`${host.address}/${length}`)?.cidr ?? null;
}

function foreignContent(name: string, opened: string | null, address: ParsedAddress): string {
  const what = opened === null ? 'something other than one address or network' : opened;
  return `sophossfos: IP host ${name} exists but opens ${what}, not ${address.cidr}: Postern grants only through hosts that open exactly the granted address; correct or delete it on the firewall`;
}

function hostName(address: ParsedAddress): string {
  return `${SOPHOS_SFOS_PREFIX}${address.canonical}`;
}

/** The IP host for an address: HostType IP, or Network with a dotted mask (IPv4) or prefix length (IPv6). */
function hostOf(address: ParsedAddress): SfosHost {
  const family = FAMILY[address.family];
  const base = { name: hostName(address), family, address: address.address };
  if (address.isHost) return { ...base, type: 'IP' };
  return { ...base, type: 'Network', subnet: family === 'IPv4' ? dottedMask(address.prefix) : String(address.prefix) };
}

function dottedMask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

function statusError(what: string, status: SfosEntityStatus): string {
  return `sophossfos: ${what}: ${status.code === '' ? '' : `${status.code} `}${status.text}`.trim();
}
