import type { AgentKnocOf } from '@postern/protocol';
import { netmaskPrefixLength, parseAddress, type ParsedAddress } from '../../addresses.js';
import type { AddressGroup, GroupShare } from '../../kit/address-group.js';
import { AddressGroupDriver } from '../../kit/address-group-driver.js';
import type { BatchItem } from '../../kit/entry-batch.js';
import { sharesByFamily } from '../../kit/families.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { removeUnusedObjects } from '../../kit/remove-unused.js';
import { SophosSfosClient, type SfosHost } from './sophossfos-client.js';
import {
  isAlreadyAbsent,
  isAlreadyPresent,
  isDone,
  type SfosEntityStatus,
  type SfosGroup,
  type SfosHostContent,
} from './sophossfos-responses.js';

export type SophosSfosDriverOptions = VendorDriverOptions;

/** The name prefix marking Postern's IP hosts (the spec's, and Knocknoc's); SFOS backends have no Prefix field. */
export const SOPHOS_SFOS_PREFIX = 'kk_';

type Family = 'IPv4' | 'IPv6';

/** The key is one writer per backend (see the class comment), which also serialises each group. */
interface SfosTarget extends VendorTarget<SophosSfosClient> {
  /** The knoc's group per family; '' when the knoc names none (GroupNameV6 is optional). */
  groups: Readonly<Record<Family, string>>;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], Family>> = { inet: 'IPv4', inet6: 'IPv6' };

/** Postern's IP hosts and what each opens, read at most once per call unless asked `fresh`. */
type OpenedHosts = (fresh: boolean) => Promise<Map<string, string | null>>;

/**
 * Sophos Firewall (SFOS/XGS) IP host groups through the XML API (VENDORS.md 1.6). Each granted
 * address is an IP host named `kk_<address>` (HostType IP, or Network for a prefix) in the knoc's
 * group: `GroupName` for IPv4, `GroupNameV6` for IPv6 (SFOS groups hold one family). Only hosts named
 * so, and opening exactly the address their name says, are Postern's: `list` and `flush` never see or
 * touch any other.
 *
 * A group's `HostList` is replaced as a whole with no conditional write, so the shared address-group
 * routine (kit/address-group.ts) makes every change a read-modify-write: read the group and Postern's
 * hosts (one read serves both families), create the missing hosts in one request ("already exists"
 * is fine; each host's status by `transactionid`, so one refused host fails alone), write the host
 * list once, read the group back. remove = write the list without them, read back, then remove the
 * hosts no other group uses. It all runs one backend call at a time: the hosts are shared by every
 * group of the firewall, and a host must not be removed while another group's grant adds it.
 */
export class SophosSfosDriver extends AddressGroupDriver<'sophossfos', SophosSfosClient, SfosTarget> {
  readonly type = 'sophossfos' as const;

  protected groups(target: SfosTarget, items: readonly BatchItem[]): GroupShare[] {
    const hosts = openedHostsOnce(target.client);
    return sharesByFamily(items, (family) =>
      target.groups[FAMILY[family]] === ''
        ? { none: 'sophossfos: the knoc names no IPv6 group (GroupNameV6), so IPv6 addresses cannot be granted' }
        : this.#group(target, FAMILY[family], hosts),
    );
  }

  protected listedGroups(target: SfosTarget): AddressGroup[] {
    const hosts = openedHostsOnce(target.client);
    return (['IPv4', 'IPv6'] as const)
      .filter((family) => target.groups[family] !== '')
      .map((family) => this.#group(target, family, hosts));
  }

  /** One family's IP host group as the address-group routine sees it; the last group read is kept for the write. */
  #group(target: SfosTarget, family: Family, hosts: OpenedHosts): AddressGroup {
    const { client } = target;
    const groupName = target.groups[family];
    let current: SfosGroup | null = null;
    return {
      vendor: this.type,
      label: `IP host group ${groupName}`,
      objectKind: 'IP host',
      device: 'the firewall',
      prefix: SOPHOS_SFOS_PREFIX,
      missing: `sophossfos: IP host group ${groupName} does not exist on the firewall`,
      members: async () => {
        current = await client.group(groupName);
        return current?.hosts ?? null;
      },
      objects: hosts,
      create: async (items: readonly BatchItem[]) => {
        const statuses = await client.addHosts(items.map(({ address }) => hostOf(address)));
        return items.map(({ address }, position) => {
          const status = statuses[position] ?? { code: '', text: 'no status' };
          if (isAlreadyPresent(status)) return { exists: true };
          if (isDone(status)) return { created: true };
          return { error: statusError(`could not create IP host ${hostName(address)}`, status) };
        });
      },
      writeMembers: async ({ add, remove }) => {
        // members() has read the group first (the routine writes only after reading it).
        const group = current;
        if (group === null) throw new Error(`sophossfos: IP host group ${groupName} was not read before the write`);
        const leaving = new Set(remove);
        const kept = group.hosts.filter((host) => !leaving.has(host));
        const status = await client.setHosts(group, [...kept, ...add.filter((name) => !kept.includes(name))]);
        if (isDone(status)) return new Map();
        const error = statusError(`could not update IP host group ${groupName}`, status);
        return new Map([...add, ...remove].map((name) => [name, error]));
      },
      leftGroup: (names) => this.#removeUnused(client, names),
    };
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
            this.logger.warn(
              { host: unused[position], error: statusError('could not remove the IP host', status) },
              'sophossfos could not remove an unused IP host',
            );
        });
      },
      logger: this.logger,
      failure: 'sophossfos could not remove unused IP hosts',
    });
  }

  /** The knoc's client and groups; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'sophossfos'>): SfosTarget {
    const { Hostname, Insecure, Username, Password } = knoc.backend;
    const v6 = (knoc.acl.GroupNameV6 ?? '').trim();
    const hostname = requiredText(Hostname, 'sophossfos: the backend has no Hostname');
    const username = requiredText(Username, 'sophossfos: the backend has no Username');
    const password = requiredSecret(Password, 'sophossfos: the backend has no Password');
    const v4 = requiredText(knoc.acl.GroupName, `sophossfos: knoc ${knoc.aclId} names no IP host group (GroupName)`);
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new SophosSfosClient({
          hostname,
          insecure: Insecure === true,
          username,
          password,
          logger: this.logger,
          ...clientTuning(this.options),
        }),
    );
    return { client, groups: { IPv4: v4, IPv6: v6 }, key: knoc.backendId };
  }
}

/** One read of Postern's hosts for a whole call (both families); `fresh` reads again. */
function openedHostsOnce(client: SophosSfosClient): OpenedHosts {
  let opened: Map<string, string | null> | undefined;
  return async (fresh) => (opened = fresh || opened === undefined ? await openedByHost(client) : opened);
}

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
