import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed } from '../../outcomes.js';
import { removeUnusedObjects } from '../sophos/remove-unused.js';
import { SophosUtmClient, type UtmObject, type UtmObjectKind } from './sophosutm-client.js';
import {
  type VendorDriverOptions,
  clientTuning,
  parseEntries,
  removeAllListed,
  requiredSecret,
  requiredText,
} from '../../vendor-driver-kit.js';
import { logFailedEntries } from '../../vendor-outcome.js';

export type SophosUtmDriverOptions = VendorDriverOptions;

/** The name prefix marking Postern's objects (the spec's, and Knocknoc's); UTM backends have no Prefix field. */
export const SOPHOS_UTM_PREFIX = 'kk_';

interface UtmTarget {
  client: SophosUtmClient;
  group: string;
  key: string;
}

/** Postern's objects by name: the ones this driver would have written, with their kind. */
type Owned = Map<string, { ref: string; kind: UtmObjectKind }>;

/**
 * Sophos UTM 9 network groups through restd (VENDORS.md 1.5). Each granted address is a network
 * object named `kk_<address>` (a `network/host` for one address, a `network/network` for a prefix;
 * IPv4 in `address`, IPv6 in `address6`) and a member of the knoc's group (`GroupReference`, the
 * group's `_ref`; UTM groups hold both families). Only objects named so are Postern's: `list` and
 * `flush` never see or touch any other member.
 *
 * The group's `members` is one array replaced as a whole, with no conditional write, so every change
 * is read-modify-write: read the group, create the missing objects (found by name first, so a retry
 * makes no duplicate), write the member list once, read the group back (an entry is ok only when the
 * read-back holds it). remove = write the list without the objects, then delete each object no other
 * group uses. All of it runs one backend call at a time: besides the group, the objects are shared
 * by every group of the UTM, and an object must not be deleted while another group's grant adds it.
 */
export class SophosUtmDriver implements Driver<'sophosutm'> {
  readonly type = 'sophosutm' as const;
  readonly #options: SophosUtmDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<SophosUtmClient>();
  readonly #queue = new KeyedSerialQueue();

