/**
 * The JSON of the nftables managed rule (libnftables-json(5), nft 1.0.6): the rule Postern writes
 * first in the admin's chain, the commands that insert and delete it, and the parser of a table as
 * `nft -j -t -a list table` prints it (chains and rules with their handles; -t leaves the sets'
 * elements out, so the read stays small however many grants the sets hold).
 */
import { NFTABLES_FAMILIES, type NftablesFamily } from '@postern/protocol';
import type { ManagedRuleFamily } from '../managed-rule/managed-rule.js';

/** A table: where the managed rule lives. */
export interface NftTableRef {
  family: NftablesFamily;
  table: string;
}

/** What one managed rule says: drop TCP to `ports` from an address in none of `sets` (of `addressFamily`). */
export interface ManagedRuleSpec {
  addressFamily: ManagedRuleFamily;
  /** Sorted, without duplicates. */
  ports: readonly number[];
  /** Sorted, without duplicates; never empty (an empty list would drop everyone). */
  sets: readonly string[];
}

/** A rule as written: its place, its marker comment and its expressions. */
export interface NftRuleSpec extends NftTableRef {
  chain: string;
  comment: string;
  expr: unknown[];
}

export type NftRuleCommand =
  { insert: { rule: NftRuleSpec } } | { delete: { rule: NftTableRef & { chain: string; handle: number } } };

/** One listed rule, in its chain's order. */
export interface ListedRule {
  chain: string;
  handle: number;
  /** '' without a comment. */
  comment: string;
  /** What it says when it is a managed rule's shape, else null (a rule the agent would not write). */
  spec: ManagedRuleSpec | null;
}

/** A table as listed: its chains, and its rules chain by chain in their order. */
export interface ListedTable extends NftTableRef {
  chains: Set<string>;
  rules: ListedRule[];
}

const SADDR_PROTOCOL: Record<ManagedRuleFamily, 'ip' | 'ip6'> = { inet: 'ip', inet6: 'ip6' };

/** The address families a table of this family can match: an `ip` table sees only IPv4, `ip6` only IPv6. */
export function tableAddressFamilies(family: NftablesFamily): ManagedRuleFamily[] {
  if (family === 'ip') return ['inet'];
  if (family === 'ip6') return ['inet6'];
  return ['inet', 'inet6'];
}

/**
 * `tcp dport { 22, 443 } ip saddr != @a ip saddr != @b drop`: nft adds the `meta l4proto tcp`
 * (and, in an inet table, `meta nfproto ipv4`) dependencies itself and lists the rule back in this
 * very form. One port is written as a value, several as an anonymous set.
 */
export function managedRuleExpr(spec: ManagedRuleSpec): unknown[] {
  const ports = spec.ports.length === 1 ? spec.ports[0] : { set: [...spec.ports] };
  const saddr = { payload: { protocol: SADDR_PROTOCOL[spec.addressFamily], field: 'saddr' } };
  return [
    { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: ports } },
    ...spec.sets.map((set) => ({ match: { op: '!=', left: saddr, right: `@${set}` } })),
    { drop: null },
  ];
}

/** `insert` without a position: the rule goes to the head of the chain. */
export function insertRuleCommand(rule: NftRuleSpec): NftRuleCommand {
  return { insert: { rule } };
}

export function deleteRuleCommand(table: NftTableRef, rule: Pick<ListedRule, 'chain' | 'handle'>): NftRuleCommand {
  return { delete: { rule: { family: table.family, table: table.table, chain: rule.chain, handle: rule.handle } } };
}

/** Two specs say the same when their family, ports and sets are the same. */
export function sameSpec(a: ManagedRuleSpec | null, b: ManagedRuleSpec): boolean {
  return (
    a !== null &&
    a.addressFamily === b.addressFamily &&
    a.ports.join(',') === b.ports.join(',') &&
    a.sets.join(',') === b.sets.join(',')
  );
}

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isPort = (value: Json): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65_535;

/**
 * What a listed rule's expressions say, when they have the managed rule's shape: a TCP destination
 * port match (as nft lists it, `tcp dport`, or as it may be written, `meta l4proto tcp th dport`),
 * one or more `saddr != @set` of one family and `drop`. Anything else (a counter, another verdict,
 * a port range) is null: such a rule is not as the agent wants it, and is replaced.
 */
export function readManagedRuleExpr(expr: Json): ManagedRuleSpec | null {
  if (!Array.isArray(expr) || expr.length < 3 || !isObject(expr.at(-1)) || !('drop' in (expr.at(-1) as object))) {
    return null;
  }
  let ports: number[] | null = null;
  let addressFamily: ManagedRuleFamily | null = null;
  const sets: string[] = [];
  for (const item of expr.slice(0, -1)) {
    const match = isObject(item) && isObject(item.match) ? item.match : null;
    if (match === null) return null;
    const { op, left, right } = match;
    const meta = isObject(left) && isObject(left.meta) ? left.meta.key : undefined;
    const payload = isObject(left) && isObject(left.payload) ? left.payload : null;
    if (op === '==' && ((meta === 'l4proto' && right === 'tcp') || (meta === 'nfproto' && typeof right === 'string'))) {
      continue;
    }
    if (
      op === '==' &&
      payload !== null &&
      payload.field === 'dport' &&
      ['tcp', 'th'].includes(String(payload.protocol))
    ) {
      const listed = isObject(right) && Array.isArray(right.set) ? right.set : [right];
      if (ports !== null || listed.length === 0 || !listed.every(isPort)) return null;
      ports = [...new Set(listed)].sort((a, b) => a - b);
      continue;
    }
    if (op === '!=' && payload !== null && payload.field === 'saddr' && typeof right === 'string') {
      const family = payload.protocol === 'ip' ? 'inet' : payload.protocol === 'ip6' ? 'inet6' : null;
      if (family === null || (addressFamily !== null && family !== addressFamily) || !right.startsWith('@')) {
        return null;
      }
      addressFamily = family;
      sets.push(right.slice(1));
      continue;
    }
    return null;
  }
  if (ports === null || addressFamily === null) return null;
  return { addressFamily, ports, sets: [...new Set(sets)].sort() };
}

/** The chains and rules of `nft -j -t -a list table <family> <table>`. Throws when it is not nft's JSON. */
export function parseTableListing(stdout: string, table: NftTableRef): ListedTable {
  const document: Json = JSON.parse(stdout);
  if (!isObject(document) || !Array.isArray(document.nftables)) throw new Error('nft printed no "nftables" array');
  const listed: ListedTable = { ...table, chains: new Set(), rules: [] };
  const inTable = (item: Record<string, Json>) =>
    item.family === table.family &&
    item.table === table.table &&
    (NFTABLES_FAMILIES as readonly Json[]).includes(item.family);
  for (const item of document.nftables) {
    if (!isObject(item)) continue;
    const { chain, rule } = item;
    if (isObject(chain) && inTable(chain) && typeof chain.name === 'string') listed.chains.add(chain.name);
    if (isObject(rule) && inTable(rule) && typeof rule.chain === 'string' && typeof rule.handle === 'number') {
      listed.rules.push({
        chain: rule.chain,
        handle: rule.handle,
        comment: typeof rule.comment === 'string' ? rule.comment : '',
        spec: readManagedRuleExpr(rule.expr),
      });
    }
  }
  return listed;
}
