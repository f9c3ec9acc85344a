import { AuditActions, ErrorCodes, type PasswordChangeBody } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { setUserPasswordHash, type User } from '../users/users.repo.js';
import type { UserSession } from '../sessions/sessions.repo.js';
import { endUserSessions } from '../sessions/sessions.repo.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { clearFailures, recordFailure, signInKeys } from './throttle.js';
import { refuseWhileBlocked } from './login.service.js';

/**
 * PUT /api/password: a local user changes their own password. The current password is required and
 * its failures count like failed sign-ins; afterwards the user's other sessions end, so a thief who
 * had one is out, while this one carries on.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  user: User,
  session: UserSession,
  body: PasswordChangeBody,
  meta: RequestMeta,
): Promise<void> {
  if (user.authType !== 'local' || user.passwordHash === null) {
    throw new ForbiddenError({ code: ErrorCodes.passwordChangeNotAllowed });
  }
  const keys = signInKeys(user.userName, meta.ipAddress);
  await refuseWhileBlocked(ctx, keys);
  if (!(await verifyPassword(user.passwordHash, body.ExistingPassword))) {
    await recordFailure(ctx.db, keys.all, ctx.clock.now());
    throw new BadRequestError({ code: ErrorCodes.invalidCredentials, extra: 'ExistingPassword' });
  }
  await clearFailures(ctx.db, keys.pair);
  const passwordHash = await hashPassword(body.NewPassword);
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    await setUserPasswordHash(trx, user.id, passwordHash, now);
    await recordAudit(trx, now, AuditActions.PasswordChanged, { UserName: user.userName, IpAddress: meta.ipAddress });
    return endUserSessions(trx, { userId: user.id, exceptSessionId: session.id }, 'account-changed', now);
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
}
