import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { AddressGroup, CreateResult } from '../../kit/address-group.js';
import type { AddressObjectType, FirepowerClient } from './firepower-client.js';
import {
  writableNetworkGroup,
  type FmcAddressObject,
  type FmcNetworkGroup,
  type FmcObjectRef,
} from './firepower-responses.js';

/**
 * Postern's marker in a network group (VENDORS.md 1.4, legacy mode). A literal has no name or
 * description, so nothing tells Postern's literals from an admin's: Postern therefore puts each
 * address in the group as a named Host (one address) or Network (a prefix) object `kk_<address>`,
 * and owns only the group's members that are such objects whose value is the address their name
 * says. Literals and every other object stay the admin's.
 */
export const POSTERN_PREFIX = 'kk_';

/**
 * FMC refuses an empty network group, so the last address cannot simply be taken out: Postern puts
 * this Host object in instead. 192.0.2.255 is in TEST-NET-1 (RFC 5737, documentation only, never
 * routed), so it lets nobody in; it is never counted as a grant.
 */
export const PLACEHOLDER = { name: `${POSTERN_PREFIX}placeholder`, type: 'Host', value: '192.0.2.255' } as const;

/**
 * The object name for a canonical address. FMC object names are at most 64 characters of
 * `[A-Za-z0-9_.+-]` (Cisco's FMC data model), so `:` becomes `-` and `/` becomes `_`:
 * `kk_203.0.113.7`, `kk_10.1.0.0_16`, `kk_2001-db8--7`.
 */
export function objectName(value: string): string {
  return `${POSTERN_PREFIX}${value.replaceAll(':', '-').replace('/', '_')}`;
}

/** The address an object name of Postern's stands for; null for a name {@link objectName} would not give. */
export function addressOfObjectName(name: string): ParsedAddress | null {
  if (!name.startsWith(POSTERN_PREFIX)) return null;
  const address = parseAddress(name.slice(POSTERN_PREFIX.length).replaceAll('-', ':').replace('_', '/'));
  return address !== null && objectName(address.canonical) === name ? address : null;
}

/** A prefix is a Network object, one address a Host. */
export function objectType(value: string): AddressObjectType {
  return value.includes('/') ? 'Network' : 'Host';
}

/** FMC's spelling of an address as Postern's canonical one (unparsable values kept as they are). */
export function canonical(value: string): string {
  return parseAddress(value.trim())?.canonical ?? value;
}

/** What an object opens, as a canonical CIDR; null when its value is not one address or network. */
function openedBy(object: FmcAddressObject): string | null {
  return parseAddress(object.value.trim())?.cidr ?? null;
}

/** A member reference for a group PUT. */
function memberRef(object: FmcAddressObject): FmcObjectRef {
  return { id: object.id, type: object.type, name: object.name };
}

/** How a literal counts among the members: never a name FMC allows (a space), so never Postern's. */
function literalMember(value: string): string {
  return `literal ${value}`;
}

/**
 * The knoc's network group as the address-group routine (kit/address-group.ts) sees it, for one
 * change. FMC members are references by id: the group last read and Postern's objects (listed by
 * prefix, plus any member the listing missed, read by id) are kept for this change. The members are
 * the objects' names and the literals (so that the placeholder joins only when nothing at all would
 * be left); a membership change is one PUT of the whole group with its writable fields only (FMC has
 * no partial update and refuses `links` and `metadata`).
 */
