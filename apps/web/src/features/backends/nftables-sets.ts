import { NFTABLES_FAMILIES, type AgentRecord, type NftablesFamily } from '@postern/protocol';

/*
 * The nftables sets an agent reported, as the console offers them: a knoc's sets live in its
 * backend's table (Family and Table), hold one address family each, and must have `flags timeout`,
 * since Postern's entries expire in the kernel (the agent never writes a permanent entry).
 */

/** An nftables table: its family and name. */
export interface NftablesTable {
  family: NftablesFamily;
  table: string;
}

/** The element type of a set holding IPv4 or IPv6 addresses. */
export type NftablesSetType = 'ipv4_addr' | 'ipv6_addr';

/** One reported set as a choice: disabled, with the text key of the reason, when Postern cannot use it. */
export interface NftablesSetChoice {
  name: string;
  disabled: boolean;
  reason: string | null;
}

/** The reason a set without `flags timeout` cannot be chosen. */
export const NO_TIMEOUT_REASON = 'backendsScreen.nftables.noTimeout';

const isFamily = (value: unknown): value is NftablesFamily => (NFTABLES_FAMILIES as readonly unknown[]).includes(value);

/** The table a backend config names ({family: inet, table: ''} while nothing is entered). */
export function nftablesTableOf(config: Record<string, unknown> | undefined): NftablesTable {
  const family = config?.Family;
  const table = config?.Table;
  return { family: isFamily(family) ? family : 'inet', table: typeof table === 'string' ? table.trim() : '' };
}

const reportedSets = (agent: AgentRecord | null) => agent?.Capabilities?.nftables?.sets ?? [];

/** The tables holding the sets the agent reported, each once, by family and then name. */
export function reportedNftablesTables(agent: AgentRecord | null): NftablesTable[] {
  const seen = new Map<string, NftablesTable>();
  for (const set of reportedSets(agent))
    seen.set(`${set.family} ${set.table}`, { family: set.family, table: set.table });
  return [...seen.values()].sort(
    (a, b) =>
      NFTABLES_FAMILIES.indexOf(a.family) - NFTABLES_FAMILIES.indexOf(b.family) || a.table.localeCompare(b.table),
  );
}

/**
 * The agent's sets of one element type in one table, in name order; those without `flags timeout`
 * disabled with the reason.
 */
export function nftablesSetChoices(
  agent: AgentRecord | null,
  where: NftablesTable,
  type: NftablesSetType,
): NftablesSetChoice[] {
  return reportedSets(agent)
    .filter((set) => set.family === where.family && set.table === where.table && set.type === type)
    .map((set) => ({ name: set.name, disabled: !set.timeout, reason: set.timeout ? null : NO_TIMEOUT_REASON }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
