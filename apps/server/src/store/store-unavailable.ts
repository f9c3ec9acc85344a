/** Driver error codes that mean "the store is unreachable or overloaded", not "the request is wrong". */
const STORE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08003', // connection_does_not_exist
  '08006', // connection_failure
  '53300', // too_many_connections
]);

/**
 * PostgreSQL's insufficient_resources class: the server cannot take writes (or any work) until an
 * operator frees space or memory; nothing about the request is wrong, and it changed nothing.
 */
const POSTGRES_OUT_OF_RESOURCES_CODES = new Set([
  '53000', // insufficient_resources
  '53100', // disk_full
  '53200', // out_of_memory
]);

/**
 * Whether an error is the store running out of room for writes: SQLite's SQLITE_FULL, or an I/O
 * error (SQLITE_IOERR and its extended codes: a write to the WAL, its shared-memory file or the
 * database that the file system refused, which is how a full disk often shows), or PostgreSQL's
 * insufficient_resources (disk full, out of memory). The statement (and its transaction) changed
 * nothing. Reads usually still work, which is why readiness watches writes (write-health.ts).
 */
export function isStoreOutOfResources(error: unknown): boolean {
  return someCause(error, (cause) => {
    if (!('code' in cause) || typeof cause.code !== 'string') return false;
    const code = cause.code;
    return code === 'SQLITE_FULL' || /^SQLITE_IOERR(_|$)/.test(code) || POSTGRES_OUT_OF_RESOURCES_CODES.has(code);
  });
}

/**
 * Whether an error is SQLite saying that another connection holds a lock it needs: SQLITE_BUSY and
 * SQLITE_LOCKED and their extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, …), which
 * better-sqlite3 reports as they are. The statement that met it changed nothing.
 */
export function isSqliteBusy(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return false;
  const code = error.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /^SQLITE_(BUSY|LOCKED)_/.test(code);
}

/**
 * A SQLite statement gave up waiting for a lock held by another connection (an operator's sqlite3
 * shell, a backup, the CLI): nothing was written, and the same request may succeed in a moment.
 */
export class StoreBusyError extends Error {
  constructor(
    readonly waitedMs: number,
    options?: ErrorOptions,
  ) {
    super(`the store is locked by another connection (waited ${Math.round(waitedMs)} ms)`, options);
    this.name = 'StoreBusyError';
  }
}

/**
 * Whether an error (or one it was caused by) means the store cannot serve us right now: locked by
 * someone else, unreachable or overloaded, or out of space. Such work can be retried later; the API
 * answers 503 with Retry-After.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return (
    isStoreOutOfResources(error) ||
    someCause(
      error,
      (cause) =>
        cause instanceof StoreBusyError ||
        isSqliteBusy(cause) ||
        ('code' in cause && typeof cause.code === 'string' && STORE_UNAVAILABLE_CODES.has(cause.code)),
    )
  );
}

/** Why the store is unavailable, in a few words for a log line (the error itself is logged beside it). */
export function unavailability(error: unknown): string {
  if (isStoreOutOfResources(error)) return 'out of disk space or memory, or failing to write';
  if (someCause(error, (cause) => cause instanceof StoreBusyError || isSqliteBusy(cause))) {
    return 'locked by another process';
  }
  return 'unreachable or overloaded';
}

/** Whether an error (or one it was caused by) is a write that gave up waiting for an outside lock. */
export function gaveUpOnOutsideLock(error: unknown): boolean {
  return someCause(error, (cause) => cause instanceof StoreBusyError);
}

/** Whether `error` or one of the few errors it was caused by matches. */
function someCause(error: unknown, matches: (cause: Error) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    if (matches(current)) return true;
    current = current.cause;
  }
  return false;
}
