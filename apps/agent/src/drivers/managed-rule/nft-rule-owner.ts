import type { Logger } from 'pino';
import type { NftCommand } from '../nftables/nft-json.js';
import {
  deleteRuleCommand,
  insertRuleCommand,
  managedRuleExpr,
  sameSpec,
  tableAddressFamilies,
  type ListedRule,
  type ListedTable,
  type ManagedRuleSpec,
  type NftTableRef,
} from '../nftables/nft-rules.js';
import { errorMessage } from '../outcomes.js';
import { MANAGED_RULE_MARKER, managedRuleComment, type ManagedRulePlan } from './managed-rule.js';

/** A managed rule plan of an nftables backend: its chain is in the backend's own table. */
export interface NftManagedRulePlan extends ManagedRulePlan {
  table: NftTableRef;
}

/** A table as read, or what nft said when it could not be. */
export type TableReading = { table: ListedTable } | { error: string };

/** How the owner reaches nft: one batch (null when the kernel took it, else nft's error), one table listing. */
export interface NftRuleIo {
  batch(commands: readonly NftCommand[]): Promise<string | null>;
  readTable(table: NftTableRef): Promise<TableReading>;
}

export interface NftRuleOwnerOptions {
  io: NftRuleIo;
  logger: Logger;
  /**
   * Tables read at the first call even with nothing to write there, for rules an earlier run left
   * (the tables of the agent's nftables.allowedSets: the only ones it ever writes rules into).
   */
  leftoverTables?: readonly NftTableRef[];
}

const FAMILY_NAME = { inet: 'IPv4', inet6: 'IPv6' } as const;
const tableKey = (table: NftTableRef) => `${table.family}/${table.table}`;
const tableLabel = (table: NftTableRef) => `${table.family} ${table.table}`;

/**
 * The rules a plan wants in its table, one per address family the table sees (`ip`: IPv4, `ip6`:
 * IPv6, `inet`: both) and the backend has sets for. None when it has no sets: a drop without a set
 * to let anyone through would lock every address out.
 */
export function desiredSpecs(plan: NftManagedRulePlan): ManagedRuleSpec[] {
  return tableAddressFamilies(plan.table.family)
    .filter((family) => plan.sets[family].length > 0)
    .map((addressFamily) => ({ addressFamily, ports: plan.ports, sets: plan.sets[addressFamily] }));
}

/**
 * Whether the backend's rules are exactly the wanted ones, in its chain, with nothing but Postern's
 * own rules above them (so they run before the admin's accept of established connections).
 */
export function rulesInPlace(
  table: ListedTable,
  own: readonly ListedRule[],
  chain: string,
  wanted: readonly ManagedRuleSpec[],
): boolean {
  if (own.length !== wanted.length || !wanted.every((spec) => own.some((rule) => sameSpec(rule.spec, spec)))) {
    return false;
  }
  const chainRules = table.rules.filter((rule) => rule.chain === chain);
  return own.every((rule) => {
    const position = chainRules.indexOf(rule);
    return position !== -1 && chainRules.slice(0, position).every((above) => isManaged(above));
  });
}

const isManaged = (rule: ListedRule) => rule.comment.startsWith(MANAGED_RULE_MARKER);

/**
 * Keeps the managed rules of nftables backends as the plans say: per backend, one rule per address
 * family first in the admin's chain of the backend's table, dropping TCP to the ports from every
 * address in none of the backend's sets. Per table and call: one `nft -j -t -a list table`, then one
 * batch per backend whose rules differ (delete the old handles and insert the new rules together,
 * which the kernel applies as one transaction: no packet sees the chain without its rule), and one
 * per backend no plan wants any more. Only rules whose comment carries Postern's marker are changed.
 */
