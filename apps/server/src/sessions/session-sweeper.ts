import type { AppContext } from '../app-context.js';
import { endAdminSessions, endUserSessions, purgeEndedSessions } from './sessions.repo.js';
import { pruneThrottle } from '../auth/throttle.js';
import type { IntervalHandle } from '../lib/start-interval.js';
import { startStoreJob } from '../store/store-job.js';
import { pruneOidcState } from '../oidc/oidc-flows.js';
import { pruneCeremonies } from '../webauthn/ceremonies.js';

const DAY_MS = 86_400_000;
/** Ended sessions are kept this long for the session lists and investigations, then deleted. */
const ENDED_SESSION_RETENTION_MS = 30 * DAY_MS;
/** SAML requests older than this can no longer be answered; accepted assertions are kept until they expire. */
const SAML_REQUEST_LIFETIME_MS = 60 * 60_000;

/**
 * One pass of housekeeping: closes sessions whose time is up (and announces them, so their grants
 * are revoked even when nobody calls the API), and prunes what is no longer needed. Every statement
 * is guarded by its WHERE clause, so replicas running it at once neither double-announce nor fail.
 */
export async function sweepOnce(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  const expired = await endUserSessions(ctx.db, { expiredAt: now }, 'expired', now);
  await endAdminSessions(ctx.db, { expiredAt: now }, 'expired', now);
  await ctx.sessionEvents.userSessionsEnded(expired);
  await pruneThrottle(ctx.db, now);
  await purgeEndedSessions(ctx.db, now - ENDED_SESSION_RETENTION_MS);
  await ctx.db
    .deleteFrom('samlRequests')
    .where('createdAt', '<', now - SAML_REQUEST_LIFETIME_MS)
    .execute();
  await ctx.db.deleteFrom('samlAssertions').where('expiresAt', '<', now).execute();
  await pruneOidcState(ctx.db, now);
  await pruneCeremonies(ctx.db, now);
}

/**
 * Runs `sweepOnce` every `intervalMs`, one pass at a time, until stopped; a failed pass is logged and
 * the next one tries again. Passes are skipped while `runsHere` says another server does the work.
 */
export function startSessionSweeper(ctx: AppContext, intervalMs = 15_000, runsHere = () => true): IntervalHandle {
  return startStoreJob(ctx.logger, 'session sweep', intervalMs, async () => {
    if (runsHere()) await sweepOnce(ctx);
  });
}