  constructor(options: SophosUtmDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'sophosutm'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    return this.#queue.run(target.key, async () => {
      const { client, group } = target;
      const before = await client.group(group);
      if (before === null) return failAll(outcomes, addresses, entries, missingGroup(group));
      const owned = await this.#owned(client);
      const members = [...before.members];
      const wanted = new Map<number, string>();
      for (const [index, address] of addresses) {
        const ip = entries[index]?.ip ?? address.canonical;
        const name = objectName(address);
        let ref = owned.get(name)?.ref;
        if (ref === undefined) {
          try {
            const kind = objectKind(address);
            ref = await client.create(kind, objectBody(name, address), `network ${kind} ${name}`);
            owned.set(name, { ref, kind });
          } catch (error) {
            outcomes[index] = failed(ip, errorMessage(error));
            continue;
          }
        }
        wanted.set(index, ref);
        if (!members.includes(ref)) members.push(ref);
      }
      if (wanted.size === 0) return logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
      let after = before;
      try {
        if (members.length !== before.members.length) {
          await client.setMembers(group, members);
          // The read-back: an entry counts only when the UTM shows it in the group.
          after = (await client.group(group)) ?? { ...before, members: [] };
        }
      } catch (error) {
        for (const index of wanted.keys()) outcomes[index] = failed(entries[index]?.ip ?? '', errorMessage(error));
        return logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
      }
      for (const [index, ref] of wanted) {
        if (!after.members.includes(ref)) {
          const address = addresses.get(index);
          const name = address === undefined ? ref : objectName(address);
          outcomes[index] = failed(
            entries[index]?.ip ?? '',
            `sophosutm: ${name} was added to network group ${group} but is not there when read back`,
          );
        }
      }
      return logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
    });
  }

  async remove(knoc: AgentKnocOf<'sophosutm'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    return this.#queue.run(target.key, async () => {
      const { client, group } = target;
      try {
        const before = await client.group(group);
        // A group that is gone holds nothing: every address is absent from it.
        if (before === null) return logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
        const owned = await this.#owned(client);
        const leaving = new Map<string, UtmObjectKind>();
        for (const address of addresses.values()) {
          const object = owned.get(objectName(address));
          if (object !== undefined && before.members.includes(object.ref)) leaving.set(object.ref, object.kind);
        }
        if (leaving.size === 0) return logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
        await client.setMembers(
          group,
          before.members.filter((ref) => !leaving.has(ref)),
        );
        await this.#deleteUnused(client, leaving);
      } catch (error) {
        for (const index of addresses.keys()) outcomes[index] = failed(entries[index]?.ip ?? '', errorMessage(error));
      }
      return logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
    });
  }

  async list(knoc: AgentKnocOf<'sophosutm'>): Promise<string[]> {
    const target = this.#target(knoc);
    return this.#queue.run(target.key, async () => {
      const group = await target.client.group(target.group);
      if (group === null) return [];
      const byRef = new Map([...(await this.#owned(target.client))].map(([name, { ref }]) => [ref, name]));
      const held = new Set<string>();
      for (const ref of group.members) {
        const name = byRef.get(ref);
        if (name !== undefined) held.add(name.slice(SOPHOS_UTM_PREFIX.length));
      }
      return [...held];
    });
  }

  async flush(knoc: AgentKnocOf<'sophosutm'>): Promise<void> {
    await removeAllListed(this, knoc);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    this.#clients.closeAll();
  }

  /** Postern's host and network objects by name (only names this driver writes, first one wins). */
  async #owned(client: SophosUtmClient): Promise<Owned> {
    const owned: Owned = new Map();
    for (const kind of ['host', 'network'] as const) {
      for (const object of await client.objects(kind)) {
        if (isOwnedName(object) && !owned.has(object.name)) owned.set(object.name, { ref: object._ref, kind });
      }
    }
    return owned;
  }

  /** Deletes the objects that left the group when no other group still holds them; failures are only logged. */
  async #deleteUnused(client: SophosUtmClient, leaving: ReadonlyMap<string, UtmObjectKind>): Promise<void> {
    await removeUnusedObjects({
      leaving: [...leaving.keys()],
      groupMembers: async () => (await client.groups()).map((group) => group.members),
      remove: async (unused) => {
        for (const ref of unused) await client.delete(leaving.get(ref) ?? 'host', ref);
      },
      logger: this.#logger,
      failure: 'sophosutm could not delete an unused network object',
    });
  }

  /** The knoc's client and group; throws when the configuration cannot work at all. */
  #target(knoc: AgentKnocOf<'sophosutm'>): UtmTarget {
    const { Hostname, Insecure, ApiKey } = knoc.backend;
    const hostname = requiredText(Hostname, 'sophosutm: the backend has no Hostname');
    const apiKey = requiredSecret(ApiKey, 'sophosutm: the backend has no ApiKey');
    const group = requiredText(
      knoc.acl.GroupReference,
      `sophosutm: knoc ${knoc.aclId} names no network group (GroupReference)`,
    );
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      return new SophosUtmClient({
        hostname,
        insecure: Insecure === true,
        apiKey,
        logger: this.#logger,
        ...clientTuning(this.#options),
      });
    });
    // One writer per backend (see the class comment), which also serialises each group.
    return { client, group, key: knoc.backendId };
  }
}

function objectName(address: ParsedAddress): string {
  return `${SOPHOS_UTM_PREFIX}${address.canonical}`;
}

function objectKind(address: ParsedAddress): UtmObjectKind {
  return address.isHost ? 'host' : 'network';
}

/** A host: `address` or `address6`; a network: the same plus `netmask` / `netmask6` (the prefix length). */
function objectBody(name: string, address: ParsedAddress): Record<string, unknown> {
  const v6 = address.family === 'inet6';
  const body: Record<string, unknown> = { name, comment: 'Postern', [v6 ? 'address6' : 'address']: address.address };
  if (!address.isHost) body[v6 ? 'netmask6' : 'netmask'] = address.prefix;
  return body;
}

/** A name this driver would have written: the prefix and a canonical address. */
function isOwnedName(object: UtmObject): boolean {
  if (!object.name.startsWith(SOPHOS_UTM_PREFIX)) return false;
  const address = parseAddress(object.name.slice(SOPHOS_UTM_PREFIX.length));
  return address !== null && objectName(address) === object.name;
}

function missingGroup(group: string): string {
  return `sophosutm: network group ${group} does not exist on the UTM (GroupReference is the group's _ref, REF_…)`;
}

function failAll(
  outcomes: EntryOutcome[],
  addresses: ReadonlyMap<number, ParsedAddress>,
  entries: readonly DriverEntry[],
  error: string,
): EntryOutcome[] {
  for (const index of addresses.keys()) outcomes[index] = failed(entries[index]?.ip ?? '', error);
  return outcomes;
}
