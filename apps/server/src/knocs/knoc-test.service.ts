import { setTimeout as delay } from 'node:timers/promises';
import {
  AuditActions,
  ErrorCodes,
  DeviceReadBack,
  GrantStatus,
  KNOC_TEST_ANSWER_TIMEOUT_MS,
  KNOC_TEST_GRANT_MINUTES,
  type KnocTestReadBackState,
  type KnocTestResult,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Admin } from '../admins/admins.repo.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { assertLicensed } from '../licence/licence.js';
import { endGrants } from '../grants/grants.repo.js';
import { grantableKnocs, type GrantableKnoc } from '../grants/knoc-access.js';
import { addressAllowed, grantableAddress } from '../grants/ip-rules.js';
import { expiryFor, insertGrants } from '../grants/new-grants.js';

/** How often the store is read for the agent's report while waiting. */
const POLL_MS = 50;

/** Grant statuses at which the add's outcome is known: the agent reported, or its connection was lost. */
const ADD_SETTLED: readonly number[] = [GrantStatus.Granted, GrantStatus.GrantError, GrantStatus.AgentOffline];
/** Grant statuses at which the agent has reported on the removal. */
const REMOVE_SETTLED: readonly number[] = [GrantStatus.Revoked, GrantStatus.RevokeError];

/** The test grant's row as the agent's results leave it. */
interface GrantState {
  status: number;
  error: string;
  updatedAt: number;
  readBack: string | null;
  readBackDetail: string;
}

function grantState(ctx: AppContext, grantId: string): Promise<GrantState | undefined> {
  return ctx.db
    .selectFrom('grants')
    .select(['status', 'error', 'updatedAt', 'readBack', 'readBackDetail'])
    .where('id', '=', grantId)
    .executeTakeFirst();
}

/** What the agent read back, as the answer names it; an agent older than read-back reported none. */
function readBackState(added: GrantState): KnocTestReadBackState {
  const parsed = DeviceReadBack.safeParse(added.readBack);
  return parsed.success ? parsed.data : 'unreported';
}

/**
 * Reads the grant until the agent's report has moved it to one of `settled`, or the time is up
 * (undefined). The report arrives on whichever server the agent is connected to and is written to the
 * store (agent-hub/results.ts), so reading the store works across replicas. Real time, not ctx.clock:
 * this waits for a network peer, and a stepped or manual clock must not make it wait forever.
 */
async function awaitReport(
  ctx: AppContext,
  grantId: string,
  settled: readonly number[],
  timeoutMs: number,
): Promise<GrantState | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const state = await grantState(ctx, grantId);
    if (state !== undefined && settled.includes(state.status)) return state;
    if (performance.now() >= deadline) return undefined;
    await delay(POLL_MS);
  }
}

/** The knoc to test, refused when no agent's device enforces it or its agent is offline. */
async function testableKnoc(
  ctx: AppContext,
  knocId: string,
  now: number,
): Promise<GrantableKnoc & { agentId: string }> {
  const [knoc] = await grantableKnocs(ctx.db, [knocId], now);
  if (knoc === undefined) throw new NotFoundError();
  // Allowlists are served by the server itself; a knoc without a backend has nothing to write to.
  if (knoc.agentId === null || knoc.backendType === null || knoc.backendType === 'allowlist') {
    throw new ConflictError({ code: ErrorCodes.knocTestNoDevice });
  }
  if (!knoc.agentOnline) throw new ConflictError({ code: ErrorCodes.agentOffline });
  return { ...knoc, agentId: knoc.agentId };
}

/** Ends the test grant (as an admin's early end) with its audit entry, and tells the agent. */
async function endTestGrant(ctx: AppContext, admin: Admin, knoc: GrantableKnoc, grantId: string, ip: string) {
  const now = ctx.clock.now();
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const ended = await endGrants(trx, { grantIds: [grantId] }, now, 'admin');
    await recordAudit(trx, now, AuditActions.Revoke, {
      AdminName: admin.userName,
      AclDescription: knoc.description,
      IpAddress: ip,
    });
    return ended;
  });
  await ctx.agentSync.deliverEntryChanges(keys);
}