export function fmcNetworkGroup(client: FirepowerClient, uuid: string): AddressGroup {
  let group: FmcNetworkGroup | null = null;
  /** Postern's objects (names with the prefix) by name, and by id. */
  let byName: Map<string, FmcAddressObject> | undefined;
  const byId = new Map<string, FmcAddressObject>();
  /** The names of members the listing missed, as reading them by id gave (a reference's own name may be stale). */
  const readNames = new Map<string, string>();
  const remember = (object: FmcAddressObject) => {
    if (!object.name.startsWith(POSTERN_PREFIX)) return;
    byName?.set(object.name, object);
    byId.set(object.id, object);
  };
  const objects = async (fresh: boolean): Promise<Map<string, FmcAddressObject>> => {
    if (byName !== undefined && !fresh) return byName;
    // A fresh read lists every host and network: an object FMC says exists may be one the prefix
    // filter missed.
    const listed = await client.addressObjects(fresh ? null : POSTERN_PREFIX);
    byName = new Map();
    byId.clear();
    for (const object of listed) if (!byName.has(object.name)) remember(object);
    return byName;
  };
  const nameOf = (ref: FmcObjectRef) => byId.get(ref.id)?.name ?? readNames.get(ref.id) ?? ref.name ?? ref.id;
  /** Postern's object of a name in the group, created first for the placeholder; a message when it cannot be. */
  const member = async (name: string): Promise<FmcAddressObject | string> => {
    const object = (await objects(false)).get(name);
    if (name !== PLACEHOLDER.name) return object ?? `firepower: object ${name} is not on the FMC`;
    const placeholder = object ?? (await createPlaceholder());
    if (typeof placeholder === 'string' || canonical(placeholder.value) === PLACEHOLDER.value) return placeholder;
    return `object ${PLACEHOLDER.name} on the FMC opens ${placeholder.value}, not ${PLACEHOLDER.value}: delete or rename it on the FMC`;
  };
  const createPlaceholder = async (): Promise<FmcAddressObject | string> => {
    const { name, type, value } = PLACEHOLDER;
    const made = await client.createAddressObject(type, name, value);
    if ('id' in made) {
      const object = { id: made.id, name, type, value };
      remember(object);
      return object;
    }
    if (made.outcome !== 'alreadyPresent') return made.error;
    return (
      (await objects(true)).get(name) ??
      `firepower: FMC says object ${name} exists, but it is not among its hosts or networks`
    );
  };
  return {
    vendor: 'firepower',
    label: `network group ${uuid}`,
    objectKind: 'object',
    device: 'the FMC',
    prefix: POSTERN_PREFIX,
    naming: { name: (address) => objectName(address.canonical), address: addressOfObjectName },
    placeholder: PLACEHOLDER.name,
    missing: `firepower: network group ${uuid} does not exist on the FMC`,
    members: async () => {
      group = await client.networkGroup(uuid);
      await objects(false);
      for (const ref of group.objects) {
        const unlisted = !byId.has(ref.id) && !readNames.has(ref.id) && (ref.name ?? '').startsWith(POSTERN_PREFIX);
        if (!unlisted || (ref.type !== 'Host' && ref.type !== 'Network')) continue;
        const object = await client.addressObject(ref.type, ref.id);
        // Gone, or not named as Postern's after all: not Postern's under any name.
        readNames.set(ref.id, object?.name ?? `deleted object ${ref.id}`);
        if (object !== null) remember(object);
      }
      return [...group.objects.map(nameOf), ...group.literals.map((literal) => literalMember(literal.value))];
    },
    objects: async (fresh) => new Map([...(await objects(fresh))].map(([name, object]) => [name, openedBy(object)])),
    create: async (items) => {
      const results: CreateResult[] = [];
      for (const { address } of items) {
        const name = objectName(address.canonical);
        const type = objectType(address.canonical);
        const made = await client.createAddressObject(type, name, address.canonical);
        if ('id' in made) {
          remember({ id: made.id, name, type, value: address.canonical });
          results.push({ created: true });
        } else results.push(made.outcome === 'alreadyPresent' ? { exists: true } : { error: made.error });
      }
      return results;
    },
    writeMembers: async ({ add, remove }) => {
      const current = group ?? (await client.networkGroup(uuid));
      const names = [...add, ...remove];
      const errors = new Map<string, string>();
      const leaving = new Set(remove);
      const refs = current.objects.filter((ref) => !leaving.has(nameOf(ref)));
      let changed = refs.length !== current.objects.length;
      for (const name of add) {
        const object = await member(name);
        if (typeof object === 'string' && name === PLACEHOLDER.name) {
          const error = `firepower: FMC refuses an empty group and the placeholder could not be put in: ${object}`;
          return new Map(names.map((other) => [other, error]));
        }
        if (typeof object === 'string') errors.set(name, object);
        else if (!refs.some((ref) => ref.id === object.id)) {
          refs.push(memberRef(object));
          changed = true;
        }
      }
      if (!changed) return errors;
      const what = [add.length > 0 ? `add ${describe(add)}` : '', remove.length > 0 ? `remove ${describe(remove)}` : '']
        .filter((part) => part !== '')
        .join(' and ');
      const result = await client.putNetworkGroup(writableNetworkGroup({ ...current, objects: refs }), what);
      if (result.error !== '') for (const name of names) errors.set(name, result.error);
      return errors;
    },
  };
}

function describe(names: readonly string[]): string {
  return names.length === 1 ? (names[0] ?? '') : `${names.length} objects`;
}
