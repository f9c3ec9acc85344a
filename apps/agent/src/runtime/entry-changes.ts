import type { Logger } from 'pino';
import type { AgentKnoc, DesiredEntry, EntryResult } from '@postern/protocol';
import { canonicalAddress } from '../drivers/addresses.js';
import type { DriverSet, EntryOutcome } from '../drivers/driver.js';
import { agentMetrics } from '../metrics/agent-metrics.js';
import { ApplyRetries, type ApplyRetryOptions, type PendingApply } from './apply-retries.js';
import type { Clock } from './clock.js';
import { allowedDeadline, RAISE_TOLERANCE_MS } from './deadline-rule.js';
import { callDriver, DRIVER_CALL_BUDGET_MS, errorMessage, KnocBatches, withDriverBudget } from './driver-calls.js';
import { entryKey, type EntryStore, type HeldEntry } from './entry-store.js';
import { FaultPoints } from './fault-points.js';
import { readBack } from './read-back.js';

/** Failed removals are retried after 5 s, doubling to at most 5 minutes. */
const REMOVE_RETRY_FIRST_MS = 5_000;
const REMOVE_RETRY_MAX_MS = 300_000;

/** A removal request: a held entry, or an address the agent does not hold but the device might. */
export interface Removal {
  aclId: string;
  ip: string;
  userName: string;
  knoc: AgentKnoc;
  /** The tombstone's generation once removed. */
  generation: number;
}

export interface Addition {
  entry: DesiredEntry;
  knoc: AgentKnoc;
}

export function removalOf(held: HeldEntry, generation: number): Removal {
  return { aclId: held.aclId, ip: held.ip, userName: held.userName, knoc: held.knoc, generation };
}

/** What {@link EntryChanges} works with. */
export interface EntryChangesOptions {
  store: EntryStore;
  drivers: DriverSet;
  clock: Clock;
  logger: Logger;
  /**
   * Writes a batch of removals ahead, `entries` already marked as removing: resolves once they are
   * on the disk (the runtime appends them to the removal journal and fdatasyncs it, or when that
   * fails writes the whole state file); called once per batch, before any driver is called. It
   * never rejects: a failed write is logged and the removal goes ahead, because taking access away
   * matters more than remembering having done so.
   */
  writeAhead?: (entries: readonly HeldEntry[]) => Promise<void>;
  /** Test-only crash points (see fault-points.ts); none by default. */
  faults?: FaultPoints;
  /**
   * Retry failed applies of desired entries with back-off (apply-retries.ts), running each round
   * through `enqueue` and reporting it through `report`. Without it a failed apply stays failed
   * until the server sends the entry again.
   */
  retries?: ApplyRetryOptions;
  /** How long one driver call may go without an answer (default {@link DRIVER_CALL_BUDGET_MS}). */
  callBudgetMs?: number;
}

/**
 * Per-entry removals and additions: one driver call per knoc and action, each outcome reported as an
 * entry result and recorded in the {@link EntryStore} (held, tombstoned, or kept for a removal retry).
 * The reconciler decides which changes to make; this carries them out.
 *
 * Removals are written ahead: every entry of a batch is marked as removing and written to the disk
 * (one fdatasynced append to the removal journal for the batch) before the first driver call, so a
 * crash at any point after the removal was received leaves a state file and journal whose restore
 * removes the entry again, and never puts it back.
 */
export class EntryChanges {
  readonly #store: EntryStore;
  readonly #drivers: DriverSet;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #writeAhead: (entries: readonly HeldEntry[]) => Promise<void>;
  readonly #faults: FaultPoints;
  readonly #budgetMs: number;
  /** Failed applies being retried; null when the runtime did not ask for retries. */
  readonly retries: ApplyRetries | null;

  constructor(options: EntryChangesOptions) {
    this.#store = options.store;
    this.#drivers = options.drivers;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#writeAhead = options.writeAhead ?? (() => Promise.resolve());
    this.#faults = options.faults ?? FaultPoints.none;
    this.#budgetMs = options.callBudgetMs ?? DRIVER_CALL_BUDGET_MS;
    const retry = options.retries;
    this.retries =
      retry === undefined
        ? null
        : new ApplyRetries({
            clock: options.clock,
            logger: options.logger,
            ...(retry.backoff === undefined ? {} : { backoff: retry.backoff }),
            ...(retry.random === undefined ? {} : { random: retry.random }),
            onDue: (aclId) =>
              retry.enqueue(async () => {
                const results = await this.retryRound(aclId);
                if (results.length > 0) retry.report(results);
              }),
          });
  }

