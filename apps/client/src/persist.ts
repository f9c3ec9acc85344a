import { IP_REVALIDATION_INTERVAL_MS, type AclEntry, type UserStatus } from '@postern/protocol';
import { ApiError, type PosternApi } from './api-client.js';
import type { Clock } from './clock.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { isSessionEnded, isTransient, toClientError } from './failure-mapping.js';
import { knocResult, requestGrants, settleGrants, type KnocResult, type Refusal } from './grants.js';
import type { ApiKey } from './key-file.js';
import { knocPhase, resolveKnocs, usableKnocs } from './knocs.js';
import { ensureLicensed, logoutQuietly, previousSession, sessionRecord, type ApiFactory } from './session.js';
import { removeSession, saveSession, type SavedSession } from './session-file.js';

/** How often the persist loop asks the server: the portal's IP revalidation interval (30 s). */
export const DEFAULT_PERSIST_INTERVAL_MS = IP_REVALIDATION_INTERVAL_MS;
/** The shortest --interval: more often only loads the server. */
export const MIN_PERSIST_INTERVAL_MS = 5_000;
/** The first and the longest wait before trying an unreachable server again. */
export const FIRST_BACKOFF_MS = 2_000;
export const LONGEST_BACKOFF_MS = 60_000;
/** The new session is made when less than this remains of the old one, but never with less than a minute left. */
const HANDOVER_SHARE = 0.1;
const HANDOVER_MIN_MS = 60_000;

/** The troubles the loop waits out, each reported once when it starts and once when it ends. */
export type TroubleKind = 'unreachable' | 'throttled' | 'unlicensed' | 'problem';

/** One thing the persist loop reports: one line of text, or one JSON line with --json. */
export type PersistEvent =
  | { event: 'signed-in'; userName: string; sessionEnds: string }
  | { event: 'address'; address: string; previous: string | null }
  | { event: 'grant-requested'; id: string; name: string }
  | { event: 'knoc'; knoc: KnocResult }
  | { event: 'handover'; sessionEnds: string; previousEnds: string; previousLoggedOut: boolean }
  | { event: 'session-ended'; message: string }
  | { event: 'unreachable'; message: string; retryInSeconds: number }
  | { event: 'throttled'; message: string; retryInSeconds: number }
  | { event: 'unlicensed'; message: string }
  | { event: 'problem'; message: string; retryInSeconds: number }
  | { event: 'recovered'; from: TroubleKind }
  | { event: 'stopping' }
  | { event: 'stopped'; loggedOut: boolean };

export interface PersistDeps {
  apiFor: ApiFactory;
  clock: Clock;
  /** Read again at every sign-in, so a key replaced in the file is used without a restart. */
  readKey: () => ApiKey;
  /** For the back-off's jitter; Math.random in the command. */
  random: () => number;
  emit: (event: PersistEvent) => void;
  /** Aborted on SIGTERM or SIGINT: the loop logs out and returns. */
  signal: AbortSignal;
}

export interface PersistOptions {
  server: string;
  sessionFile: string;
  /** Knoc names or IDs; empty: every knoc the user may use, as that list changes. */
  knocs: readonly string[];
  intervalMs: number;
  /** How long to wait for the grants asked for in one round. */
  grantTimeoutMs: number;
}

/**
 * How long before the session's end a new one is made: 10 % of its length, at least a minute, but
 * at most half of it (a very short session would otherwise be replaced the moment it starts).
 */
export function handoverMarginMs(lengthMs: number): number {
  return Math.min(Math.max(HANDOVER_MIN_MS, lengthMs * HANDOVER_SHARE), lengthMs / 2);
}

/** When (epoch ms) the session should be replaced. */
export function handoverAt(session: Pick<SavedSession, 'signedInAt' | 'ends'>): number {
  const ends = Date.parse(session.ends);
  return ends - handoverMarginMs(ends - Date.parse(session.signedInAt));
}

/**
 * The wait before the next try after `failures` failures in a row: doubling from 2 s up to a minute,
 * with "equal jitter" (half fixed, half random) so many clients cut off together do not return together.
 */
