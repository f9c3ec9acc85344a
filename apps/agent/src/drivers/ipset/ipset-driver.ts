import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { canonicalAddress, parseAddress } from '../addresses.js';
import { runCommand } from '../command.js';
import { clampDeviceTimeout } from '../device-timeout.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { commandsLike, type CommandRunner, type ManagedRuleCommands } from '../managed-rule/commands.js';
import { ConntrackFlows } from '../managed-rule/conntrack.js';
import { IptablesRuleOwner } from '../managed-rule/iptables-rule-owner.js';
import {
  IPTABLES_CHAIN_MAX_LENGTH,
  planManagedRules,
  readManagedRule,
  reportManagedRuleFailures,
} from '../managed-rule/managed-rule.js';
import { failed, succeeded } from '../outcomes.js';
import {
  isGlobalError,
  isSetLevelError,
  parseIpsetError,
  parseSaveMembers,
  parseSaveTimeouts,
} from './ipset-output.js';
import { IpsetShell } from './ipset-shell.js';

export interface IpsetDriverOptions {
  /** The only sets this agent may change (its configuration's ipset.allowedSets). */
  allowedSets: readonly string[];
  /**
   * The argv that runs ipset, before its own arguments: `['/usr/sbin/ipset']`, `['sudo', '-n', 'ipset']`,
   * or in tests `['ip', 'netns', 'exec', '<ns>', 'ipset']` so the sets live in a private namespace.
   */
  command: readonly string[];
  logger: Logger;
  /** One ipset run taking longer than this is killed and its entries fail. */
  commandTimeoutMs?: number;
  /** Keep a long-lived interactive ipset for small batches (default true). */
  useShell?: boolean;
  /** The time, for when to try the shell again after it failed (default Date.now; tests pass their own). */
  now?: () => number;
  /**
   * The argv of iptables, ip6tables (and their -restore) and conntrack for backends with a
   * ManagedRule; default: each run the way `command` runs ipset (see commandsLike).
   */
  managedRuleCommands?: ManagedRuleCommands;
  /**
   * Runs each program but the long-lived shell (default: runCommand): ipset restore and list, and
   * the managed rule's programs. Unit tests pass their own to see the argv in order.
   */
  runner?: CommandRunner;
}

/** One line of an `ipset restore` script and the entry it is for. */
interface Operation {
  index: number;
  set: string;
  line: string;
  /** For an add: the address as the set holds it, read back afterwards (closed-loop verification). */
  verify?: string;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Batches up to this size go through the long-lived shell; bigger ones through one `ipset restore`. */
const SHELL_BATCH_LIMIT = 64;
/** After the shell fails, batches use `ipset restore` for this long before the shell is tried again. */
const SHELL_RETRY_AFTER_MS = 30_000;
const SHELL_TIMEOUT_MS = 5_000;

/**
 * Linux IP sets. IPv4 addresses go to the knoc's V4SetName and IPv6 to its V6SetName, each entry with
 * the grant's remaining time as its kernel timeout, so the kernel removes it on time even when no
 * Postern process is alive. Only sets in the agent's configuration are ever written.
 *
 * Every command runs with -exist: `add` of a present entry refreshes its timeout and `del` of an
 * absent one is fine. Small batches (a grant, a revoke) go through a long-lived interactive ipset,
 * because starting a process costs more than the change; big ones (a reconcile) through one
 * `ipset restore`, and when ipset stops at a bad line the rest of the batch continues after it, so
 * each error lands on its own entry either way.
 */
/** The knoc's set names ('' for none). */
interface IpsetAcl {
  V4SetName: string;
  V6SetName: string;
}

function ipsetAcl(knoc: AgentKnocOf<'ipset'>): IpsetAcl {
  return { V4SetName: (knoc.acl.V4SetName ?? '').trim(), V6SetName: (knoc.acl.V6SetName ?? '').trim() };
}

export class IpsetDriver implements Driver<'ipset'> {
  readonly type = 'ipset' as const;
  readonly #allowed: ReadonlySet<string>;
  readonly #command: readonly string[];
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #shell: IpsetShell | null;
  readonly #now: () => number;
  readonly #runner: CommandRunner;
  readonly #rules: IptablesRuleOwner;
  readonly #flows: ConntrackFlows;
  #shellRetryAt = 0;

