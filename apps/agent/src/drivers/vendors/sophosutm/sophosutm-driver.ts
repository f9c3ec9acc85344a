import type { AgentKnocOf } from '@postern/protocol';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import { addressOfName, type AddressGroup, type CreateResult, type GroupShare } from '../../kit/address-group.js';
import { AddressGroupDriver } from '../../kit/address-group-driver.js';
import type { BatchItem } from '../../kit/entry-batch.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { errorMessage } from '../../outcomes.js';
import { removeUnusedObjects } from '../../kit/remove-unused.js';
import { SophosUtmClient, type UtmGroup, type UtmObject, type UtmObjectKind } from './sophosutm-client.js';

export type SophosUtmDriverOptions = VendorDriverOptions;

/** The name prefix marking Postern's objects (the spec's, and Knocknoc's); UTM backends have no Prefix field. */
export const SOPHOS_UTM_PREFIX = 'kk_';

/** The key is one writer per backend (see the class comment), which also serialises each group. */
interface UtmTarget extends VendorTarget<SophosUtmClient> {
  group: string;
}

/** One of Postern's objects: its reference, kind, and what it opens (see {@link openedBy}). */
interface OwnedObject {
  ref: string;
  kind: UtmObjectKind;
  opened: string | null;
}

/**
 * Sophos UTM 9 network groups through restd (VENDORS.md 1.5). Each granted address is a network
 * object named `kk_<address>` (a `network/host` for one address, a `network/network` for a prefix;
 * IPv4 in `address`, IPv6 in `address6`) and a member of the knoc's group (`GroupReference`, the
 * group's `_ref`; UTM groups hold both families). Only objects named so, and opening exactly the
 * address their name says, are Postern's: `list` and `flush` never see or touch any other member.
 *
 * The group's `members` is one array of references replaced as a whole, with no conditional write,
 * so the shared address-group routine (kit/address-group.ts) makes every change a read-modify-write:
 * read the group and Postern's objects, create the missing objects, write the member list once, read
 * the group back. remove = write the list without the objects, read back, then delete each object no
 * other group uses. All of it runs one backend call at a time: besides the group, the objects are
 * shared by every group of the UTM, and an object must not be deleted while another group's grant
 * adds it.
 */
export class SophosUtmDriver extends AddressGroupDriver<'sophosutm', SophosUtmClient, UtmTarget> {
  readonly type = 'sophosutm' as const;

  /** UTM groups hold both families: one read-modify-write for the whole call. */
  protected groups(target: UtmTarget, items: readonly BatchItem[]): GroupShare[] {
    return [[this.#group(target), items]];
  }

  protected listedGroups(target: UtmTarget): AddressGroup[] {
    return [this.#group(target)];
  }

  /**
   * The knoc's group as the address-group routine sees it, by object names: the UTM's members are
   * references, so the last group read and Postern's objects are kept for this one change.
   */
  #group(target: UtmTarget): AddressGroup {
    const { client, group: groupRef } = target;
    let current: UtmGroup | null = null;
    let owned: Map<string, OwnedObject> | undefined;
    const ownedObjects = async (fresh: boolean) =>
      (owned = fresh || owned === undefined ? await readOwned(client) : owned);
    const refOf = (name: string) => owned?.get(name)?.ref;
    return {
      vendor: this.type,
      label: `network group ${groupRef}`,
      objectKind: 'network object',
      device: 'the UTM',
      prefix: SOPHOS_UTM_PREFIX,
      missing: `sophosutm: network group ${groupRef} does not exist on the UTM (GroupReference is the group's _ref, REF_…)`,
      members: async () => {
        current = await client.group(groupRef);
        if (current === null) return null;
        await ownedObjects(false);
        // One lookup table per read, not a scan of Postern's objects per member.
        const nameByRef = new Map([...(owned ?? [])].map(([name, object]) => [object.ref, name]));
        return current.members.map((ref) => nameByRef.get(ref) ?? ref);
      },
      objects: async (fresh) =>
        new Map([...(await ownedObjects(fresh))].map(([name, object]) => [name, object.opened])),
      create: async (items) => {
        const results: CreateResult[] = [];
        for (const { address } of items) {
          const name = `${SOPHOS_UTM_PREFIX}${address.canonical}`;
          const kind: UtmObjectKind = address.isHost ? 'host' : 'network';
          try {
            const ref = await client.create(kind, objectBody(name, address), `network ${kind} ${name}`);
            owned?.set(name, { ref, kind, opened: address.cidr });
            results.push({ created: true });
          } catch (error) {
            results.push({ error: errorMessage(error) });
          }
        }
        return results;
      },
      writeMembers: async ({ add, remove }) => {
        const before = current?.members ?? [];
        const leaving = new Set(remove.map(refOf));
        const members = [...before.filter((ref) => !leaving.has(ref))];
        for (const name of add) {
          const ref = refOf(name);
          if (ref !== undefined && !members.includes(ref)) members.push(ref);
        }
        try {
          await client.setMembers(groupRef, members);
          return new Map();
        } catch (error) {
          return new Map([...add, ...remove].map((name) => [name, errorMessage(error)]));
        }
      },
      leftGroup: (names) =>
        this.#deleteUnused(
          client,
          names.flatMap((name) => owned?.get(name) ?? []),
        ),
    };
  }

  /** Deletes the objects that left the group when no other group still holds them; failures are only logged. */
  async #deleteUnused(client: SophosUtmClient, leaving: readonly OwnedObject[]): Promise<void> {
    const kinds = new Map(leaving.map((object) => [object.ref, object.kind]));
    await removeUnusedObjects({
      leaving: [...kinds.keys()],
      groupMembers: async () => (await client.groups()).map((group) => group.members),
      remove: async (unused) => {
        for (const ref of unused) await client.delete(kinds.get(ref) ?? 'host', ref);
      },
      logger: this.logger,
      failure: 'sophosutm could not delete an unused network object',
    });
  }

