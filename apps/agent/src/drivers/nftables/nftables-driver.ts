import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import type { CommandResult, RunOptions } from '../command.js';
import { clampDeviceTimeout } from '../device-timeout.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { ConntrackFlows } from '../managed-rule/conntrack.js';
import { NftRuleOwner, type TableReading } from '../managed-rule/nft-rule-owner.js';
import { failed, succeeded } from '../outcomes.js';
import {
  allowedSetKey,
  batchDocument,
  flushSetCommand,
  parseNftError,
  parseSetListing,
  setLabel,
  type ListedSet,
  type NftCommand,
  type NftSetRef,
} from './nft-json.js';
import { runNft } from './nft-command.js';
import { parseTableListing, type NftTableRef } from './nft-rules.js';
import {
  allowedTables,
  conntrackCommandLike,
  planNftManagedRules,
  readNftManagedRule,
} from './nftables-managed-rule.js';
import { reportManagedRuleFailures } from '../managed-rule/managed-rule.js';
import { knocSets, nftablesTarget, routeEntry } from './nftables-target.js';
import { writeInBatches, type NftIo, type NftOperation, type SetReading, type WriteMode } from './nftables-writes.js';

/** How the driver runs nft: {@link runNft}, or a fake in tests. */
export type CommandRunner = (argv: readonly string[], options: RunOptions) => Promise<CommandResult>;

export interface NftablesDriverOptions {
  /** The only sets this agent may change (its configuration's nftables.allowedSets: `family/table/set`). */
  allowedSets: readonly string[];
  /**
   * The argv that runs nft, before its own arguments: `['/usr/sbin/nft']`, `['sudo', '-n', 'nft']`,
   * or in tests `['ip', 'netns', 'exec', '<ns>', 'nft']` so the sets live in a private namespace.
   */
  command: readonly string[];
  logger: Logger;
  /** One nft run taking longer than this is killed and its entries fail. */
  commandTimeoutMs?: number;
  /** Runs nft and conntrack (default: {@link runNft}); tests pass a fake kernel. */
  run?: CommandRunner;
  /**
   * The argv of conntrack, which ends a revoked address's connections on a backend with a
   * ManagedRule; default: run the way `command` runs nft (see conntrackCommandLike).
   */
  conntrackCommand?: readonly string[];
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

/**
 * nftables named sets (type ipv4_addr / ipv6_addr, `flags timeout`) in the table the backend names:
 * IPv4 addresses go to the knoc's V4SetName and IPv6 to its V6SetName, each element with the grant's
 * remaining time as its kernel timeout, so the kernel removes it on time with no Postern process
 * alive. The admin's ruleset makes the table and the sets; the agent writes elements only, and only
 * in sets its configuration allows.
 *
 * Every write is one JSON batch through `nft -j -f -`, which the kernel applies atomically, so a
 * reconcile after a restart is one batch however many entries it holds. nft has no idempotent
 * element commands on 1.0.6 (no `destroy`; `delete` of an absent element fails the batch, `add` of a
 * present one may keep its old timeout), so every write is built to succeed whatever the set holds:
 * - apply = add, delete, add: the first add makes the element present, the delete takes it out,
 *   the second add writes it with its new timeout (a deadline moved earlier takes effect too);
 * - remove = add (timeout 1 s), delete: the add makes an absent element present for the delete.
 * No list is needed before a write, so nothing can expire between a list and the batch.
 */
export class NftablesDriver implements Driver<'nftables'>, NftIo {
  readonly type = 'nftables' as const;
  readonly #allowed: ReadonlySet<string>;
  readonly #command: readonly string[];
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #run: CommandRunner;
  readonly #rules: NftRuleOwner;
  readonly #flows: ConntrackFlows;

