import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AuditActions, type AuditDetail } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import type { Clock } from '../lib/clock.js';
import { recordAudit } from '../audit/audit.js';
import type { SecretContext, SecretUnreadableError } from './secret-box.js';

/**
 * One unreadable secret is reported (logged at error and audited) at most this often: a sign-in
 * storm against an account whose TOTP secret cannot be opened, or an agent reconnecting in a loop,
 * writes one audit entry an hour instead of thousands.
 */
export const UNREADABLE_SECRET_REPORT_INTERVAL_MS = 60 * 60_000;
/** Places remembered at most; beyond this the oldest half is forgotten (and may be reported again). */
const MAX_REMEMBERED = 10_000;

/**
 * This process's memory of which unreadable secrets it has reported lately. In process on purpose:
 * replicas report independently, which costs at most one entry per replica and hour.
 */
export class UnreadableSecretReports {
  readonly #lastReported = new Map<string, number>();

  /** Whether the place is due a report at `now`; when it is, the report counts as made. */
  due(context: SecretContext, now: number): boolean {
    const place = describePlace(context);
    const last = this.#lastReported.get(place);
    if (last !== undefined && now - last < UNREADABLE_SECRET_REPORT_INTERVAL_MS) return false;
    if (this.#lastReported.size >= MAX_REMEMBERED) this.#forgetOldest();
    // Deleted first so the map's order stays the order of the reports.
    this.#lastReported.delete(place);
    this.#lastReported.set(place, now);
    return true;
  }

  #forgetOldest(): void {
    let excess = Math.ceil(this.#lastReported.size / 2);
    for (const place of this.#lastReported.keys()) {
      if (excess-- <= 0) return;
      this.#lastReported.delete(place);
    }
  }
}

/** What reporting needs from the app context. */
export interface UnreadableSecretReporting {
  logger: Logger;
  clock: Clock;
  unreadableSecrets: UnreadableSecretReports;
}

/**
 * Reports a secret that could not be opened: an error in the log and a SecretUnreadable audit entry
 * naming its table, column and row (never any part of the value), at most once an hour per place.
 * `db` is the caller's transaction when it has one. `detail` adds who or what needed it.
 */
export async function reportUnreadableSecret(
  ctx: UnreadableSecretReporting,
  db: Kysely<Database>,
  error: SecretUnreadableError,
  detail: AuditDetail = {},
): Promise<void> {
  const now = ctx.clock.now();
  const { table, column, rowId } = error.context;
  if (!ctx.unreadableSecrets.due(error.context, now)) {
    ctx.logger.debug({ table, column, rowId }, 'sealed secret still unreadable (reported within the hour)');
    return;
  }
  ctx.logger.error(
    { table, column, rowId, reason: error.reason },
    'a sealed secret cannot be opened; re-enter it (or reset the second factor) to replace it',
  );
  await recordAudit(db, now, AuditActions.SecretUnreadable, {
    ...detail,
    Description: describePlace(error.context),
    ErrorMessage: error.reason,
  });
}

/** `users.totp_secret of row 0192…`: where a sealed value lives, as the log and audit name it. */
function describePlace(context: SecretContext): string {
  return `${context.table}.${context.column} of row ${context.rowId}`;
}