  /** The knoc's client and group; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'sophosutm'>): UtmTarget {
    const { Hostname, Insecure, ApiKey } = knoc.backend;
    const hostname = requiredText(Hostname, 'sophosutm: the backend has no Hostname');
    const apiKey = requiredSecret(ApiKey, 'sophosutm: the backend has no ApiKey');
    const group = requiredText(
      knoc.acl.GroupReference,
      `sophosutm: knoc ${knoc.aclId} names no network group (GroupReference)`,
    );
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new SophosUtmClient({
          hostname,
          insecure: Insecure === true,
          apiKey,
          logger: this.logger,
          ...clientTuning(this.options),
        }),
    );
    return { client, group, key: knoc.backendId };
  }
}

/** Postern's host and network objects by name (only names this driver writes, first one wins). */
async function readOwned(client: SophosUtmClient): Promise<Map<string, OwnedObject>> {
  const owned = new Map<string, OwnedObject>();
  for (const kind of ['host', 'network'] as const) {
    for (const object of await client.objects(kind)) {
      const address = addressOfName(SOPHOS_UTM_PREFIX, object.name);
      if (address !== null && !owned.has(object.name))
        owned.set(object.name, { ref: object._ref, kind, opened: openedBy(object, kind, address.family) });
    }
  }
  return owned;
}

/**
 * What an object opens, canonical with its prefix length, in the family its name says (UTM objects
 * carry both `address` and `address6`); null when that field is not an address.
 */
function openedBy(object: UtmObject, kind: UtmObjectKind, family: ParsedAddress['family']): string | null {
  const v6 = family === 'inet6';
  const address = v6 ? object.address6 : object.address;
  if (typeof address !== 'string') return null;
  if (kind === 'host') return parseAddress(address)?.cidr ?? null;
  const netmask = v6 ? object.netmask6 : object.netmask;
  return typeof netmask === 'number' ? (parseAddress(`${address}/${netmask}`)?.cidr ?? null) : null;
}

/** A host: `address` or `address6`; a network: the same plus `netmask` / `netmask6` (the prefix length). */
function objectBody(name: string, address: ParsedAddress): Record<string, unknown> {
  const v6 = address.family === 'inet6';
  const body: Record<string, unknown> = { name, comment: 'Postern', [v6 ? 'address6' : 'address']: address.address };
  if (!address.isHost) body[v6 ? 'netmask6' : 'netmask'] = address.prefix;
  return body;
}
