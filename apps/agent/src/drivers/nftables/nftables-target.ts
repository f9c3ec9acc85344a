import { NFTABLES_FAMILIES, NFTABLES_NAME_PATTERN, type AgentKnocOf, type NftablesFamily } from '@postern/protocol';
import { parseAddress, type ParsedAddress } from '../addresses.js';
import type { DriverEntry } from '../driver.js';
import { ConfigurationError } from '../outcomes.js';
import { allowedSetKey, setLabel, type NftSetRef } from './nft-json.js';

/** Where a knoc's addresses go: its backend's table and the knoc's two set names ('' for none). */
export interface NftablesTarget {
  family: NftablesFamily;
  table: string;
  v4: string;
  v6: string;
}

const NAME_RULE = 'a letter, then up to 63 letters, digits, _ or -';

/**
 * The knoc's table and sets, read leniently as the agent reads every config (fields may be missing
 * or of another server's making). A table the driver cannot name fails the whole call, permanently:
 * only an administrator's change can fix it. Set names are checked per family in {@link routeEntry}.
 */
export function nftablesTarget(knoc: AgentKnocOf<'nftables'>): NftablesTarget {
  const family = knoc.backend.Family ?? 'inet';
  if (!(NFTABLES_FAMILIES as readonly string[]).includes(family)) {
    throw new ConfigurationError(`nftables: the backend's Family "${String(family)}" is not inet, ip or ip6`);
  }
  const table = (knoc.backend.Table ?? '').trim();
  if (table === '') throw new ConfigurationError("nftables: the backend's Table is empty");
  if (!NFTABLES_NAME_PATTERN.test(table)) {
    throw new ConfigurationError(`nftables: the backend's Table "${table}" is not a table name (${NAME_RULE})`);
  }
  return { family, table, v4: (knoc.acl.V4SetName ?? '').trim(), v6: (knoc.acl.V6SetName ?? '').trim() };
}

/** The knoc's sets with usable names, IPv4 first: the ones `list` and `flush` read and write. */
export function knocSets(target: NftablesTarget): NftSetRef[] {
  return [...new Set([target.v4, target.v6])]
    .filter((name) => name !== '' && NFTABLES_NAME_PATTERN.test(name))
    .map((name) => ({ family: target.family, table: target.table, name }));
}

/** An entry on its way to a set. */
export interface RoutedEntry {
  set: NftSetRef;
  address: ParsedAddress;
}

/**
 * The set an entry's address goes to, or why it cannot go anywhere: not an address (nft would
 * resolve a host name), no set for its family, a set name nft could misread, a set the agent's
 * configuration does not allow.
 */
export function routeEntry(
  target: NftablesTarget,
  entry: DriverEntry,
  allowed: ReadonlySet<string>,
): RoutedEntry | { error: string } {
  const address = parseAddress(entry.ip);
  if (address === null) return { error: `${entry.ip} is not an IPv4 or IPv6 address` };
  const v4 = address.family === 'inet';
  const name = v4 ? target.v4 : target.v6;
  const field = v4 ? 'V4SetName' : 'V6SetName';
  if (name === '') return { error: `this knoc has no ${v4 ? 'IPv4' : 'IPv6'} set (${field}) for ${entry.ip}` };
  if (!NFTABLES_NAME_PATTERN.test(name)) return { error: `${field} "${name}" is not a set name (${NAME_RULE})` };
  const set = { family: target.family, table: target.table, name };
  if (!allowed.has(allowedSetKey(set))) {
    return { error: `set ${setLabel(set)} is not allowed by this agent's configuration` };
  }
  return { set, address };
}