export class NftRuleOwner {
  readonly #options: NftRuleOwnerOptions;
  /**
   * Tables that may hold Postern's rules: the leftover tables at the first call, then only tables
   * where a plan wants rules or a call just removed some, so an agent without any managed rule does
   * not list its tables on every state message.
   */
  readonly #mayHoldRules: Map<string, NftTableRef>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: NftRuleOwnerOptions) {
    this.#options = options;
    this.#mayHoldRules = new Map((options.leftoverTables ?? []).map((table) => [tableKey(table), table]));
  }

  /**
   * Converges every table to the plans; returns why a backend's rules could not be written, by
   * backend id. Backends in `spare` (their ManagedRule could not be read) keep whatever they have.
   * Calls run one at a time.
   */
  converge(plans: readonly NftManagedRulePlan[], spare: ReadonlySet<string> = new Set()): Promise<Map<string, string>> {
    const result = this.#queue.then(() => this.#convergeNow(plans, spare));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #convergeNow(plans: readonly NftManagedRulePlan[], spare: ReadonlySet<string>): Promise<Map<string, string>> {
    const failures = new Map<string, string>();
    const fail = (backendId: string, error: string) =>
      failures.set(backendId, [failures.get(backendId), error].filter(Boolean).join('; '));
    const wanted = plans.filter((plan) => desiredSpecs(plan).length > 0);
    const tables = new Map(this.#mayHoldRules);
    for (const plan of wanted) tables.set(tableKey(plan.table), plan.table);

    for (const [key, ref] of tables) {
      const inTable = wanted.filter((plan) => tableKey(plan.table) === key);
      const reading = await this.#options.io.readTable(ref).catch((error: unknown) => ({ error: errorMessage(error) }));
      if ('error' in reading) {
        // Nothing to write and nothing readable (the table is not there): nothing to do.
        if (inTable.length === 0) {
          this.#options.logger.debug({ table: tableLabel(ref), error: reading.error }, 'no managed rules to check');
          this.#mayHoldRules.delete(key);
        }
        for (const plan of inTable) fail(plan.backendId, `nft list table ${tableLabel(ref)}: ${reading.error}`);
        continue;
      }
      const { table } = reading;
      for (const plan of inTable) {
        const error = await this.#convergePlan(table, plan);
        if (error !== null) fail(plan.backendId, error);
      }
      const keep = new Set([...inTable.map((plan) => plan.backendId), ...spare].map(managedRuleComment));
      const removedAll = await this.#removeUnwanted(table, keep);
      if (inTable.length === 0 && spare.size === 0 && removedAll) this.#mayHoldRules.delete(key);
      else this.#mayHoldRules.set(key, ref);
    }
    return failures;
  }

  /** Writes the plan's rules when they differ from what the table holds: null when done, else why not. */
  async #convergePlan(table: ListedTable, plan: NftManagedRulePlan): Promise<string | null> {
    const comment = managedRuleComment(plan.backendId);
    const specs = desiredSpecs(plan);
    const own = table.rules.filter((rule) => rule.comment === comment);
    if (rulesInPlace(table, own, plan.chain, specs)) return null;
    if (!table.chains.has(plan.chain)) return `table ${tableLabel(table)} has no chain ${plan.chain}`;
    const inserts = specs.map((spec) =>
      insertRuleCommand({ ...plan.table, chain: plan.chain, comment, expr: managedRuleExpr(spec) }),
    );
    // Each insert goes to the head, so the last one ends up first: IPv4 first, as people read it.
    const error = await this.#batch([...own.map((rule) => deleteRuleCommand(table, rule)), ...inserts.reverse()]);
    if (error !== null) {
      const families = specs.map((spec) => FAMILY_NAME[spec.addressFamily]).join(', ');
      return `nft could not write the managed rule (${families}) in chain ${tableLabel(table)} ${plan.chain}: ${error}`;
    }
    this.#options.logger.info(
      { backendId: plan.backendId, table: tableLabel(table), chain: plan.chain, ports: plan.ports },
      'managed rule written',
    );
    return null;
  }

  /** Deletes the marked rules of backends not in `keep`, one batch per backend; false when one failed. */
  async #removeUnwanted(table: ListedTable, keep: ReadonlySet<string>): Promise<boolean> {
    const byComment = new Map<string, ListedRule[]>();
    for (const rule of table.rules) {
      if (isManaged(rule) && !keep.has(rule.comment)) {
        byComment.set(rule.comment, [...(byComment.get(rule.comment) ?? []), rule]);
      }
    }
    let removedAll = true;
    for (const [comment, rules] of byComment) {
      const error = await this.#batch(rules.map((rule) => deleteRuleCommand(table, rule)));
      if (error === null) {
        this.#options.logger.info({ table: tableLabel(table), comment }, 'managed rule removed');
      } else {
        removedAll = false;
        this.#options.logger.warn({ table: tableLabel(table), comment, error }, 'cannot remove a managed rule');
      }
    }
    return removedAll;
  }

  /** One batch; nft that cannot be run at all is what it said, like any other failure. */
  #batch(commands: readonly NftCommand[]): Promise<string | null> {
    return this.#options.io.batch(commands).catch((error: unknown) => errorMessage(error));
  }
}