  async remove(removals: readonly Removal[]): Promise<EntryResult[]> {
    if (removals.length === 0) return [];
    const batches = new KnocBatches<{ removal: Removal; held: HeldEntry }>();
    const removing: HeldEntry[] = [];
    for (const removal of removals) {
      // A removal is the newest word on the entry: a pending apply retry must not put it back.
      this.retries?.cancel(removal.aclId, removal.ip);
      const held = this.#store.beginRemoval(removal);
      removing.push(held);
      batches.add(removal.knoc, { removal, held });
    }
    await this.#writeAhead(removing);
    this.#faults.reached('before-device-remove');
    const results: EntryResult[] = [];
    for (const [knoc, batch] of batches) {
      const entries = batch.map(({ removal }) => ({
        ip: removal.ip,
        ttlSeconds: 1,
        userName: removal.userName,
      }));
      const outcomes = await callDriver(this.#drivers, 'remove', knoc, entries, this.#budgetMs);
      this.#faults.reached('after-device-remove');
      // Without a driver (a state file from a build that had one) a retry cannot succeed.
      const hopeless = !this.#drivers.has(knoc.backendType);
      batch.forEach(({ removal, held }, index) => {
        const outcome = outcomes[index] ?? { ok: false, error: 'no outcome' };
        results.push({ aclId: removal.aclId, ip: removal.ip, action: 'remove', ok: outcome.ok, error: outcome.error });
        if (outcome.ok || hopeless) {
          this.#store.removed(removal.aclId, removal.ip, removal.generation);
        } else {
          this.#removalFailed(held, removal.generation, outcome.error);
        }
      });
    }
    return results;
  }

  /** Keeps a failed removal as a held entry in `removing` state, retried with back-off. */
  #removalFailed(held: HeldEntry, generation: number, error: string): void {
    const delay = Math.min(REMOVE_RETRY_MAX_MS, REMOVE_RETRY_FIRST_MS * 2 ** held.removeAttempts);
    this.#store.removalFailed(held, generation, this.#clock.monotonicMs() + delay);
    this.#logger.warn(
      { aclId: held.aclId, ip: held.ip, backendType: held.knoc.backendType, error, retryInMs: delay },
      'cannot remove an entry; will retry',
    );
  }

  /**
   * Applies additions; `receivedAtMs` (monotonic) is when their ttls were current. No entry's
   * deadline is raised beyond what it holds except by an extension (see deadline-rule.ts).
   * `readDevice`: for entries the agent does not hold, ask a device that keeps timeouts what it has
   * left (a desired state after a start: the state file may be lost); an `apply` of a new grant does
   * not pay for a listing.
   */
  async add(
    additions: readonly Addition[],
    generation: number,
    receivedAtMs: number,
    readDevice = false,
    retryEnds?: ReadonlyMap<string, number>,
  ): Promise<EntryResult[]> {
    const batches = new KnocBatches<Addition>();
    for (const addition of additions) batches.add(addition.knoc, addition);
    const results: EntryResult[] = [];
    for (const [knoc, batch] of batches) {
      // Only an address the agent knows nothing of can be a leftover with a device timeout; one being
      // removed that is desired again is a new grant (its failed removal left the old timeout).
      const unknown = (entry: DesiredEntry) => !this.#store.entries.has(entryKey(entry.aclId, entry.ip));
      const onDevice =
        readDevice && batch.some(({ entry }) => unknown(entry))
          ? await this.deviceDeadlines(knoc)
          : new Map<string, number>();
      const planned = batch.map(({ entry }) => {
        const held = this.#heldFor(entry.aclId, entry.ip, knoc);
        const decision = allowedDeadline({
          offeredMs: receivedAtMs + entry.ttlSeconds * 1000,
          offeredEndsAt: entry.endsAt,
          held,
          deviceDeadlineMs: unknown(entry) ? onDevice.get(canonicalAddress(entry.ip)) : undefined,
        });
        const refused = decision.refusedMs > RAISE_TOLERANCE_MS;
        if (refused)
          this.raiseRefused(knoc, entry.ip, decision.refusedMs, held, held === undefined ? 'device' : 'held');
        return { entry, deadlineMs: decision.deadlineMs, refused };
      });
      const entries = planned.map(({ entry, deadlineMs }) => ({
        ip: entry.ip,
        ttlSeconds: Math.max(1, Math.ceil((deadlineMs - receivedAtMs) / 1000)),
        userName: entry.userName,
      }));
      const outcomes = await callDriver(this.#drivers, 'apply', knoc, entries, this.#budgetMs);
      // A knoc test's entry: read the device back once the write was accepted, and report what it holds.
      const toVerify = planned.filter(({ entry }, index) => entry.verify === true && outcomes[index]?.ok === true);
      const findings =
        toVerify.length === 0
          ? undefined
          : await readBack(
              this.#drivers,
              knoc,
              toVerify.map(({ entry }) => entry.ip),
              this.#budgetMs,
            );
      planned.forEach(({ entry, deadlineMs, refused }, index) => {
        const outcome: Omit<EntryOutcome, 'ip'> = outcomes[index] ?? { ok: false, error: 'no outcome' };
        results.push({
          aclId: entry.aclId,
          ip: entry.ip,
          action: 'add',
          ok: outcome.ok,
          error: outcome.error,
          ...findings?.get(entry.ip),
        });
        // The outcome decides the entry's retry: done, given up (permanent), or tried again later.
        if (outcome.ok || outcome.permanent === true) this.retries?.cancel(entry.aclId, entry.ip);
        else
          this.retries?.schedule({
            entry,
            knoc,
            generation,
            endsAtMs: retryEnds?.get(entryKey(entry.aclId, entry.ip)) ?? receivedAtMs + entry.ttlSeconds * 1000,
          });
        const held = this.#store.entries.get(entryKey(entry.aclId, entry.ip));
        if (outcome.ok) {
          if (held !== undefined && held.knoc !== knoc) {
            this.#logger.warn(
              { aclId: entry.aclId, ip: entry.ip },
              'an entry under the knoc’s previous configuration could not be removed and is no longer tracked',
            );
          }
          const kept = held !== undefined && held.knoc === knoc && !held.removing ? held : undefined;
          this.#store.hold({
            aclId: entry.aclId,
            ip: entry.ip,
            userName: entry.userName,
            knoc,
            deadlineMs,
            endsAt: entry.endsAt ?? kept?.endsAt,
            raiseRefused: refused || kept?.raiseRefused === true,
            generation,
          });
        } else if (held !== undefined && !held.removing && held.knoc === knoc) {
          // A failed refresh: the device keeps the entry until its old expiry, and so do we.
          this.#store.touched(held, generation);
        }
      });
      const failures = outcomes.filter((outcome) => !outcome.ok);
      const firstError = failures[0]?.error;
      if (firstError !== undefined) {
        const permanent = failures.filter((outcome) => outcome.permanent === true).length;
        this.#logger.warn(
          {
            aclId: knoc.aclId,
            backendType: knoc.backendType,
            error: firstError,
            failed: failures.length,
            generation,
            ...(this.retries === null ? {} : { retried: failures.length - permanent, permanent }),
          },
          'cannot apply entries',
        );
      }
    }
    return results;
  }

  /**
   * One retry round of a knoc's failed applies: the entries still desired as they were asked for
   * (no newer change, same knoc configuration, grant not over) are applied again, with the time
   * their grant has left (never more: the end stays where the server put it). Their results are
   * reported like any apply's: a success turns the grant Granted, a failure refreshes its error and
   * schedules the next round.
   */
  async retryRound(aclId: string): Promise<EntryResult[]> {
    const retries = this.retries;
    if (retries === null) return [];
    const { pending, round } = retries.take(aclId);
    const nowMs = this.#clock.monotonicMs();
    const due = pending.filter((item) => this.#stillWanted(item, nowMs));
    const results: EntryResult[] = [];
    if (due.length > 0) {
      const knoc = due[0]?.knoc;
      this.#logger.debug(
        { aclId, backendType: knoc?.backendType, entries: due.length, round },
        'retrying failed applies',
      );
      // Usually one generation; add() records each entry at the one it was asked for.
      const byGeneration = new Map<number, PendingApply[]>();
      for (const item of due) byGeneration.set(item.generation, [...(byGeneration.get(item.generation) ?? []), item]);
      for (const [generation, items] of byGeneration) {
        const ends = new Map(items.map((item) => [entryKey(item.entry.aclId, item.entry.ip), item.endsAtMs]));
        const additions = items.map((item) => ({
          // Whole seconds left, rounded down: a retry never lengthens the grant.
          entry: { ...item.entry, ttlSeconds: Math.max(1, Math.floor((item.endsAtMs - nowMs) / 1000)) },
          knoc: item.knoc,
        }));
        results.push(...(await this.add(additions, generation, nowMs, false, ends)));
      }
      const ok = results.filter((result) => result.ok).length;
      agentMetrics.applyRetried(knoc?.backendType ?? 'unknown', ok, results.length - ok);
      if (ok > 0) {
        this.#logger.info(
          { aclId, backendType: knoc?.backendType, applied: ok, round },
          'failed applies succeeded on retry',
        );
      }
    }
    retries.roundDone(aclId);
    return results;
  }

  /** Whether a pending retry still stands: nothing newer changed the entry, its knoc is unchanged, time is left. */
  #stillWanted(item: PendingApply, nowMs: number): boolean {
    const { aclId, ip } = item.entry;
    if (this.#store.knocs.get(aclId) !== item.knoc) return false;
    const last = this.#store.lastChange(aclId, ip);
    if (last !== undefined && last > item.generation) return false;
    const held = this.#store.entries.get(entryKey(aclId, ip));
    if (held?.removing === true) return false;
    return item.endsAtMs - nowMs >= 1000;
  }

  /**
   * When the device's own timeout ends each address it holds for `knoc` (monotonic ms, by canonical
   * address), for a driver that can say; empty otherwise, or when the device cannot be read (logged).
   * Addresses the agent holds on another knoc of the same backend type are left out: two knocs may
   * share one device set, and the other knoc's timeout is not this entry's.
   */
  async deviceDeadlines(knoc: AgentKnoc): Promise<Map<string, number>> {
    const deadlines = new Map<string, number>();
    const driver = this.#drivers.get(knoc.backendType);
    if (driver?.remainingSeconds === undefined) return deadlines;
    let remaining: ReadonlyMap<string, number>;
    try {
      const read = driver.remainingSeconds.bind(driver);
      remaining = await withDriverBudget(() => read(knoc));
    } catch (error) {
      this.#logger.warn(
        { aclId: knoc.aclId, backendType: knoc.backendType, error: errorMessage(error) },
        'cannot read the device’s timeouts; entries not held get the server’s time',
      );
      return deadlines;
    }
    const nowMs = this.#clock.monotonicMs();
    const elsewhere = new Set<string>();
    for (const held of this.#store.entries.values()) {
      if (held.knoc.backendType === knoc.backendType && held.aclId !== knoc.aclId) {
        elsewhere.add(canonicalAddress(held.ip));
      }
    }
    for (const [ip, seconds] of remaining) if (!elsewhere.has(ip)) deadlines.set(ip, nowMs + seconds * 1000);
    return deadlines;
  }

  /**
   * Logs (once per entry) and counts a raise of an entry's deadline that the agent refused: the
   * server's ttl would have kept access `refusedMs` longer than the entry holds without its end
   * having moved (a server clock set back), or longer than the device's own timeout.
   */
  raiseRefused(
    knoc: AgentKnoc,
    ip: string,
    refusedMs: number,
    held: HeldEntry | undefined,
    against: 'held' | 'device' | 'state file',
  ): void {
    if (held?.raiseRefused === true) return;
    if (held !== undefined) held.raiseRefused = true;
    agentMetrics.raiseRefused(knoc.backendType);
    this.#logger.warn(
      { aclId: knoc.aclId, ip, backendType: knoc.backendType, refusedSeconds: Math.round(refusedMs / 1000), against },
      'refused to lengthen an entry beyond what it holds (is a clock set back?); keeping the earlier end',
    );
  }

  /** The entry held for this key under `knoc`, unless it is being removed (a re-grant starts afresh). */
  #heldFor(aclId: string, ip: string, knoc: AgentKnoc): HeldEntry | undefined {
    const held = this.#store.entries.get(entryKey(aclId, ip));
    return held !== undefined && !held.removing && held.knoc === knoc ? held : undefined;
  }
}
