import { parseAddress, type ParsedAddress } from '../addresses.js';
import type { BatchItem, EntryBatch } from './entry-batch.js';

/** What creating one address object came to: made now, there already, or the device's refusal. */
export type CreateResult = { created: true } | { exists: true } | { error: string };

/**
 * A device group of named address objects, as one change sees it (for vendors that keep one group
 * per family, the group of one family). Postern's objects are named `<prefix><canonical address>`;
 * an object is Postern's only under such a name and only while it opens exactly that address.
 * Implementations may keep what they read between calls of one change (a read of the group's
 * references, say); a new change makes a new one.
 */
export interface AddressGroup {
  /** Messages start with it: "fortios". */
  readonly vendor: string;
  /** How messages name the group: "address group staff", "IP host group Staff". */
  readonly label: string;
  /** How messages name one object: "address object", "IP host". */
  readonly objectKind: string;
  /** How messages name the device: "the FortiGate", "the firewall". */
  readonly device: string;
  /** The marker of Postern's object names. */
  readonly prefix: string;
  /**
   * Optional, for devices whose names cannot hold every address character (FMC allows no `:` or
   * `/`): how Postern names the object of an address, and back; by default `<prefix><canonical>`.
   */
  readonly naming?: {
    name(address: ParsedAddress): string;
    address(name: string): ParsedAddress | null;
  };
  /** The error for every entry when the group does not exist. */
  readonly missing: string;
  /** The names of the group's members (others' included); null when the group does not exist. */
  members(): Promise<readonly string[] | null>;
  /**
   * Postern's objects (names with the prefix) by name, each with what it opens: a canonical CIDR
   * (`203.0.113.7/32`), or null when it is not one plain address or network. `fresh` reads again.
   */
  objects(fresh: boolean): Promise<ReadonlyMap<string, string | null>>;
  /** Creates the objects for the items, one result each in order. */
  create(items: readonly BatchItem[]): Promise<CreateResult[]>;
  /**
   * Changes the membership in as few writes as the device allows (one whole-list write, or a call
   * per name, adding before removing so the group never passes through empty): the error per name
   * it refused; a name not in the answer was written.
   */
  writeMembers(change: { add: readonly string[]; remove: readonly string[] }): Promise<ReadonlyMap<string, string>>;
  /**
   * Optional: a member that opens nothing and keeps the group from being empty (FortiOS's built-in
   * `none`), for devices that refuse an empty group. It joins in the same write when Postern's
   * change would leave the group empty, and stays; it has no prefix, so it never counts as a grant.
   */
  readonly placeholder?: string;
  /** Optional: the objects that have left the group (deleted where no other group uses them). */
  leftGroup?(names: readonly string[]): Promise<void>;
}

/** The name Postern gives the object of an address. */
export function objectName(group: Pick<AddressGroup, 'prefix' | 'naming'>, address: ParsedAddress): string {
  return group.naming?.name(address) ?? `${group.prefix}${address.canonical}`;
}

/** The address a name of Postern's stands for; null for a name this driver would not have written. */
export function addressOfName(prefix: string, name: string): ParsedAddress | null {
  if (!name.startsWith(prefix)) return null;
  const address = parseAddress(name.slice(prefix.length));
  return address !== null && `${prefix}${address.canonical}` === name ? address : null;
}

interface Wanted {
  item: BatchItem;
  name: string;
}

/**
 * Grants the items through the group: read the group, check Postern's objects by content, create
 * the missing ones, write the membership once, read the group back. An entry is ok only when the
 * read-back holds its object and that object opens exactly the granted address: an object under
 * Postern's name that opens more (0.0.0.0/0, a range, another network) was not made by Postern, or
 * was changed since; the entry fails and the object leaves the group. Returns whether the group was
 * written.
 */
