import type { AppContext } from '../app-context.js';
import type { IntervalHandle } from '../lib/start-interval.js';
import { startStoreJob } from '../store/store-job.js';
import { endGrants, entriesOfSessions } from './grants.repo.js';

/** Ended grants are kept this long (the user's Revoked status, investigations), then deleted. */
const ENDED_GRANT_RETENTION_MS = 30 * 86_400_000;
const PURGE_EVERY_PASSES = 600;

/**
 * Ends grants whose time is up and tells their agents. Agents expire entries on their own clocks
 * too (and devices with a timeout on theirs); this keeps the store, the statuses and agents that
 * reconnect in step. Safe to run on several replicas at once: a grant is ended once by its WHERE.
 */
export async function sweepGrantsOnce(ctx: AppContext, pass = 0): Promise<void> {
  const now = ctx.clock.now();
  const keys = await ctx.db.transaction().execute((trx) => endGrants(trx, { expiredBy: now }, now, 'expired'));
  ctx.agentSync.entriesChanged(keys);
  if (pass % PURGE_EVERY_PASSES === 0) {
    await ctx.db
      .deleteFrom('grants')
      .where('endedAt', '<', now - ENDED_GRANT_RETENTION_MS)
      .execute();
    await ctx.db
      .deleteFrom('sessionIps')
      .where('sessionId', 'not in', ctx.db.selectFrom('userSessions').select('id').where('endedAt', 'is', null))
      .execute();
  }
}

/**
 * Runs the grant sweep every second, one pass at a time, until stopped; a failed pass is logged and
 * the next tick tries again. Passes are skipped while `runsHere` says another server sweeps (its
 * lease): safe either way, but one sweeper spares the store N times the work.
 */
export function startGrantSweeper(ctx: AppContext, intervalMs = 1_000, runsHere = () => true): IntervalHandle {
  return startStoreJob(ctx.logger, 'grant sweep', intervalMs, async (pass) => {
    if (runsHere()) await sweepGrantsOnce(ctx, pass);
  });
}

/**
 * Sessions end in many places (logout, expiry, invalidation, account changes); each ends the
 * session's grants in its own transaction (sessions/sessions.repo.ts). This tells the agents after commit.
 */
export function forwardEndedSessionsToAgents(ctx: AppContext): () => void {
  return ctx.sessionEvents.onUserSessionsEnded(async (ended) => {
    ctx.agentSync.entriesChanged(
      await entriesOfSessions(
        ctx.db,
        ended.map((session) => session.sessionId),
      ),
    );
  });
}