/**
 * POST /api/admin/knocs/{id}/test: opens the knoc for `address` for a minute through the engine's
 * own path (an admin grant like break glass, on the knoc alone), waits for the agent's report on the
 * device, and ends the grant again at once. The grant carries its one-minute expiry from the start,
 * so a crash anywhere after the insert still ends it: the sweeper ends it in the store and the agent's
 * entry timer (ttlSeconds) takes it off the device, server or not.
 */
export async function testKnoc(
  ctx: AppContext,
  admin: Admin,
  knocId: string,
  address: string,
  // How long to wait for each of the agent's two reports; shorter only in the test of a silent agent.
  { answerTimeoutMs = KNOC_TEST_ANSWER_TIMEOUT_MS }: { answerTimeoutMs?: number } = {},
): Promise<KnocTestResult> {
  const now = ctx.clock.now();
  await assertLicensed(ctx);
  const knoc = await testableKnoc(ctx, knocId, now);
  // The same address rules as every grant: never loopback, metadata and the like, nor what the knoc excludes.
  const checked = grantableAddress(address);
  if ('refused' in checked) throw new BadRequestError({ code: checked.refused, extra: 'IP' });
  const ip = checked.ip;
  if (!addressAllowed(knoc.ipExclusions, ip)) throw new ForbiddenError({ code: ErrorCodes.aclDisabledForUser });

  const expiresAt = expiryFor(knoc, now + KNOC_TEST_GRANT_MINUTES * 60_000, now);
  const { keys, ids } = await ctx.db.transaction().execute(async (trx) => {
    const owner = { sessionId: null, userId: null, userName: admin.userName };
    const inserted = await insertGrants(trx, [knoc], owner, [{ ip, origin: 'admin' }], expiresAt, now);
    // The agent reads its device back after applying this entry, and reports what it found.
    for (const id of inserted.ids) await trx.updateTable('grants').set({ verify: true }).where('id', '=', id).execute();
    await recordAudit(trx, now, AuditActions.AdminKnocTest, {
      AdminName: admin.userName,
      AclDescription: knoc.description,
      IpAddress: ip,
    });
    return inserted;
  });
  const [grantId] = ids;
  if (grantId === undefined) throw new Error('knoc test grant was not inserted');
  await ctx.agentSync.deliverEntryChanges(keys);

  const added = await awaitReport(ctx, grantId, ADD_SETTLED, answerTimeoutMs);
  await endTestGrant(ctx, admin, knoc, grantId, ip);
  if (added === undefined) throw new ConflictError({ code: ErrorCodes.knocTestNoAnswer });
  if (added.status === GrantStatus.AgentOffline) throw new ConflictError({ code: ErrorCodes.agentOffline });
  if (added.status === GrantStatus.GrantError) {
    throw new ConflictError({ code: ErrorCodes.knocTestApplyFailed, extra: added.error });
  }

  const readBack = readBackState(added);
  const removed = await awaitReport(ctx, grantId, REMOVE_SETTLED, answerTimeoutMs);
  const agent = await ctx.db.selectFrom('agents').select('name').where('id', '=', knoc.agentId).executeTakeFirst();
  return {
    GrantID: grantId,
    IP: ip,
    ExpiresAt: new Date(expiresAt).toISOString(),
    Applied: true,
    ReadBack: {
      State: readBack,
      Held: readBack === 'held',
      Detail: added.readBackDetail,
      AgentName: agent?.name ?? '',
      ReportedAt: new Date(added.updatedAt).toISOString(),
    },
    Revoked: removed?.status === GrantStatus.Revoked,
    RevokeError: removed?.status === GrantStatus.RevokeError ? removed.error : '',
  };
}