  constructor(options: NftablesDriverOptions) {
    this.#allowed = new Set(options.allowedSets);
    this.#command = options.command;
    this.#logger = options.logger;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#run = options.run ?? runNft;
    this.#rules = new NftRuleOwner({
      io: this,
      logger: options.logger,
      leftoverTables: allowedTables(options.allowedSets),
    });
    this.#flows = new ConntrackFlows({
      command: options.conntrackCommand ?? conntrackCommandLike(options.command),
      logger: options.logger,
      run: (argv, runOptions) => this.#run(argv, runOptions ?? {}),
    });
  }

  /**
   * Writes the managed rule of every backend that has one (ManagedRule in its config: first in the
   * named chain of the backend's table, per address family, a drop of TCP to the ports from every
   * address in none of the knocs' sets), and removes the rules of backends that no longer have one
   * or no longer have knocs. Rejects naming the knocs whose rules could not be written.
   */
  async configure(knocs: readonly AgentKnocOf<'nftables'>[]): Promise<void> {
    const { plans, unreadable } = planNftManagedRules(knocs, this.#allowed);
    const failures = await this.#rules.converge(plans, new Set(unreadable.keys()));
    reportManagedRuleFailures({ driver: 'nftables', knocs, failures, unreadable, logger: this.#logger });
  }

  /** Adds the entries (or resets their timeout), then reads each set back: ok only when it holds the address. */
  async apply(knoc: AgentKnocOf<'nftables'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const { outcomes, operations } = this.#route(knoc, entries);
    const errors = await this.#write(operations, 'apply');
    await this.#verify(
      operations.filter((op) => !errors.has(op)),
      errors,
    );
    return this.#finish(entries, outcomes, errors);
  }

  /**
   * Removes the entries (an absent element is a success); on a backend with a ManagedRule, then ends
   * the removed addresses' tracked connections to the rule's ports (see ConntrackFlows for why both).
   */
  async remove(knoc: AgentKnocOf<'nftables'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const { outcomes, operations } = this.#route(knoc, entries);
    const finished = this.#finish(entries, outcomes, await this.#write(operations, 'remove'));
    const reading = readNftManagedRule(knoc.backend);
    if ('rule' in reading && reading.rule !== null) {
      await this.#flows.endRemoved(finished, reading.rule.Ports);
    }
    return finished;
  }

  async list(knoc: AgentKnocOf<'nftables'>): Promise<string[]> {
    return (await this.#readKnocSets(knoc)).flatMap((set) => set.elements.map((element) => element.address));
  }

  /** The seconds each element of the knoc's sets has left (its `expires`), by canonical address. */
  async remainingSeconds(knoc: AgentKnocOf<'nftables'>): Promise<ReadonlyMap<string, number>> {
    const remaining = new Map<string, number>();
    for (const set of await this.#readKnocSets(knoc)) {
      for (const { address, expires } of set.elements) if (expires !== null) remaining.set(address, expires);
    }
    return remaining;
  }

  /** Empties the knoc's allowed sets in one batch (each set on its own when that batch fails). */
  async flush(knoc: AgentKnocOf<'nftables'>): Promise<void> {
    const sets = this.#allowedKnocSets(knoc);
    if (sets.length === 0) return;
    const together = await this.batch(sets.map(flushSetCommand));
    if (together === null) return;
    const failures: string[] = [];
    for (const set of sets) {
      const alone = sets.length === 1 ? together : await this.batch([flushSetCommand(set)]);
      if (alone !== null) failures.push(`set ${setLabel(set)}: ${alone}`);
    }
    if (failures.length > 0) throw new Error(`nftables: could not flush ${failures.join('; ')}`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Runs one batch through `nft -j -f -`: null when the kernel took it, else what nft said. */
  async batch(commands: readonly NftCommand[]): Promise<string | null> {
    const result = await this.#nft(['-j', '-f', '-'], batchDocument(commands));
    if (result.code === 0) return null;
    return result.code === null ? this.#killedMessage() : parseNftError(result.stderr);
  }

  /** `nft -j -t -a list table <family> <table>`: chains and rules with handles, without the sets' elements. */
  async readTable(table: NftTableRef): Promise<TableReading> {
    const result = await this.#nft(['-j', '-t', '-a', 'list', 'table', table.family, table.table]);
    if (result.code !== 0) {
      return { error: result.code === null ? this.#killedMessage() : parseNftError(result.stderr) };
    }
    try {
      return { table: parseTableListing(result.stdout, table) };
    } catch (error) {
      return {
        error: `nft printed what is not its JSON listing (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }

  /** `nft -j list set <family> <table> <name>`. */
  async readSet(set: NftSetRef): Promise<SetReading> {
    const result = await this.#nft(['-j', 'list', 'set', set.family, set.table, set.name]);
    if (result.code !== 0) {
      return { error: result.code === null ? this.#killedMessage() : parseNftError(result.stderr) };
    }
    try {
      const listed = parseSetListing(result.stdout).find(
        (candidate) => allowedSetKey(candidate) === allowedSetKey(set),
      );
      return listed === undefined ? { error: 'nft listed no such set' } : { set: listed };
    } catch (error) {
      return {
        error: `nft printed what is not its JSON listing (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }

  /** Entries that cannot go anywhere become failed outcomes; the rest become one operation per set and address. */
  #route(knoc: AgentKnocOf<'nftables'>, entries: readonly DriverEntry[]) {
    const target = nftablesTarget(knoc);
    const outcomes: EntryOutcome[] = entries.map((entry) => succeeded(entry.ip));
    const byKey = new Map<string, NftOperation>();
    entries.forEach((entry, index) => {
      const routed = routeEntry(target, entry, this.#allowed);
      if ('error' in routed) {
        outcomes[index] = failed(entry.ip, routed.error, { permanent: true });
        return;
      }
      // The same address twice (two grants) is one element: it keeps the later deadline.
      const key = `${allowedSetKey(routed.set)} ${routed.address.canonical}`;
      const timeout = clampDeviceTimeout(entry.ttlSeconds);
      const known = byKey.get(key);
      if (known === undefined) byKey.set(key, { ...routed, indices: [index], timeout });
      else {
        known.indices.push(index);
        known.timeout = Math.max(known.timeout, timeout);
      }
    });
    return { outcomes, operations: [...byKey.values()] };
  }

  async #write(operations: NftOperation[], mode: WriteMode): Promise<Map<NftOperation, string>> {
    const errors = await writeInBatches(this, operations, mode);
    if (errors.size > 0) {
      this.#logger.warn({ failed: errors.size, of: operations.length, mode }, 'nftables entries failed');
    }
    return errors;
  }

  /** Reads each set written once and checks every added address is in it (closed-loop verification). */
  async #verify(added: NftOperation[], errors: Map<NftOperation, string>): Promise<void> {
    const bySet = new Map<string, NftOperation[]>();
    for (const op of added) bySet.set(allowedSetKey(op.set), [...(bySet.get(allowedSetKey(op.set)) ?? []), op]);
    for (const ops of bySet.values()) {
      const set = ops[0]?.set;
      if (set === undefined) continue;
      const reading = await this.readSet(set);
      if ('error' in reading) {
        for (const op of ops) errors.set(op, `could not read set ${setLabel(set)} back: ${reading.error}`);
        continue;
      }
      const held = new Set(reading.set.elements.map((element) => element.address));
      for (const op of ops) {
        if (!held.has(op.address.canonical)) {
          errors.set(op, `set ${setLabel(set)} does not hold ${op.address.canonical} after adding it`);
        }
      }
    }
  }

  #finish(
    entries: readonly DriverEntry[],
    outcomes: EntryOutcome[],
    errors: ReadonlyMap<NftOperation, string>,
  ): EntryOutcome[] {
    for (const [op, error] of errors) {
      for (const index of op.indices) {
        const entry = entries[index];
        if (entry !== undefined) outcomes[index] = failed(entry.ip, error);
      }
    }
    return outcomes;
  }

  /** The knoc's sets this agent may touch: sets it may not are not its business, so they are not read either. */
  #allowedKnocSets(knoc: AgentKnocOf<'nftables'>): NftSetRef[] {
    return knocSets(nftablesTarget(knoc)).filter((set) => this.#allowed.has(allowedSetKey(set)));
  }

  async #readKnocSets(knoc: AgentKnocOf<'nftables'>): Promise<ListedSet[]> {
    const sets: ListedSet[] = [];
    for (const set of this.#allowedKnocSets(knoc)) {
      const reading = await this.readSet(set);
      if ('error' in reading) throw new Error(`nft list set ${setLabel(set)}: ${reading.error}`);
      sets.push(reading.set);
    }
    return sets;
  }

  #killedMessage(): string {
    return `nft did not finish within ${Math.ceil(this.#timeoutMs / 1000)} s and was stopped`;
  }

  async #nft(args: readonly string[], input?: string): Promise<CommandResult> {
    const argv = [...this.#command, ...args];
    try {
      return await this.#run(argv, { timeoutMs: this.#timeoutMs, ...(input === undefined ? {} : { input }) });
    } catch (error) {
      throw new Error(`cannot run ${argv[0] ?? 'nft'}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}