export function backoffMs(failures: number, random: () => number): number {
  const base = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Exit codes that end the loop: waiting cannot cure them, an operator must act. */
const FATAL: ReadonlySet<number> = new Set([
  ExitCode.Usage,
  ExitCode.KeyRefused,
  ExitCode.KeyExpired,
  ExitCode.AddressNotAllowed,
  ExitCode.KnocUnknown,
  ExitCode.AccountDisabled,
]);

/**
 * `postern-client login --persist`: keeps the machine's access open until told to stop.
 *
 * Every interval it asks GET /api/status (which also moves the grants to a new address, server
 * side), and asks again for any requested knoc that is no longer granted (a server restart, a store
 * restore, a grant that reached its MaximumGrantDuration). A session that has ended is replaced by a
 * new sign-in; one about to end is replaced before it does (make-before-break: sign in, grant, then
 * log the old one out). Outages are waited out with back-off and jitter, reported once when they
 * start and once when they end. A refused key, a disabled account or an unknown knoc end the run
 * with their exit code. On abort (SIGTERM, SIGINT) it logs out, which revokes every grant of the
 * session, deletes the session file and returns 0 (8 when the server could not be told).
 */
export async function runPersist(deps: PersistDeps, options: PersistOptions): Promise<number> {
  return new PersistLoop(deps, options).run();
}

class PersistLoop {
  #session: SavedSession | null = null;
  /** A session an earlier run left in the session file: logged out once ours is granted. */
  #previous: SavedSession | null;
  /** The requested knocs' IDs once resolved (names are resolved once; IDs survive renames). */
  #wantedIds: string[] | null = null;
  /** What was last reported of each knoc, so that only changes are reported. */
  readonly #reported = new Map<string, string>();
  #address: string | null = null;
  /** The current trouble (its kind and message), or null while all is well. */
  #trouble: { kind: TroubleKind; key: string } | null = null;
  /** Whether this round reported a trouble (it did not go well, even without throwing). */
  #troubledRound = false;
  /** Names of the knocs reported, to say which one went away. */
  readonly #names = new Map<string, string>();
  /** When the first of the session's grants ends (a knoc's MaximumGrantDuration), or null. */
  #firstExpiry: number | null = null;
  #failures = 0;
  #endedInARow = 0;

  constructor(
    private readonly deps: PersistDeps,
    private readonly options: PersistOptions,
  ) {
    this.#previous = previousSession(options.sessionFile);
  }

  async run(): Promise<number> {
    const { clock, signal } = this.deps;
    while (!signal.aborted) {
      let waitMs: number;
      this.#troubledRound = false;
      try {
        waitMs = await this.#round();
        this.#failures = 0;
        this.#endedInARow = 0;
        if (this.#trouble !== null && !this.#troubledRound) {
          this.deps.emit({ event: 'recovered', from: this.#trouble.kind });
          this.#trouble = null;
        }
      } catch (error) {
        if (signal.aborted) break;
        waitMs = await this.#afterFailure(error);
      }
      if (waitMs > 0) await clock.sleep(waitMs, signal);
    }
    return this.#stop();
  }

  /** One round: sign in if needed, check the status, keep the knocs granted, hand over near the end. */
  async #round(): Promise<number> {
    const session = this.#session ?? (await this.#signIn(true));
    const api = this.deps.apiFor(session.server);
    const status = await api.status(session.cookie, { signal: this.deps.signal });
    session.ends = status.Ends;
    this.#noteAddress(status.CurrentAddress);
    if (!this.#licensed(status)) return this.options.intervalMs;
    await this.#keepGranted(api, session, status);
    await this.#endPrevious();
    if (this.deps.clock.now() >= handoverAt(session)) await this.#handover();
    return this.#nextWait();
  }

  /** Signs in; `save` makes it the session of record at once (not so for a handover's new session). */
  async #signIn(save: boolean): Promise<SavedSession> {
    const api = this.deps.apiFor(this.options.server);
    const signIn = await api.signIn(this.deps.readKey().key, { signal: this.deps.signal });
    const session = sessionRecord(api.server, signIn, this.deps.clock.now(), this.#wantedIds ?? []);
    if (save) {
      saveSession(this.options.sessionFile, session);
      this.#session = session;
      this.deps.emit({ event: 'signed-in', userName: signIn.info.UserName, sessionEnds: signIn.info.Ends });
    }
    return session;
  }

  /** The knocs to keep granted, from this status; explicit names are resolved on the first round. */
  #targets(status: UserStatus): AclEntry[] {
    if (this.options.knocs.length === 0) return usableKnocs(status.ACLs);
    if (this.#wantedIds === null) {
      this.#wantedIds = resolveKnocs(status.ACLs, this.options.knocs).map((acl) => acl.ACLID);
    }
    return this.#wantedIds.flatMap((id) => status.ACLs.filter((acl) => acl.ACLID === id));
  }

  /** Asks again for what is not granted, waits a little for it, and reports each knoc that changed. */
  async #keepGranted(api: PosternApi, session: SavedSession, status: UserStatus): Promise<void> {
    const targets = this.#targets(status);
    const ids = this.#wantedIds ?? targets.map((acl) => acl.ACLID);
    if (ids.join(',') !== session.knocs.join(',')) {
      session.knocs = ids;
      if (session === this.#session) saveSession(this.options.sessionFile, session);
    }
    for (const acl of targets) {
      if (!acl.DisableForUser && knocPhase(acl.Status) === 'not-granted') {
        this.deps.emit({ event: 'grant-requested', id: acl.ACLID, name: acl.Description });
      }
    }
    const refusals = new Map<string, Refusal>();
    const entries = await requestGrants(api, session.cookie, targets, refusals, this.deps.signal);
    const asked = entries.some((entry, index) => entry !== targets[index]);
    const settled = await settleGrants({
      api,
      clock: this.deps.clock,
      cookie: session.cookie,
      entries,
      refusals,
      timeoutMs: asked ? Math.min(this.options.grantTimeoutMs, this.options.intervalMs) : 0,
      signal: this.deps.signal,
    });
    for (const result of settled.results) this.#reportKnoc(result);
    const expiries = settled.results.flatMap((result) =>
      result.expiresAt === null ? [] : [Date.parse(result.expiresAt)],
    );
    this.#firstExpiry = expiries.length === 0 ? null : Math.min(...expiries);
    // Knocs that left the user's list (an admin took them away) are reported once. Without --knoc
    // they are forgotten, so one that comes back is reported as new.
    const present = new Set(settled.results.map((result) => result.id));
    for (const id of new Set([...ids, ...this.#reported.keys()])) {
      if (present.has(id)) continue;
      this.#reportKnoc(knocResult(id, this.#names.get(id) ?? id, undefined, undefined));
      if (this.options.knocs.length === 0) this.#reported.delete(id);
    }
  }

  #reportKnoc(knoc: KnocResult): void {
    const key = JSON.stringify([knoc.ok, knoc.status, knoc.error, knoc.expiresAt]);
    if (this.#reported.get(knoc.id) === key) return;
    this.#reported.set(knoc.id, key);
    this.#names.set(knoc.id, knoc.name);
    this.deps.emit({ event: 'knoc', knoc });
  }

  #noteAddress(address: string): void {
    if (address === this.#address) return;
    this.deps.emit({ event: 'address', address, previous: this.#address });
    this.#address = address;
  }

  #licensed(status: UserStatus): boolean {
    try {
      ensureLicensed(status);
      return true;
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      this.#report({ event: 'unlicensed', message: error.message });
      return false;
    }
  }

  /** Make-before-break: a new session with its grants in place before the old one is logged out. */
  async #handover(): Promise<void> {
    const old = this.#session;
    if (old === null) return;
    const next = await this.#signIn(false);
    const api = this.deps.apiFor(next.server);
    try {
      const status = await api.status(next.cookie, { signal: this.deps.signal });
      next.ends = status.Ends;
      if (this.#licensed(status)) await this.#keepGranted(api, next, status);
    } catch (error) {
      // A half-made session must not linger with grants no one keeps.
      await logoutQuietly(this.deps.apiFor, next);
      throw error;
    }
    saveSession(this.options.sessionFile, next);
    this.#session = next;
    const previousLoggedOut = await logoutQuietly(this.deps.apiFor, old);
    this.deps.emit({ event: 'handover', sessionEnds: next.ends, previousEnds: old.ends, previousLoggedOut });
  }

  /** Logs out the session an earlier run left behind, now that this run's grants are in place. */
  async #endPrevious(): Promise<void> {
    const previous = this.#previous;
    if (previous === null) return;
    this.#previous = null;
    if (previous.cookie !== this.#session?.cookie) await logoutQuietly(this.deps.apiFor, previous);
  }

  /**
   * The next wait: the interval, or less when the handover is due sooner, or when a grant ends sooner
   * (a knoc whose MaximumGrantDuration is shorter than the session): it is asked for again a moment
   * after it ends, not up to an interval later.
   */
  #nextWait(): number {
    const session = this.#session;
    const { intervalMs } = this.options;
    if (session === null) return intervalMs;
    const now = this.deps.clock.now();
    const untilHandover = handoverAt(session) - now;
    const untilExpiry = this.#firstExpiry === null ? intervalMs : this.#firstExpiry + 1_000 - now;
    return Math.max(1_000, Math.min(intervalMs, untilHandover, untilExpiry));
  }

  /** What to do after a failed round; returns the wait before the next, or throws to end the run. */
  async #afterFailure(error: unknown): Promise<number> {
    if (isSessionEnded(error)) {
      this.#session = null;
      this.#endedInARow += 1;
      const message = toClientError(error).message;
      this.deps.emit({ event: 'session-ended', message });
      // Sign in again at once; a session that ends again at once (another client, a session limit
      // of 1 taken by someone else) is retried at back-off pace, not in a tight loop.
      return this.#endedInARow > 1 ? backoffMs(this.#endedInARow - 1, this.deps.random) : 0;
    }
    if (isTransient(error)) {
      this.#failures += 1;
      const failure = toClientError(error);
      if (error instanceof ApiError && error.status === 429) {
        const waitMs = Math.max(1_000, (error.retryAfterSeconds ?? 60) * 1000) + Math.round(this.deps.random() * 1000);
        this.#report({ event: 'throttled', message: failure.message, retryInSeconds: Math.round(waitMs / 1000) });
        return waitMs;
      }
      const waitMs = backoffMs(this.#failures, this.deps.random);
      this.#report({
        event: 'unreachable',
        message: failure.message,
        retryInSeconds: Math.round(waitMs / 1000),
      });
      return waitMs;
    }
    const failure = toClientError(error);
    if (failure.exitCode === ExitCode.Licence) {
      this.#report({ event: 'unlicensed', message: failure.message });
      return this.options.intervalMs;
    }
    if (FATAL.has(failure.exitCode) || !(error instanceof ApiError)) {
      await this.#abandon();
      throw failure;
    }
    // An answer this client does not understand: say so, and try again later rather than give up access.
    this.#failures += 1;
    const waitMs = backoffMs(this.#failures, this.deps.random);
    this.#report({ event: 'problem', message: failure.message, retryInSeconds: Math.round(waitMs / 1000) });
    return waitMs;
  }

  /**
   * Emits a trouble when it is new: one line per change, not per retry. Throttling is one trouble
   * whatever the wait; the others differ by their message.
   */
  #report(event: Extract<PersistEvent, { event: TroubleKind }>): void {
    this.#troubledRound = true;
    const key = event.event === 'throttled' ? 'throttled' : `${event.event}:${event.message}`;
    if (this.#trouble?.key === key) return;
    this.#trouble = { kind: event.event, key };
    this.deps.emit(event);
  }

  /** Before a fatal exit: the session is logged out rather than left with grants. */
  async #abandon(): Promise<void> {
    const session = this.#session;
    if (session === null) return;
    this.#session = null;
    if (await logoutQuietly(this.deps.apiFor, session)) removeSession(this.options.sessionFile);
  }

  /** SIGTERM/SIGINT: log out (revoking every grant of the session) and forget the session. */
  async #stop(): Promise<number> {
    this.deps.emit({ event: 'stopping' });
    const session = this.#session;
    if (session === null) {
      this.deps.emit({ event: 'stopped', loggedOut: false });
      return ExitCode.Ok;
    }
    const loggedOut = await logoutQuietly(this.deps.apiFor, session);
    if (loggedOut) removeSession(this.options.sessionFile);
    this.deps.emit({ event: 'stopped', loggedOut });
    return loggedOut ? ExitCode.Ok : ExitCode.Unreachable;
  }
}