export async function addToGroup(
  group: AddressGroup,
  batch: EntryBatch,
  items: readonly BatchItem[],
): Promise<boolean> {
  const members = await group.members();
  if (members === null) {
    batch.fail(items, group.missing);
    return false;
  }
  const present = new Set(members);
  let objects = await group.objects(false);
  /** Postern-named members that open more than their name says: out of the group they go. */
  const refused = new Map<string, { item: BatchItem; error: string }[]>();
  const refuse = (item: BatchItem, name: string, opened: string | null) => {
    const error = foreignContent(group, name, opened, item.address);
    batch.fail([item], error);
    if (present.has(name)) refused.set(name, [...(refused.get(name) ?? []), { item, error }]);
  };
  const wanted: Wanted[] = [];
  const toCreate: Wanted[] = [];
  for (const item of items) {
    const name = objectName(group, item.address);
    const opened = objects.get(name);
    if (opened !== undefined && opened !== item.address.cidr) refuse(item, name, opened);
    // The group read above is the read-back for an address it already holds.
    else if (!present.has(name)) {
      wanted.push({ item, name });
      if (opened === undefined && !toCreate.some((other) => other.name === name)) toCreate.push({ item, name });
    }
  }
  if (toCreate.length > 0) {
    const results = await group.create(toCreate.map(({ item }) => item));
    const foundMade = new Set<string>();
    toCreate.forEach(({ name }, position) => {
      const result = results[position] ?? { error: `${group.vendor}: no answer for creating ${name}` };
      if ('error' in result) batch.fail(sameName(wanted, name), result.error);
      else if ('exists' in result) foundMade.add(name);
    });
    // Made by someone else since the read: trusted only for what it opens.
    if (foundMade.size > 0) {
      objects = await group.objects(true);
      for (const { item, name } of wanted) {
        const opened = objects.get(name) ?? null;
        if (foundMade.has(name) && batch.isOk(item) && opened !== item.address.cidr) refuse(item, name, opened);
      }
    }
  }
  const adding = wanted.filter(({ item }) => batch.isOk(item));
  if (adding.length === 0 && refused.size === 0) return false;
  const errors = await group.writeMembers(
    keepNonEmpty(group, members, { add: unique(adding.map(({ name }) => name)), remove: [...refused.keys()] }),
  );
  for (const { item, name } of adding) {
    const error = errors.get(name);
    if (error !== undefined) batch.fail([item], error);
  }
  for (const [name, refusals] of refused) {
    const error = errors.get(name);
    const taken = error === undefined ? `; it was taken out of ${group.label}` : `; ${error}`;
    for (const refusal of refusals) batch.fail([refusal.item], `${refusal.error}${taken}`);
  }
  const after = new Set((await group.members()) ?? []);
  for (const { item, name } of adding) {
    if (batch.isOk(item) && !after.has(name))
      batch.fail([item], `${group.vendor}: ${name} was added to ${group.label} but is not there when read back`);
  }
  return true;
}

/**
 * Takes the items' objects out of the group (absent is fine), reads the group back (an entry is ok
 * only when its object is gone from it), and hands what left to `leftGroup`. A group that does not
 * exist holds nothing. Returns whether the group was written.
 */
export async function removeFromGroup(
  group: AddressGroup,
  batch: EntryBatch,
  items: readonly BatchItem[],
): Promise<boolean> {
  const members = await group.members();
  if (members === null) return false;
  const present = new Set(members);
  const leaving = items.filter((item) => present.has(objectName(group, item.address)));
  if (leaving.length === 0) return false;
  const names = unique(leaving.map((item) => objectName(group, item.address)));
  const errors = await group.writeMembers(keepNonEmpty(group, members, { add: [], remove: names }));
  for (const item of leaving) {
    const error = errors.get(objectName(group, item.address));
    if (error !== undefined) batch.fail([item], error);
  }
  const after = new Set((await group.members()) ?? []);
  for (const item of batch.pending(leaving)) {
    const name = objectName(group, item.address);
    if (after.has(name))
      batch.fail([item], `${group.vendor}: ${name} was removed from ${group.label} but is still there when read back`);
  }
  const gone = names.filter((name) => !after.has(name));
  if (gone.length > 0 && group.leftGroup !== undefined) await group.leftGroup(gone);
  return true;
}

/**
 * The addresses the group holds through Postern's objects, canonical: members named as Postern
 * names them whose object opens exactly that address. Drift repair re-applies (and so refuses) any
 * other.
 */
export async function heldInGroup(group: AddressGroup): Promise<string[]> {
  const ours: [string, ParsedAddress][] = [];
  for (const name of (await group.members()) ?? []) {
    const address = group.naming === undefined ? addressOfName(group.prefix, name) : group.naming.address(name);
    if (address !== null) ours.push([name, address]);
  }
  if (ours.length === 0) return [];
  const objects = await group.objects(false);
  return unique(ours.filter(([name, address]) => objects.get(name) === address.cidr).map(([, a]) => a.canonical));
}

function foreignContent(group: AddressGroup, name: string, opened: string | null, address: ParsedAddress): string {
  const what = opened === null ? 'something other than one address or network' : opened;
  return `${group.vendor}: ${group.objectKind} ${name} exists but opens ${what}, not ${address.cidr}: Postern grants only through ${group.objectKind}s that open exactly the granted address; correct or delete it on ${group.device}`;
}

/** The change, plus the group's placeholder when the change would leave the group empty. */
function keepNonEmpty(
  group: AddressGroup,
  members: readonly string[],
  change: { add: string[]; remove: string[] },
): { add: string[]; remove: string[] } {
  const leaving = new Set(change.remove);
  const emptied = change.add.length === 0 && members.every((member) => leaving.has(member));
  if (!emptied || group.placeholder === undefined) return change;
  return { add: [group.placeholder], remove: change.remove };
}

function sameName(wanted: readonly Wanted[], name: string): BatchItem[] {
  return wanted.filter((other) => other.name === name).map(({ item }) => item);
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/**
 * A group and the items of a call that go through it (a family's, or all for a group of both). A
 * knoc without a group for the family (SFOS without GroupNameV6) has `{ none: reason }`: a grant
 * fails with the reason, a removal has nothing to take away.
 */
export type GroupShare = readonly [group: AddressGroup | { none: string }, items: readonly BatchItem[]];
