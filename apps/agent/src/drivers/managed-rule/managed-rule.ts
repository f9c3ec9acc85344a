import { createHash } from 'node:crypto';
import { ManagedRule } from '@postern/protocol';
import type { Logger } from 'pino';

/**
 * A backend's managed rule, as the agent enforces it: for `ports` (TCP destination ports) in the
 * admin's `chain`, traffic from addresses in none of the backend's sets is dropped, and this runs
 * before the chain's accept of established connections. A connection therefore stops as soon as its
 * address leaves the set: at a revoke, and at the kernel's expiry with no Postern process alive.
 *
 * Family-independent on purpose: the iptables owner (`iptables-rule-owner.ts`) writes it for ipset
 * backends; an nftables owner can write the same plan as a chain in the backend's table.
 */
export interface ManagedRulePlan {
  backendId: string;
  /** The admin's chain the jump goes into (validated: see {@link readManagedRule}). */
  chain: string;
  /** Sorted, without duplicates. */
  ports: number[];
  /** The backend's sets per family, sorted; a family without sets gets no rule. */
  sets: Record<ManagedRuleFamily, string[]>;
}

export type ManagedRuleFamily = 'inet' | 'inet6';
export const MANAGED_RULE_FAMILIES: readonly ManagedRuleFamily[] = ['inet', 'inet6'];

/** Postern's own chains start with this; the prefix is reserved (see docs/agents.md). */
export const MANAGED_CHAIN_PREFIX = 'POSTERN-';
/** Every rule Postern writes carries a comment starting with this: the marker of what it owns. */
export const MANAGED_RULE_MARKER = 'postern managed rule';
/** iptables' limit on chain names (XT_EXTENSION_MAXNAMELEN 29, less the terminating NUL). */
export const IPTABLES_CHAIN_MAX_LENGTH = 28;

/** A backend id as it may appear inside a comment: what needs no quoting and cannot end the comment. */
const COMMENT_SAFE_ID = /^[A-Za-z0-9._:@-]{1,64}$/;

/** 12 hex characters of the id's SHA-256: unique enough per agent, and always a valid chain name. */
export function shortBackendId(backendId: string): string {
  return createHash('sha256').update(backendId).digest('hex').slice(0, 12);
}

/** `POSTERN-<short id>` (20 characters): the backend's own chain. */
export function managedChainName(backendId: string): string {
  return `${MANAGED_CHAIN_PREFIX}${shortBackendId(backendId)}`;
}

/**
 * The comment on every rule of the backend: the marker and the backend's id (its short id when the
 * id holds characters a comment should not carry). Only rules with this marker are ever changed.
 */
export function managedRuleComment(backendId: string): string {
  const id = COMMENT_SAFE_ID.test(backendId) ? backendId : `#${shortBackendId(backendId)}`;
  return `${MANAGED_RULE_MARKER} backend ${id}`;
}

/** The backend's ManagedRule: absent (off), or checked with the protocol's rules, or why it cannot be used. */
export type ManagedRuleReading = { rule: null } | { rule: ManagedRule } | { error: string };

/**
 * Reads `ManagedRule` from a backend's config as sent (the agent receives configs unchecked, see
 * LenientConfig) and checks it with the protocol's schema: the chain name pattern (no option, no
 * space ever reaches iptables), the port range and count. `maxChainLength` is the device's own limit.
 */
export function readManagedRule(backend: unknown, maxChainLength: number): ManagedRuleReading {
  const value = (backend as { ManagedRule?: unknown } | null | undefined)?.ManagedRule;
  if (value === undefined || value === null) return { rule: null };
  const parsed = ManagedRule.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `ManagedRule ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`.replace(/ +:/, ':') };
  }
  if (parsed.data.Chain.length > maxChainLength) {
    return { error: `ManagedRule Chain: ${parsed.data.Chain} is longer than ${maxChainLength} characters` };
  }
  if (parsed.data.Chain.startsWith(MANAGED_CHAIN_PREFIX)) {
    return { error: `ManagedRule Chain: ${parsed.data.Chain} is one of Postern's own chains` };
  }
  return { rule: { Chain: parsed.data.Chain, Ports: [...new Set(parsed.data.Ports)].sort((a, b) => a - b) } };
}

/** What a driver knows of one knoc for its backend's managed rule. */
export interface KnocSets {
  backendId: string;
  /** The backend's config as sent (its `ManagedRule`, if any). */
  backend: unknown;
  /** The knoc's sets this agent may use, per family. */
  sets: Record<ManagedRuleFamily, readonly string[]>;
}

/** The plans for a driver's knocs, and the backends whose ManagedRule cannot be used (with why). */
export interface ManagedRulePlans {
  plans: ManagedRulePlan[];
  /** Backends whose rules are left as they are: their ManagedRule could not be read. */
  unreadable: Map<string, string>;
}

/**
 * One plan per backend with a ManagedRule, holding the sets of all its knocs (knocs of one backend
 * share its config; the first knoc's is read). A backend without knocs has no plan, so its rules go.
 */
export function planManagedRules(knocs: readonly KnocSets[], maxChainLength: number): ManagedRulePlans {
  const byBackend = new Map<string, KnocSets[]>();
  for (const knoc of knocs) byBackend.set(knoc.backendId, [...(byBackend.get(knoc.backendId) ?? []), knoc]);
  const plans: ManagedRulePlan[] = [];
  const unreadable = new Map<string, string>();
  for (const [backendId, ofBackend] of byBackend) {
    const reading = readManagedRule(ofBackend[0]?.backend, maxChainLength);
    if ('error' in reading) unreadable.set(backendId, reading.error);
    else if (reading.rule !== null) {
      const setsOf = (family: ManagedRuleFamily) => [...new Set(ofBackend.flatMap((knoc) => knoc.sets[family]))].sort();
      plans.push({
        backendId,
        chain: reading.rule.Chain,
        ports: reading.rule.Ports,
        sets: { inet: setsOf('inet'), inet6: setsOf('inet6') },
      });
    }
  }
  return { plans, unreadable };
}

/**
 * The end of a driver's `configure`: the backends whose rules could not be written (`failures`) or
 * whose ManagedRule could not be read (`unreadable`), logged and thrown naming their knocs, as the
 * Driver contract asks; nothing when every backend converged.
 */
export function reportManagedRuleFailures(options: {
  driver: string;
  knocs: readonly { aclId: string; backendId: string }[];
  failures: Map<string, string>;
  unreadable: ReadonlyMap<string, string>;
  logger: Logger;
}): void {
  const { driver, knocs, failures, unreadable, logger } = options;
  for (const [backendId, error] of unreadable) failures.set(backendId, error);
  if (failures.size === 0) return;
  const named = [...failures].map(([backendId, error]) => {
    const aclIds = knocs.filter((knoc) => knoc.backendId === backendId).map((knoc) => knoc.aclId);
    return `knocs ${aclIds.join(', ')} (backend ${backendId}): ${error}`;
  });
  logger.warn({ failures: named }, 'managed rules could not be written');
  throw new Error(`${driver} managed rule: ${named.join('; ')}`);
}
