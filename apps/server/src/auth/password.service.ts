import { AuditActions, ErrorCodes, type PasswordChangeBody } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { setUserPasswordHash, type User } from '../users/users.repo.js';
import type { UserSession } from '../sessions/sessions.repo.js';
import { endUserSessions } from '../sessions/sessions.repo.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { recordFailure } from './throttle.js';
import { clearBudget, passwordBudget, refuseWhileBlocked } from './login.service.js';
import { renewDeviceCookie, type IssuedDeviceCookie } from './device-cookie.js';

/**
 * PUT /api/password: a local user changes their own password. The current password is required and
 * its failures count like failed sign-ins (a trusted browser's against its device cookie); afterwards
 * the user's other sessions end and every device cookie of the account is revoked, so a thief who had
 * one is out, while this session and this browser carry on: the answer renews its device cookie.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  user: User,
  session: UserSession,
  body: PasswordChangeBody,
  meta: RequestMeta,
  deviceCookie: string | undefined,
): Promise<IssuedDeviceCookie> {
  if (user.authType !== 'local' || user.passwordHash === null) {
    throw new ForbiddenError({ code: ErrorCodes.passwordChangeNotAllowed });
  }
  const account = { realm: 'user', id: user.id } as const;
  const budget = await passwordBudget(ctx, user.userName, meta, deviceCookie, () => Promise.resolve(account));
  await refuseWhileBlocked(ctx, budget.keys);
  if (!(await verifyPassword(user.passwordHash, body.ExistingPassword))) {
    await recordFailure(ctx.db, budget.keys, ctx.clock.now());
    throw new BadRequestError({ code: ErrorCodes.invalidCredentials, extra: 'ExistingPassword' });
  }
  await clearBudget(ctx, budget);
  const passwordHash = await hashPassword(body.NewPassword);
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    await setUserPasswordHash(trx, user.id, passwordHash, now);
    await recordAudit(trx, now, AuditActions.PasswordChanged, { UserName: user.userName, IpAddress: meta.ipAddress });
    return endUserSessions(trx, { userId: user.id, exceptSessionId: session.id }, 'account-changed', now);
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
  return renewDeviceCookie(ctx, budget.devices, account);
}
