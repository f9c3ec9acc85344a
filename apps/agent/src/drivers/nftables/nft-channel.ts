import type { Logger } from 'pino';
import type { CommandResult, RunOptions } from '../command.js';
import type { TableReading } from '../managed-rule/nft-rule-owner.js';
import { errorMessage } from '../outcomes.js';
import {
  allowedSetKey,
  batchDocument,
  parseNftError,
  parseSetListing,
  type NftCommand,
  type NftSetRef,
} from './nft-json.js';
import { parseTableListing, type NftTableRef } from './nft-rules.js';
import type { NftShellAnswer, NftShellCommand, NftShellPort } from './nft-shell.js';
import type { NftIo, SetReading } from './nftables-writes.js';

/** How nft is spawned: runNft (nft-command.ts), or a fake in tests. */
export type CommandRunner = (argv: readonly string[], options: RunOptions) => Promise<CommandResult>;

export interface NftChannelOptions {
  /** The argv that runs nft, before its own arguments. */
  command: readonly string[];
  run: CommandRunner;
  /** The long-lived `nft -j -i`, or null to spawn nft for everything. */
  shell: NftShellPort | null;
  logger: Logger;
  /** One spawned nft taking longer than this is killed. */
  timeoutMs: number;
  now: () => number;
}

/** After the shell fails, everything spawns nft for this long before the shell is tried again. */
export const SHELL_RETRY_AFTER_MS = 30_000;

/**
 * How the nftables driver reaches nft. Batches and set listings go through the long-lived shell
 * when there is one, and by spawning nft (`nft -j -f -`, `nft -j list set …`) when the shell fails:
 * the same work again, which is harmless as every batch the driver sends is idempotent. After a
 * shell failure nft is spawned for {@link SHELL_RETRY_AFTER_MS}, then the shell is started again.
 * {@link NftChannel.spawned} always spawns (the big batches of a reconcile go that way); table
 * listings always spawn too, as they need `-t -a`, which a shell cannot change per command.
 */
export class NftChannel implements NftIo {
  /** The same operations without the shell. */
  readonly spawned: NftIo;
  readonly #options: NftChannelOptions;
  #shellRetryAt = 0;

  constructor(options: NftChannelOptions) {
    this.#options = options;
    this.spawned = {
      batch: (commands) => this.#spawnedBatch(batchDocument(commands)),
      readSet: (set) => this.#spawnedReadSet(set),
    };
  }

  /** One batch: null when the kernel took it, else what nft said. */
  async batch(commands: readonly NftCommand[]): Promise<string | null> {
    const document = batchDocument(commands);
    const answers = await this.#inShell([{ line: asciiLine(document) }]);
    const answer = answers?.[0];
    return answer === undefined ? this.#spawnedBatch(document) : batchAnswer(answer);
  }

  /** `list set <family> <table> <name>`, parsed. */
  async readSet(set: NftSetRef): Promise<SetReading> {
    const answers = await this.#inShell([listSetCommand(set)]);
    const answer = answers?.[0];
    return answer === undefined ? this.#spawnedReadSet(set) : listingAnswer(answer, set);
  }

  /**
   * A batch and then listings of `sets`, in one round trip through the shell: what nft said of the
   * batch (null: taken) and each set as read right after it; null when the shell cannot be used now.
   */
  async batchThenRead(
    commands: readonly NftCommand[],
    sets: readonly NftSetRef[],
  ): Promise<{ error: string | null; readings: SetReading[] } | null> {
    const answers = await this.#inShell([{ line: asciiLine(batchDocument(commands)) }, ...sets.map(listSetCommand)]);
    if (answers === null) return null;
    const [written, ...listed] = answers;
    if (written === undefined) return null;
    return {
      error: batchAnswer(written),
      readings: sets.map((set, index) => {
        const answer = listed[index];
        return answer === undefined ? { error: 'nft gave no listing' } : listingAnswer(answer, set);
      }),
    };
  }

  /** `nft -j -t -a list table <family> <table>`: chains and rules with handles, without the sets' elements. */
  async readTable(table: NftTableRef): Promise<TableReading> {
    const result = await this.#nft(['-j', '-t', '-a', 'list', 'table', table.family, table.table]);
    if (result.code !== 0) return { error: this.#failure(result) };
    try {
      return { table: parseTableListing(result.stdout, table) };
    } catch (error) {
      return { error: `nft printed what is not its JSON listing (${errorMessage(error)})` };
    }
  }

  /** Ends the shell. */
  close(): Promise<void> {
    return this.#options.shell?.close() ?? Promise.resolve();
  }

  /** The shell's answers, or null when it is not to be used now or has just failed (logged). */
  async #inShell(commands: readonly NftShellCommand[]): Promise<NftShellAnswer[] | null> {
    const { shell, now, logger } = this.#options;
    if (shell === null || now() < this.#shellRetryAt) return null;
    try {
      return await shell.run(commands);
    } catch (error) {
      this.#shellRetryAt = now() + SHELL_RETRY_AFTER_MS;
      logger.warn({ error: errorMessage(error) }, 'nft shell failed; spawning nft');
      return null;
    }
  }

  async #spawnedBatch(document: string): Promise<string | null> {
    const result = await this.#nft(['-j', '-f', '-'], document);
    return result.code === 0 ? null : this.#failure(result);
  }

  async #spawnedReadSet(set: NftSetRef): Promise<SetReading> {
    const result = await this.#nft(['-j', 'list', 'set', set.family, set.table, set.name]);
    return result.code === 0 ? parseListing(result.stdout, set) : { error: this.#failure(result) };
  }

  #failure(result: CommandResult): string {
    return result.code === null
      ? `nft did not finish within ${Math.ceil(this.#options.timeoutMs / 1000)} s and was stopped`
      : parseNftError(result.stderr);
  }

  async #nft(args: readonly string[], input?: string): Promise<CommandResult> {
    const argv = [...this.#options.command, ...args];
    try {
      return await this.#options.run(argv, {
        timeoutMs: this.#options.timeoutMs,
        ...(input === undefined ? {} : { input }),
      });
    } catch (error) {
      throw new Error(`cannot run ${argv[0] ?? 'nft'}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

/**
 * A JSON document as one line of printable ASCII for the shell: JSON.stringify leaves no newline
 * (nor any other character below U+0020) outside an escape, and what else is not printable ASCII
 * can only stand inside a string, where `\uXXXX` means the same.
 */
function asciiLine(json: string): string {
  return json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The JSON listing of one set, as a shell line. */
function listSetCommand(set: NftSetRef): NftShellCommand {
  const ref = { family: set.family, table: set.table, name: set.name };
  return { line: asciiLine(JSON.stringify({ nftables: [{ list: { set: ref } }] })), output: true };
}

function batchAnswer(answer: NftShellAnswer): string | null {
  return answer.stderr === '' ? null : parseNftError(answer.stderr);
}

function listingAnswer(answer: NftShellAnswer, set: NftSetRef): SetReading {
  if (answer.stderr !== '' || answer.stdout === null) return { error: parseNftError(answer.stderr) };
  return parseListing(answer.stdout, set);
}

/** The set in nft's JSON listing, checked to be the one asked for. */
function parseListing(stdout: string, set: NftSetRef): SetReading {
  try {
    const listed = parseSetListing(stdout).find((candidate) => allowedSetKey(candidate) === allowedSetKey(set));
    return listed === undefined ? { error: 'nft listed no such set' } : { set: listed };
  } catch (error) {
    return { error: `nft printed what is not its JSON listing (${errorMessage(error)})` };
  }
}
