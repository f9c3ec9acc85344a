import path from 'node:path';
import { NFTABLES_FAMILIES, NFTABLES_NAME_PATTERN, type AgentKnocOf, type NftablesFamily } from '@postern/protocol';
import { findExecutable } from '../command.js';
import type { NftManagedRulePlan } from '../managed-rule/nft-rule-owner.js';
import {
  planManagedRules,
  readManagedRule,
  type KnocSets,
  type ManagedRuleReading,
} from '../managed-rule/managed-rule.js';
import { errorMessage } from '../outcomes.js';
import { allowedSetKey } from './nft-json.js';
import type { NftTableRef } from './nft-rules.js';
import { nftablesTarget, type NftablesTarget } from './nftables-target.js';

/** nft's limit on chain names (NFT_NAME_MAXLEN 256) is far above the protocol's pattern (64). */
const NFT_CHAIN_MAX_LENGTH = 64;

/** The nftables backend's ManagedRule: off, usable (chain name checked by the protocol's pattern), or why not. */
export function readNftManagedRule(backend: unknown): ManagedRuleReading {
  return readManagedRule(backend, NFT_CHAIN_MAX_LENGTH);
}

/**
 * One plan per backend with a ManagedRule: its table (the backend's Family and Table), its chain and
 * ports, and the knocs' sets this agent may use, per family. A backend whose table cannot be named
 * is unreadable: its rules are left as they are.
 */
export function planNftManagedRules(
  knocs: readonly AgentKnocOf<'nftables'>[],
  allowed: ReadonlySet<string>,
): { plans: NftManagedRulePlan[]; unreadable: Map<string, string> } {
  const tables = new Map<string, NftTableRef>();
  const unusable = new Map<string, string>();
  const knocSets: KnocSets[] = [];
  for (const knoc of knocs) {
    let target: NftablesTarget;
    try {
      target = nftablesTarget(knoc);
    } catch (error) {
      const reading = readNftManagedRule(knoc.backend);
      // Without a ManagedRule, a bad table is the entries' failure (apply reports it), not the rule's.
      if (!('rule' in reading) || reading.rule !== null) unusable.set(knoc.backendId, errorMessage(error));
      continue;
    }
    if (!tables.has(knoc.backendId)) tables.set(knoc.backendId, { family: target.family, table: target.table });
    const usable = (name: string) =>
      name !== '' &&
      NFTABLES_NAME_PATTERN.test(name) &&
      allowed.has(allowedSetKey({ family: target.family, table: target.table, name }))
        ? [name]
        : [];
    knocSets.push({
      backendId: knoc.backendId,
      backend: knoc.backend,
      sets: { inet: usable(target.v4), inet6: usable(target.v6) },
    });
  }
  const { plans, unreadable } = planManagedRules(knocSets, NFT_CHAIN_MAX_LENGTH);
  for (const [backendId, error] of unusable) unreadable.set(backendId, error);
  return {
    plans: plans.flatMap((plan) => {
      const table = tables.get(plan.backendId);
      return table === undefined || unusable.has(plan.backendId) ? [] : [{ ...plan, table }];
    }),
    unreadable,
  };
}

/** The tables of the agent's nftables.allowedSets (`family/table/set`): the only ones it writes rules into. */
export function allowedTables(allowedSets: readonly string[]): NftTableRef[] {
  const tables = new Map<string, NftTableRef>();
  for (const key of allowedSets) {
    const [family, table] = key.split('/');
    if (!(NFTABLES_FAMILIES as readonly string[]).includes(family ?? '')) continue;
    if (table === undefined || !NFTABLES_NAME_PATTERN.test(table)) continue;
    tables.set(`${family}/${table}`, { family: family as NftablesFamily, table });
  }
  return [...tables.values()];
}

/**
 * conntrack run the way nft is: the nft command's prefix (`sudo -n`, or `ip netns exec <ns>` in
 * tests) with conntrack in place of nft, found in PATH or the sbin directories. An agent on sudo
 * needs its sudoers rule to name conntrack too.
 */
export function conntrackCommandLike(nftCommand: readonly string[]): string[] {
  const last = nftCommand.at(-1);
  const prefix = last !== undefined && path.basename(last) === 'nft' ? nftCommand.slice(0, -1) : [];
  return [...prefix, findExecutable('conntrack') ?? 'conntrack'];
}