  constructor(options: IpsetDriverOptions) {
    this.#allowed = new Set(options.allowedSets);
    this.#command = options.command;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#runner = options.runner ?? runCommand;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    // A batch of a few dozen lines takes milliseconds; a shell silent for seconds is broken, and the
    // batch goes through `ipset restore` instead.
    const shellTimeoutMs = Math.min(this.#timeoutMs, SHELL_TIMEOUT_MS);
    this.#shell = options.useShell === false ? null : new IpsetShell(options.command, shellTimeoutMs);
    const commands = options.managedRuleCommands ?? commandsLike(options.command);
    this.#rules = new IptablesRuleOwner({
      commands,
      logger: options.logger,
      timeoutMs: this.#timeoutMs,
      run: this.#runner,
      lookForLeftovers: options.command[0] !== 'sudo',
    });
    this.#flows = new ConntrackFlows({ command: commands.conntrack, logger: options.logger, run: this.#runner });
  }

  /**
   * Writes the managed rule of every backend that has one (ManagedRule in its config: a chain
   * `POSTERN-<id>` returning for the knocs' sets and dropping the rest, jumped to first in the
   * admin's chain for the rule's ports), and removes the rules of backends that no longer have one
   * or no longer have knocs. Rejects naming the knocs whose rules could not be written.
   */
  async configure(knocs: readonly AgentKnocOf<'ipset'>[]): Promise<void> {
    const allowed = (set: string) => (set !== '' && this.#allowed.has(set) ? [set] : []);
    const { plans, unreadable } = planManagedRules(
      knocs.map((knoc) => {
        const acl = ipsetAcl(knoc);
        return {
          backendId: knoc.backendId,
          backend: knoc.backend,
          sets: { inet: allowed(acl.V4SetName), inet6: allowed(acl.V6SetName) },
        };
      }),
      IPTABLES_CHAIN_MAX_LENGTH,
    );
    const failures = await this.#rules.converge(plans, new Set(unreadable.keys()));
    reportManagedRuleFailures({ driver: 'ipset', knocs, failures, unreadable, logger: this.#logger });
  }

  /** Adds (or refreshes) the entries, then reads each back from the kernel: ok only when the set holds it. */
  apply(knoc: AgentKnocOf<'ipset'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#change(
      knoc,
      entries,
      (set, address, entry) => `add ${set} ${address} timeout ${clampDeviceTimeout(entry.ttlSeconds)}`,
      true,
    );
  }

  /**
   * Removes the entries from the sets; on a backend with a ManagedRule, then ends the removed
   * addresses' tracked connections to the rule's ports (see ConntrackFlows for why both).
   */
  async remove(knoc: AgentKnocOf<'ipset'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const outcomes = await this.#change(knoc, entries, (set, address) => `del ${set} ${address}`, false);
    const reading = readManagedRule(knoc.backend, IPTABLES_CHAIN_MAX_LENGTH);
    if ('rule' in reading && reading.rule !== null) {
      await this.#flows.endRemoved(outcomes, reading.rule.Ports);
    }
    return outcomes;
  }

  async list(knoc: AgentKnocOf<'ipset'>): Promise<string[]> {
    const members: string[] = [];
    for (const { set, output } of await this.#saved(knoc)) {
      members.push(...parseSaveMembers(output, set).map(canonicalAddress));
    }
    return members;
  }

  /** The kernel timeout each member of the knoc's sets has left, by canonical address. */
  async remainingSeconds(knoc: AgentKnocOf<'ipset'>): Promise<ReadonlyMap<string, number>> {
    const remaining = new Map<string, number>();
    for (const { set, output } of await this.#saved(knoc)) {
      for (const [member, seconds] of parseSaveTimeouts(output, set)) remaining.set(canonicalAddress(member), seconds);
    }
    return remaining;
  }

  /** `ipset list <set> -output save` of each of the knoc's allowed sets. */
  async #saved(knoc: AgentKnocOf<'ipset'>): Promise<{ set: string; output: string }[]> {
    const saved: { set: string; output: string }[] = [];
    // Sets this agent may not touch are not its business, so they are not listed either.
    for (const set of this.#knocSets(ipsetAcl(knoc)).filter((name) => this.#allowed.has(name))) {
      const result = await this.#run(['list', set, '-output', 'save']);
      if (result.code !== 0) {
        const reason = result.code === null ? this.#killedMessage() : parseIpsetError(result.stderr).message;
        throw new Error(`ipset list ${set}: ${reason}`);
      }
      saved.push({ set, output: result.stdout });
    }
    return saved;
  }

  async flush(knoc: AgentKnocOf<'ipset'>): Promise<void> {
    const members = await this.list(knoc);
    if (members.length === 0) return;
    const outcomes = await this.remove(
      knoc,
      members.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`ipset: could not flush ${failure.ip}: ${failure.error}`);
  }

  close(): Promise<void> {
    this.#shell?.close();
    return Promise.resolve();
  }

  async #change(
    knoc: AgentKnocOf<'ipset'>,
    entries: readonly DriverEntry[],
    lineFor: (set: string, address: string, entry: DriverEntry) => string,
    verify: boolean,
  ): Promise<EntryOutcome[]> {
    const acl = ipsetAcl(knoc);
    const outcomes: EntryOutcome[] = entries.map((entry) => succeeded(entry.ip));
    const operations: Operation[] = [];
    entries.forEach((entry, index) => {
      const target = this.#setFor(acl, entry.ip);
      if ('error' in target) outcomes[index] = failed(entry.ip, target.error);
      else
        operations.push({
          index,
          set: target.set,
          line: lineFor(target.set, target.address, entry),
          // A network is stored differently by each set type (hash:ip splits it); single addresses are read back.
          ...(verify && !target.address.includes('/') ? { verify: target.address } : {}),
        });
    });
    for (const [operation, error] of await this.#execute(operations)) {
      const entry = entries[operation.index];
      if (entry !== undefined) outcomes[operation.index] = failed(entry.ip, error);
    }
    return outcomes;
  }

