import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import type { HaproxySocket } from '../../config/settings.js';
import { canonicalAddress, parseAddress, type ParsedAddress } from '../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { socketBackend } from '../socket-backend.js';
import { failed, succeeded } from '../outcomes.js';
import { isNotFound, isSuccess, parseGetAcl, parseShowAclEntries } from './haproxy-output.js';
import { RuntimeConnection } from './runtime-connection.js';
import { runtimeTarget, targetKey } from './runtime-target.js';

export interface HaproxyDriverOptions {
  /** The agent's configured runtime socket, used when a backend's Address is empty. */
  socket: HaproxySocket | null;
  logger: Logger;
  /** A runtime API connection silent for this long is given up. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Up to this many single hosts are looked up one by one; more, and the whole ACL is read once. */
const LOOKUP_LIMIT = 64;

/**
 * HAProxy ACLs through the runtime API (`add acl #<ID>`, `del acl`, `show acl`). HAProxy keeps no
 * timers for ACL patterns, so the agent's own timers remove entries; nothing here survives an
 * HAProxy reload either, which is why the agent reconciles with `list` after reconnecting.
 *
 * Each call is one connection in interactive mode: first what the ACL already holds (`get acl` for a
 * few hosts, `show acl` otherwise), because HAProxy would add a duplicate pattern for an address it
 * has and `del acl` matches the stored spelling; then every change written at once. Calls on the
 * same socket run one after another, so two of them cannot both decide an address is missing.
 */
/** The knoc's HAProxy ACL ID: digits only, for `#<ID>` (the driver never writes anything else). */
function haproxyAclId(knoc: AgentKnocOf<'haproxy'>): string {
  const id = String(knoc.acl.ID ?? '').trim();
  if (!/^\d{1,9}$/.test(id)) {
    throw new Error(`knoc ${knoc.aclId} has an unusable haproxy ACL config.ID: the HAProxy ACL ID must be a number`);
  }
  return id;
}

export class HaproxyDriver implements Driver<'haproxy'> {
  readonly type = 'haproxy' as const;
  readonly #socket: HaproxySocket | null;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: HaproxyDriverOptions) {
    this.#socket = options.socket;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  apply(knoc: AgentKnocOf<'haproxy'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#session(knoc, async (connection, acl) => {
      const { outcomes, addresses } = parseEntries(entries);
      const present = await this.#stored(connection, acl, [...addresses.values()]);
      const additions: { index: number; address: string }[] = [];
      for (const [index, address] of addresses) {
        if (present.has(address.canonical)) continue;
        present.set(address.canonical, [address.canonical]);
        additions.push({ index, address: address.canonical });
      }
      const answers = await connection.send(additions.map(({ address }) => `add acl ${acl} ${address}`));
      additions.forEach(({ index }, position) => {
        const answer = answers[position] ?? '';
        const entry = entries[index];
        if (entry !== undefined && !isSuccess(answer)) outcomes[index] = failed(entry.ip, answer.trim());
      });
      await this.#verifyHeld(connection, acl, entries, addresses, outcomes);
      this.#logFailures(knoc, outcomes);
      return outcomes;
    });
  }

  /**
   * Closed-loop verification: reads the ACL back on the same connection and fails every entry it
   * does not hold, whatever `add acl` answered (another client may have cleared the ACL meanwhile).
   */
  async #verifyHeld(
    connection: RuntimeConnection,
    acl: string,
    entries: readonly DriverEntry[],
    addresses: ReadonlyMap<number, ParsedAddress>,
    outcomes: EntryOutcome[],
  ): Promise<void> {
    const applied = [...addresses].filter(([index]) => outcomes[index]?.ok === true);
    if (applied.length === 0) return;
    const held = await this.#stored(
      connection,
      acl,
      applied.map(([, address]) => address),
    );
    for (const [index, address] of applied) {
      const entry = entries[index];
      if (entry !== undefined && !held.has(address.canonical)) {
        outcomes[index] = failed(entry.ip, `ACL ${acl} does not hold ${address.canonical} after adding it`);
      }
    }
  }

  remove(knoc: AgentKnocOf<'haproxy'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#session(knoc, async (connection, acl) => {
      const { outcomes, addresses } = parseEntries(entries);
      // Delete every stored spelling of the address (10.0.0.1 and 10.0.0.1/32 are the same host).
      const stored = await this.#stored(connection, acl, [...addresses.values()]);
      const deletions: { index: number; pattern: string }[] = [];
      for (const [index, address] of addresses) {
        for (const pattern of stored.get(address.canonical) ?? []) deletions.push({ index, pattern });
        stored.delete(address.canonical);
      }
      const answers = await connection.send(deletions.map(({ pattern }) => `del acl ${acl} ${pattern}`));
      deletions.forEach(({ index }, position) => {
        const answer = answers[position] ?? '';
        const entry = entries[index];
        if (entry !== undefined && !isSuccess(answer) && !isNotFound(answer)) {
          outcomes[index] = failed(entry.ip, answer.trim());
        }
      });
      this.#logFailures(knoc, outcomes);
      return outcomes;
    });
  }

  list(knoc: AgentKnocOf<'haproxy'>): Promise<string[]> {
    return this.#session(knoc, async (connection, acl) => [
      ...new Set((await this.#show(connection, acl)).map(canonicalAddress)),
    ]);
  }

  async flush(knoc: AgentKnocOf<'haproxy'>): Promise<void> {
    const held = await this.list(knoc);
    const outcomes = await this.remove(
      knoc,
      held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`haproxy: could not remove ${failure.ip}: ${failure.error}`);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#queues.values());
  }

  /**
   * Which of `addresses` the ACL holds, each with the spellings it is stored under. A few single
   * hosts are looked up one by one (`get acl`), so a grant on a big ACL does not read all of it;
   * otherwise the whole ACL is read once (`show acl`).
   */
  async #stored(
    connection: RuntimeConnection,
    acl: string,
    addresses: readonly ParsedAddress[],
  ): Promise<Map<string, string[]>> {
    const stored = new Map<string, string[]>();
    const remember = (pattern: string) => {
      const key = canonicalAddress(pattern);
      stored.set(key, [...(stored.get(key) ?? []), pattern]);
    };
    if (addresses.length <= LOOKUP_LIMIT && addresses.every((address) => address.isHost)) {
      const hosts = [...new Set(addresses.map((address) => address.canonical))];
      const answers = await connection.send(hosts.map((host) => `get acl ${acl} ${host}`));
      hosts.forEach((host, index) => {
        const { pattern } = parseGetAcl(answers[index] ?? '');
        // The best match may be a network around the host; only the host itself counts.
        if (pattern !== null && canonicalAddress(pattern) === host) remember(pattern);
      });
      return stored;
    }
    for (const pattern of await this.#show(connection, acl)) remember(pattern);
    return stored;
  }

  /** The ACL's patterns as HAProxy stores them; only patterns that are addresses count. */
  async #show(connection: RuntimeConnection, acl: string): Promise<string[]> {
    const [answer = ''] = await connection.send([`show acl ${acl}`]);
    return parseShowAclEntries(answer).filter((pattern) => parseAddress(pattern) !== null);
  }

  /** Runs `work` on a fresh interactive connection, after any earlier call on the same socket. */
  async #session<T>(
    knoc: AgentKnocOf<'haproxy'>,
    work: (connection: RuntimeConnection, acl: string) => Promise<T>,
  ): Promise<T> {
    const id = haproxyAclId(knoc);
    const target = runtimeTarget(socketBackend(knoc.backend), this.#socket);
    const key = targetKey(target);
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const connection = await RuntimeConnection.open(target, this.#timeoutMs);
        try {
          return await work(connection, `#${id}`);
        } finally {
          connection.close();
        }
      });
    this.#queues.set(key, run);
    const forget = () => {
      if (this.#queues.get(key) === run) this.#queues.delete(key);
    };
    run.then(forget, forget);
    return run;
  }

  #logFailures(knoc: AgentKnocOf<'haproxy'>, outcomes: EntryOutcome[]): void {
    const failures = outcomes.filter((outcome) => !outcome.ok).length;
    if (failures > 0) this.#logger.warn({ aclId: knoc.aclId, failed: failures }, 'haproxy entries failed');
  }
}

/** The entries' addresses by position, and outcomes with the unparsable ones already failed. */
function parseEntries(entries: readonly DriverEntry[]): {
  outcomes: EntryOutcome[];
  addresses: Map<number, ParsedAddress>;
} {
  const outcomes = entries.map((entry) => succeeded(entry.ip));
  const addresses = new Map<number, ParsedAddress>();
  entries.forEach((entry, index) => {
    const parsed = parseAddress(entry.ip);
    if (parsed === null) outcomes[index] = failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
    else addresses.set(index, parsed);
  });
  return { outcomes, addresses };
}
