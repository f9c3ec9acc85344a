import { ErrorCodes, GrantStatus, type AclEntry, type UserStatus } from '@postern/protocol';
import { ApiError, type PosternApi } from './api-client.js';
import type { Clock } from './clock.js';
import { knocPhase, statusText, type KnocPhase } from './knocs.js';

/** The first wait between two status polls, how much each wait grows, and the longest wait. */
export const FIRST_POLL_MS = 1_000;
const POLL_GROWTH = 1.5;
export const LONGEST_POLL_MS = 5_000;

/** One requested knoc's outcome, as login, status and the persist events report it. */
export interface KnocResult {
  id: string;
  name: string;
  /** The GrantStatus code. */
  status: number;
  phase: KnocPhase;
  /** ISO end of the grant, or null when nothing is granted. */
  expiresAt: string | null;
  /** Why it is not granted ('' when it is). */
  error: string;
  /** Granted: on the device, or on an allowlist the firewall has fetched. */
  ok: boolean;
}

/** A grant the server refused for one knoc (the others may still be granted). */
export interface Refusal {
  code: string | null;
  message: string;
}

/** Server refusals that concern one knoc, in words. Anything else stops the whole run. */
const KNOC_REFUSALS: Record<string, string> = {
  [ErrorCodes.agentOffline]: "the knoc's agent is offline",
  [ErrorCodes.aclNotAvailable]: 'the knoc is not available to this user',
  [ErrorCodes.aclDisabledForUser]: 'the knoc may not be used from this address',
  [ErrorCodes.noGrantableAddress]: 'the knoc may open none of the addresses the server sees for this machine',
};

/** Whether a failed grant call concerns only that knoc (a 4xx other than licence, session or throttling). */
export function isKnocRefusal(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 429 &&
    error.code !== ErrorCodes.licenceRequired &&
    error.code !== ErrorCodes.invalidSession &&
    error.code !== ErrorCodes.sessionExpired
  );
}

/** The refusal a per-knoc grant error amounts to. */
export function refusalOf(error: ApiError): Refusal {
  const text = error.code === null ? undefined : KNOC_REFUSALS[error.code];
  const extra = error.extra === undefined || error.extra === '' ? '' : ` (${error.extra})`;
  return {
    code: error.code,
    message:
      text ?? `the server refused the grant: ${error.status}${error.code === null ? '' : ` ${error.code}`}${extra}`,
  };
}

/**
 * Asks for a grant on every target with nothing running in this session. A knoc disabled for this
 * address is not asked for; a refusal that concerns one knoc is recorded for it; any other failure
 * (licence, session ended, server down) is thrown. Returns the targets' entries after the requests.
 */
export async function requestGrants(
  api: PosternApi,
  cookie: string,
  targets: readonly AclEntry[],
  refusals: Map<string, Refusal>,
  signal?: AbortSignal,
): Promise<AclEntry[]> {
  const entries: AclEntry[] = [];
  for (const target of targets) {
    if (target.DisableForUser) {
      refusals.set(target.ACLID, {
        code: ErrorCodes.aclDisabledForUser,
        message: KNOC_REFUSALS[ErrorCodes.aclDisabledForUser] ?? '',
      });
      entries.push(target);
      continue;
    }
    if (knocPhase(target.Status) !== 'not-granted') {
      entries.push(target);
      continue;
    }
    try {
      entries.push(await api.grant(cookie, target.ACLID, { signal }));
      refusals.delete(target.ACLID);
    } catch (error) {
      if (!isKnocRefusal(error)) throw error;
      refusals.set(target.ACLID, refusalOf(error));
      entries.push(target);
    }
  }
  return entries;
}

/** The result for one knoc from its entry (undefined: the knoc has gone from the user's list). */
export function knocResult(
  id: string,
  name: string,
  entry: AclEntry | undefined,
  refusal: Refusal | undefined,
): KnocResult {
  if (entry === undefined) {
    return {
      id,
      name,
      status: GrantStatus.Created,
      phase: 'not-granted',
      expiresAt: null,
      error: 'the knoc is no longer available to this user',
      ok: false,
    };
  }
  const phase = knocPhase(entry.Status);
  const ok = phase === 'granted' && refusal === undefined;
  let error = '';
  if (!ok) {
    if (refusal !== undefined) error = refusal.message;
    else if (entry.Error !== '') error = entry.Error;
    else if (entry.Status === GrantStatus.AgentOffline) error = "the knoc's agent is offline";
    else error = statusText(entry.Status);
  }
  return { id, name: entry.Description, status: entry.Status, phase, expiresAt: entry.ExpiredAfter, error, ok };
}

/** Whether the poll may stop waiting for this knoc: it has an outcome (or was refused). */
function settled(entry: AclEntry | undefined, refusal: Refusal | undefined): boolean {
  return entry === undefined || refusal !== undefined || knocPhase(entry.Status) !== 'in-progress';
}

export interface SettleOptions {
  api: PosternApi;
  clock: Clock;
  cookie: string;
  /** The knocs waited for, as last seen (from the status or the grant answers). */
  entries: readonly AclEntry[];
  refusals: ReadonlyMap<string, Refusal>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The status after the wait, and each knoc's outcome; `timedOut` when some were still on their way. */
export interface Settled {
  status: UserStatus | null;
  results: KnocResult[];
  timedOut: boolean;
}

/**
 * Polls GET /api/status, first after 1 s and then at growing steps (up to 5 s), until every knoc
 * has an outcome or `timeoutMs` has passed. A knoc still on its way at the end is reported with
 * what it was waiting for.
 */
export async function settleGrants(options: SettleOptions): Promise<Settled> {
  const { api, clock, cookie, refusals } = options;
  const wanted = options.entries.map((entry) => ({ id: entry.ACLID, name: entry.Description }));
  let current = new Map(options.entries.map((entry) => [entry.ACLID, entry] as const));
  let status: UserStatus | null = null;
  const deadline = clock.now() + options.timeoutMs;
  let step = FIRST_POLL_MS;
  const allSettled = () => wanted.every(({ id }) => settled(current.get(id), refusals.get(id)));
  const aborted = () => options.signal?.aborted === true;
  while (!allSettled() && clock.now() < deadline && !aborted()) {
    await clock.sleep(Math.min(step, deadline - clock.now()), options.signal);
    if (aborted()) break;
    step = Math.min(step * POLL_GROWTH, LONGEST_POLL_MS);
    status = await api.status(cookie, { signal: options.signal });
    current = new Map(status.ACLs.map((entry) => [entry.ACLID, entry] as const));
  }
  const timedOut = !allSettled();
  const seconds = Math.round(options.timeoutMs / 1000);
  const results = wanted.map(({ id, name }) => {
    const result = knocResult(id, name, current.get(id), refusals.get(id));
    if (result.phase === 'in-progress' && !result.ok && timedOut && options.timeoutMs > 0) {
      return { ...result, error: `still ${statusText(result.status)} after ${seconds} s` };
    }
    return result;
  });
  return { status, results, timedOut };
}