  /** The set an address goes to, or why it cannot go anywhere. */
  #setFor(acl: IpsetAcl, ip: string): { set: string; address: string } | { error: string } {
    const parsed = parseAddress(ip);
    if (parsed === null) return { error: `${ip} is not an IPv4 or IPv6 address` };
    const set = parsed.family === 'inet' ? acl.V4SetName : acl.V6SetName;
    if (set === '') {
      const field = parsed.family === 'inet' ? 'V4SetName' : 'V6SetName';
      return { error: `this knoc has no ${parsed.family === 'inet' ? 'IPv4' : 'IPv6'} set (${field}) for ${ip}` };
    }
    if (!this.#allowed.has(set)) return { error: `set ${set} is not allowed by this agent's configuration` };
    return { set, address: parsed.canonical };
  }

  #knocSets(acl: IpsetAcl): string[] {
    return [...new Set([acl.V4SetName, acl.V6SetName].filter((name) => name !== ''))];
  }

  /** Runs the operations and returns the ones that failed, with what ipset said. */
  async #execute(operations: Operation[]): Promise<Map<Operation, string>> {
    const inShell = await this.#runInShell(operations);
    if (inShell !== null) return inShell;
    const errors = await this.#restore(operations);
    await this.#verifyByListing(
      operations.filter((op) => op.verify !== undefined && !errors.has(op)),
      errors,
    );
    return errors;
  }

  /**
   * Reads a restored batch back: each set listed once, every added address looked up in it. One
   * listing per set costs far less than a test per entry on a big reconcile.
   */
  async #verifyByListing(added: Operation[], errors: Map<Operation, string>): Promise<void> {
    for (const set of new Set(added.map((op) => op.set))) {
      const result = await this.#run(['list', set, '-output', 'save']);
      const ofSet = added.filter((op) => op.set === set);
      if (result.code !== 0) {
        const reason = result.code === null ? this.#killedMessage() : parseIpsetError(result.stderr).message;
        for (const op of ofSet) errors.set(op, `could not read set ${set} back: ${reason}`);
        continue;
      }
      const held = new Set(parseSaveMembers(result.stdout, set).map(canonicalAddress));
      for (const op of ofSet) {
        if (!held.has(canonicalAddress(op.verify ?? ''))) errors.set(op, notHeldMessage(op));
      }
    }
  }

  /**
   * Runs the operations as one restore script and returns the ones that failed, with their errors.
   * ipset applies every line before the one it stops at, so the batch continues after that line.
   */
  async #restore(operations: Operation[]): Promise<Map<Operation, string>> {
    const errors = new Map<Operation, string>();
    let pending = operations;
    while (pending.length > 0) {
      const result = await this.#run(['restore', '-exist'], `${pending.map((op) => op.line).join('\n')}\n`);
      if (result.code === 0) break;
      if (result.code === null) {
        for (const op of pending) errors.set(op, this.#killedMessage());
        break;
      }
      const { line, message } = parseIpsetError(result.stderr);
      const stopped = line === null ? undefined : pending[line - 1];
      if (isGlobalError(message) || (stopped === undefined && pending.length === 1)) {
        for (const op of pending) errors.set(op, message);
        break;
      }
      if (stopped === undefined) {
        // ipset did not say which line; one at a time tells us.
        for (const op of pending) {
          const single = await this.#run(['restore', '-exist'], `${op.line}\n`);
          if (single.code === null) errors.set(op, this.#killedMessage());
          else if (single.code !== 0) errors.set(op, parseIpsetError(single.stderr).message);
        }
        break;
      }
      errors.set(stopped, message);
      pending = pending.slice(line ?? pending.length);
      if (isSetLevelError(message)) {
        for (const op of pending.filter((other) => other.set === stopped.set)) errors.set(op, message);
        pending = pending.filter((other) => other.set !== stopped.set);
      }
    }
    if (errors.size > 0) this.#logger.warn({ failed: errors.size, of: operations.length }, 'ipset entries failed');
    return errors;
  }

  /** The errors of a small batch run through the shell, or null when the shell cannot be used now. */
  async #runInShell(operations: Operation[]): Promise<Map<Operation, string> | null> {
    if (this.#shell === null || operations.length === 0 || operations.length > SHELL_BATCH_LIMIT) return null;
    if (this.#now() < this.#shellRetryAt) return null;
    // Each add is followed by a `test` of the same address: the kernel's own answer, in the same round trip.
    const lines = operations.flatMap((op) =>
      op.verify === undefined ? [op.line] : [op.line, `test ${op.set} ${op.verify}`],
    );
    let answers: string[];
    try {
      answers = await this.#shell.run(lines);
    } catch (error) {
      this.#shellRetryAt = this.#now() + SHELL_RETRY_AFTER_MS;
      this.#logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'ipset shell failed; using ipset restore',
      );
      return null;
    }
    const errors = new Map<Operation, string>();
    let next = 0;
    for (const op of operations) {
      const answer = answers[next] ?? '';
      next += 1;
      if (answer.trim() !== '') errors.set(op, parseIpsetError(answer).message);
      if (op.verify === undefined) continue;
      const test = answers[next] ?? '';
      next += 1;
      // A present entry answers "Warning: … is in set …"; an absent one "… is NOT in set …".
      if (!errors.has(op) && !/ is in set /.test(test)) errors.set(op, notHeldMessage(op));
    }
    if (errors.size > 0) this.#logger.warn({ failed: errors.size, of: operations.length }, 'ipset entries failed');
    return errors;
  }

  #killedMessage(): string {
    return `ipset did not finish within ${Math.ceil(this.#timeoutMs / 1000)} s and was stopped`;
  }

  async #run(args: string[], input?: string) {
    const argv = [...this.#command, ...args];
    try {
      return await this.#runner(argv, {
        timeoutMs: this.#timeoutMs,
        ...(input === undefined ? {} : { input }),
      });
    } catch (error) {
      throw new Error(`cannot run ${argv[0] ?? 'ipset'}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}

/** An add ipset accepted but the set does not hold afterwards (another process removed it at once, a full set…). */
function notHeldMessage(op: Operation): string {
  return `set ${op.set} does not hold ${op.verify ?? ''} after adding it`;
}
