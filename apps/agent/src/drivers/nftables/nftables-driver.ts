import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { clampDeviceTimeout } from '../device-timeout.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { ConntrackFlows } from '../managed-rule/conntrack.js';
import { NftRuleOwner } from '../managed-rule/nft-rule-owner.js';
import { failed, succeeded } from '../outcomes.js';
import { NftChannel, type CommandRunner } from './nft-channel.js';
import { allowedSetKey, flushSetCommand, setLabel, type ListedSet, type NftSetRef } from './nft-json.js';
import { runNft } from './nft-command.js';
import { NftShell, type NftShellPort } from './nft-shell.js';
import {
  allowedTables,
  conntrackCommandLike,
  planNftManagedRules,
  readNftManagedRule,
} from './nftables-managed-rule.js';
import { reportManagedRuleFailures } from '../managed-rule/managed-rule.js';
import { knocSets, nftablesTarget, routeEntry } from './nftables-target.js';
import {
  groupBySet,
  writeCommands,
  writeInBatches,
  type NftIo,
  type NftOperation,
  type SetReading,
  type WriteMode,
} from './nftables-writes.js';

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
  /** Spawns nft and conntrack (default: {@link runNft}); tests pass a fake kernel. */
  run?: CommandRunner;
  /**
   * The long-lived `nft -j -i` for small batches and listings: by default an {@link NftShell} of
   * `command`, except when `run` is given (a fake kernel behind `run` is not reached by a real
   * shell); false: spawn nft for everything; tests pass a fake.
   */
  shell?: NftShellPort | false;
  /** The time, for when to try the shell again after it failed (default Date.now; tests pass their own). */
  now?: () => number;
  /**
   * The argv of conntrack, which ends a revoked address's connections on a backend with a
   * ManagedRule; default: run the way `command` runs nft (see conntrackCommandLike).
   */
  conntrackCommand?: readonly string[];
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Calls writing up to this many elements go through the shell; bigger ones (a reconcile) through `nft -j -f -`. */
const SHELL_BATCH_LIMIT = 64;
/** A shell silent for this long is broken: it is killed and the work is done by spawning nft. */
const SHELL_TIMEOUT_MS = 5_000;

/**
 * nftables named sets (type ipv4_addr / ipv6_addr, `flags timeout`) in the table the backend names:
 * IPv4 addresses go to the knoc's V4SetName and IPv6 to its V6SetName, each element with the grant's
 * remaining time as its kernel timeout, so the kernel removes it on time with no Postern process
 * alive. The admin's ruleset makes the table and the sets; the agent writes elements only, and only
 * in sets its configuration allows.
 *
 * Every write is one JSON batch, which the kernel applies atomically: a small one (a grant, a
 * revoke) through a long-lived `nft -j -i` (see NftShell: starting nft costs more than the change),
 * an apply read back in the same round trip; a big one (a reconcile after a restart, however many
 * entries it holds) through `nft -j -f -`, as is everything while the shell fails (see NftChannel).
 * nft has no idempotent element commands on 1.0.6 (no `destroy`; `delete` of an absent element
 * fails the batch, `add` of a present one may keep its old timeout), so every write is built to
 * succeed whatever the set holds, and doing one twice (the shell died midway) is harmless:
 * - apply = add, delete, add: the first add makes the element present, the delete takes it out,
 *   the second add writes it with its new timeout (a deadline moved earlier takes effect too);
 * - remove = add (timeout 1 s), delete: the add makes an absent element present for the delete.
 * No list is needed before a write, so nothing can expire between a list and the batch.
 */
export class NftablesDriver implements Driver<'nftables'> {
  readonly type = 'nftables' as const;
  readonly #allowed: ReadonlySet<string>;
  readonly #logger: Logger;
  readonly #channel: NftChannel;
  readonly #rules: NftRuleOwner;
  readonly #flows: ConntrackFlows;

