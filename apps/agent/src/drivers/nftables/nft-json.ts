/**
 * The JSON the nftables driver sends to `nft -j -f -` and reads from `nft -j list set(s)`
 * (libnftables-json(5), nft 1.0.6): typed builders for element batches, the parser of set listings,
 * and nft's error text.
 */
import { NFTABLES_FAMILIES, type NftablesFamily } from '@postern/protocol';
import { canonicalAddress, type ParsedAddress } from '../addresses.js';
import type { NftRuleCommand } from './nft-rules.js';

/** One named set: where it lives and its name. */
export interface NftSetRef {
  family: NftablesFamily;
  table: string;
  name: string;
}

/** A set as nft spells it on its command line and in messages: `inet postern allow4`. */
export function setLabel(set: NftSetRef): string {
  return `${set.family} ${set.table} ${set.name}`;
}

/** A set as the agent's nftables.allowedSets lists it: `inet/postern/allow4`. */
export function allowedSetKey(set: NftSetRef): string {
  return `${set.family}/${set.table}/${set.name}`;
}

/** An element's value: the address as a string, a network as a prefix object. */
export type ElementValue = string | { prefix: { addr: string; len: number } };

/** One element to write; `timeout` in seconds (the caller clamps it: never 0, which is permanent). */
export interface ElementSpec {
  val: ElementValue;
  timeout?: number;
}

/** One command of a batch document: element writes, and the managed rule's (see nft-rules.ts). */
export type NftCommand =
  | { add: { element: NftSetRef & { elem: { elem: ElementSpec }[] } } }
  | { delete: { element: NftSetRef & { elem: { elem: ElementSpec }[] } } }
  | { flush: { set: NftSetRef } }
  | NftRuleCommand;

/** How a parsed address is written as an element value: a host as its address, a network as a prefix. */
export function elementValue(address: ParsedAddress): ElementValue {
  return address.isHost ? address.address : { prefix: { addr: address.address, len: address.prefix } };
}

/** `add` or `delete` of elements in one set. */
export function elementCommand(verb: 'add' | 'delete', set: NftSetRef, elements: readonly ElementSpec[]): NftCommand {
  const element = {
    family: set.family,
    table: set.table,
    name: set.name,
    elem: elements.map((spec) => ({ elem: spec })),
  };
  return verb === 'add' ? { add: { element } } : { delete: { element } };
}

export function flushSetCommand(set: NftSetRef): NftCommand {
  return { flush: { set: { family: set.family, table: set.table, name: set.name } } };
}

/** The document `nft -j -f -` reads on stdin: one batch, which the kernel applies atomically. */
export function batchDocument(commands: readonly NftCommand[]): string {
  return JSON.stringify({ nftables: commands });
}

/** One element of a listed set: its canonical address and the seconds it has left (null: no timeout). */
export interface ListedElement {
  address: string;
  expires: number | null;
}

/** A set as `nft -j list set` / `nft -j list sets` reports it. */
export interface ListedSet extends NftSetRef {
  /** ipv4_addr, ipv6_addr, or anything else nft reports (a concatenation: a list joined with ` . `). */
  type: string;
  flags: string[];
  elements: ListedElement[];
}

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A listed element value as an address, or null for what Postern never writes (ranges, concatenations). */
function listedAddress(value: Json): string | null {
  if (typeof value === 'string') return canonicalAddress(value);
  if (isObject(value) && isObject(value.prefix)) {
    const { addr, len } = value.prefix;
    if (typeof addr === 'string' && typeof len === 'number') return canonicalAddress(`${addr}/${len}`);
  }
  return null;
}

/** An element of a set's `elem` array: a bare value, or `{"elem": {"val": …, "timeout": …, "expires": …}}`. */
function listedElement(item: Json): ListedElement | null {
  const detailed = isObject(item) && isObject(item.elem) ? item.elem : null;
  const address = listedAddress(detailed === null ? item : detailed.val);
  if (address === null) return null;
  const expires = detailed?.expires;
  return { address, expires: typeof expires === 'number' && Number.isFinite(expires) ? expires : null };
}

/**
 * The sets in nft's JSON listing (`list set`, `list sets`, `list ruleset`), in the families Postern
 * writes. Throws when the output is not nft's JSON document at all.
 */
export function parseSetListing(stdout: string): ListedSet[] {
  const document: Json = JSON.parse(stdout);
  if (!isObject(document) || !Array.isArray(document.nftables)) throw new Error('nft printed no "nftables" array');
  const sets: ListedSet[] = [];
  for (const item of document.nftables) {
    const set = isObject(item) && isObject(item.set) ? item.set : null;
    if (set === null) continue;
    const { family, table, name, type, flags, elem } = set;
    if (typeof family !== 'string' || !(NFTABLES_FAMILIES as readonly string[]).includes(family)) continue;
    if (typeof table !== 'string' || typeof name !== 'string') continue;
    sets.push({
      family: family as NftablesFamily,
      table,
      name,
      type: typeof type === 'string' ? type : Array.isArray(type) ? type.join(' . ') : '',
      flags: Array.isArray(flags) ? flags.filter((flag): flag is string => typeof flag === 'string') : [],
      elements: (Array.isArray(elem) ? elem : [])
        .map(listedElement)
        .filter((element): element is ListedElement => element !== null),
    });
  }
  return sets;
}

/**
 * nft's stderr as one line: `internal:0:0-0: Error: Could not process rule: No such file or
 * directory` → `Could not process rule: No such file or directory`, without the location prefixes
 * and the echoed command with its `^^^` markers that follow a text-mode error.
 */
export function parseNftError(stderr: string): string {
  const messages = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /(^|:\s)Error:/.test(line))
    .map((line) => line.replace(/^.*?Error:\s*/, ''));
  const unique = [...new Set(messages)];
  if (unique.length > 0) return unique.join('; ');
  const text = stderr.trim().replace(/\s+/g, ' ');
  return text === '' ? 'nft failed without a message' : text;
}

/**
 * Errors no entry can avoid (no permission, no sudo, nft stopped at the time limit): trying the
 * entries again one part at a time would only fail the same way, slower.
 */
export function isGlobalNftError(message: string): boolean {
  return /Operation not permitted|Permission denied|password is required|^sudo:|Cannot open session|Protocol not supported|^nft did not finish within/i.test(
    message,
  );
}