  constructor(options: NftablesDriverOptions) {
    this.#allowed = new Set(options.allowedSets);
    this.#logger = options.logger;
    const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const run = options.run ?? runNft;
    this.#channel = new NftChannel({
      command: options.command,
      run,
      shell: shellOf(options, Math.min(timeoutMs, SHELL_TIMEOUT_MS)),
      logger: options.logger,
      timeoutMs,
      now: options.now ?? Date.now,
    });
    this.#rules = new NftRuleOwner({
      io: this.#channel,
      logger: options.logger,
      leftoverTables: allowedTables(options.allowedSets),
    });
    this.#flows = new ConntrackFlows({
      command: options.conntrackCommand ?? conntrackCommandLike(options.command),
      logger: options.logger,
      run: (argv, runOptions) => run(argv, runOptions ?? {}),
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
    const errors = (await this.#applyInOneRoundTrip(operations)) ?? (await this.#applyStepByStep(operations));
    return this.#finish(entries, outcomes, errors);
  }

  /**
   * Removes the entries (an absent element is a success); on a backend with a ManagedRule, then ends
   * the removed addresses' tracked connections to the rule's ports (see ConntrackFlows for why both).
   */
  async remove(knoc: AgentKnocOf<'nftables'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const { outcomes, operations } = this.#route(knoc, entries);
    const finished = this.#finish(entries, outcomes, await this.#write(this.#ioFor(operations), operations, 'remove'));
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
    const together = await this.#channel.batch(sets.map(flushSetCommand));
    if (together === null) return;
    const failures: string[] = [];
    for (const set of sets) {
      const alone = sets.length === 1 ? together : await this.#channel.batch([flushSetCommand(set)]);
      if (alone !== null) failures.push(`set ${setLabel(set)}: ${alone}`);
    }
    if (failures.length > 0) throw new Error(`nftables: could not flush ${failures.join('; ')}`);
  }

  /** Ends the long-lived nft. */
  close(): Promise<void> {
    return this.#channel.close();
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

  /** The shell for a small call, `nft -j -f -` for a big one (a reconcile). */
  #ioFor(operations: readonly NftOperation[]): NftIo {
    return operations.length > SHELL_BATCH_LIMIT ? this.#channel.spawned : this.#channel;
  }

  /**
   * The common case of a small apply in one round trip through the shell: the batch, then a
   * listing of each set it wrote. Null when that cannot answer (no shell now, too big a call) or
   * the batch failed, which {@link NftablesDriver.#applyStepByStep} then takes apart.
   */
  async #applyInOneRoundTrip(operations: NftOperation[]): Promise<Map<NftOperation, string> | null> {
    if (operations.length === 0 || operations.length > SHELL_BATCH_LIMIT) return null;
    const bySet = groupBySet(operations);
    const sets = [...bySet.values()].map((ops) => ops[0]?.set).filter((set) => set !== undefined);
    const answer = await this.#channel.batchThenRead(writeCommands(operations, 'apply'), sets);
    if (answer === null || answer.error !== null) return null;
    const errors = new Map<NftOperation, string>();
    sets.forEach((set, index) => {
      const reading = answer.readings[index] ?? { error: 'nft gave no listing' };
      checkHeld(set, bySet.get(allowedSetKey(set)) ?? [], reading, errors);
    });
    return errors;
  }

  /** Writes (finding each failing entry's own error), then reads each set written back. */
  async #applyStepByStep(operations: NftOperation[]): Promise<Map<NftOperation, string>> {
    const io = this.#ioFor(operations);
    const errors = await this.#write(io, operations, 'apply');
    const added = operations.filter((op) => !errors.has(op));
    for (const ops of groupBySet(added).values()) {
      const set = ops[0]?.set;
      if (set !== undefined) checkHeld(set, ops, await io.readSet(set), errors);
    }
    return errors;
  }

  async #write(io: NftIo, operations: NftOperation[], mode: WriteMode): Promise<Map<NftOperation, string>> {
    const errors = await writeInBatches(io, operations, mode);
    if (errors.size > 0) {
      this.#logger.warn({ failed: errors.size, of: operations.length, mode }, 'nftables entries failed');
    }
    return errors;
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
      const reading = await this.#channel.readSet(set);
      if ('error' in reading) throw new Error(`nft list set ${setLabel(set)}: ${reading.error}`);
      sets.push(reading.set);
    }
    return sets;
  }
}

/** The shell the options ask for (see NftablesDriverOptions.shell). */
function shellOf(options: NftablesDriverOptions, timeoutMs: number): NftShellPort | null {
  if (options.shell === false) return null;
  if (options.shell !== undefined) return options.shell;
  return options.run === undefined ? new NftShell(options.command, { timeoutMs }) : null;
}

/** Checks every added address is in the set as read back (closed-loop verification). */
function checkHeld(
  set: NftSetRef,
  ops: readonly NftOperation[],
  reading: SetReading,
  errors: Map<NftOperation, string>,
): void {
  if ('error' in reading) {
    for (const op of ops) errors.set(op, `could not read set ${setLabel(set)} back: ${reading.error}`);
    return;
  }
  const held = new Set(reading.set.elements.map((element) => element.address));
  for (const op of ops) {
    if (!held.has(op.address.canonical)) {
      errors.set(op, `set ${setLabel(set)} does not hold ${op.address.canonical} after adding it`);
    }
  }
}
