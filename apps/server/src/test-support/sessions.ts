import type { AppContext } from '../app-context.js';
import type { SessionStage } from '../store/schema.js';
import { sessionCookieName } from '../http/cookies.js';
import { newSessionToken } from '../sessions/session-tokens.js';
import { insertAdminSession, insertUserSession } from '../sessions/sessions.repo.js';
import { adminSessionEndsAt, PENDING_SECOND_FACTOR_MS, userSessionEndsAt } from '../auth/session-issue.js';
import { findUserById } from '../users/users.repo.js';
import { readSettings } from '../settings/settings.js';
import { uuidv7 } from '../lib/ids.js';
import { givenAdmin, givenUser } from './factories.js';

/** What app.inject sends unless told otherwise, so a session looks as if signed in through it. */
const INJECT_ADDRESS = '127.0.0.1';
const INJECT_USER_AGENT = 'lightMyRequest';

export interface GivenSessionOptions {
  /** 'active' (signed in) by default; 'totp' or 'totp-enrol' for one waiting for its second factor. */
  stage?: SessionStage;
  /** The address the session was started from; app.inject's 127.0.0.1 by default. */
  ipAddress?: string;
  userAgent?: string;
}

/**
 * A signed-in admin session, written straight into the store as a sign-in writes it (the row
 * startAdminSession inserts, ending when it computes), and the cookie to send: `name=token`, exactly
 * what signInAdmin returns. No password is checked (no argon2) and nothing else a sign-in does
 * happens: no audit entry, no LastLogin, no device cookie. Tests of sign-in itself use signInAdmin.
 *
 * `admin` is an admin already made (givenAdmin); without it a new admin is made.
 */
export async function givenAdminSession(
  t: { ctx: AppContext },
  admin?: { id: string },
  options: GivenSessionOptions = {},
): Promise<string> {
  const { ctx } = t;
  const adminId = admin?.id ?? (await givenAdmin(ctx)).id;
  const stage = options.stage ?? 'active';
  const now = ctx.clock.now();
  const { token, tokenHash } = newSessionToken();
  await insertAdminSession(ctx.db, {
    id: uuidv7(now),
    tokenHash,
    adminId,
    createdAt: now,
    endsAt: adminSessionEndsAt(now, stage),
    ipAddress: options.ipAddress ?? INJECT_ADDRESS,
    userAgent: options.userAgent ?? INJECT_USER_AGENT,
    stage,
  });
  return `${sessionCookieName('admin', ctx.config.insecureHttp)}=${token}`;
}

/**
 * A signed-in user session, written straight into the store as a sign-in writes it (the row
 * startUserSession inserts, ending when it computes from the user's Duration, ValidUntil and, for a
 * kiosk, the KioskSessionDuration setting), and the cookie to send: `name=token`, exactly what
 * signInUser returns. No password is checked and nothing else a sign-in does happens: no audit
 * entry, no LastLogin, no device cookie, no session limit enforced. Tests of sign-in use signInUser.
 *
 * `user` is a user already made (givenUser); without it a new local user is made.
 */
export async function givenUserSession(
  t: { ctx: AppContext },
  user?: { id: string },
  options: GivenSessionOptions & { kiosk?: boolean } = {},
): Promise<string> {
  const { ctx } = t;
  const userId = user?.id ?? (await givenUser(ctx)).id;
  const row = await findUserById(ctx.db, userId);
  if (row === null) throw new Error(`givenUserSession: no user ${userId}`);
  const stage = options.stage ?? 'active';
  const kiosk = options.kiosk ?? false;
  const now = ctx.clock.now();
  const minutes = kiosk ? (await readSettings(ctx.db)).KioskSessionDuration : row.durationMinutes;
  const { token, tokenHash } = newSessionToken();
  await insertUserSession(ctx.db, {
    id: uuidv7(now),
    tokenHash,
    userId,
    createdAt: now,
    endsAt: stage === 'active' ? userSessionEndsAt(now, minutes, row.validUntil) : now + PENDING_SECOND_FACTOR_MS,
    ipAddress: options.ipAddress ?? INJECT_ADDRESS,
    userAgent: options.userAgent ?? INJECT_USER_AGENT,
    kiosk,
    stage,
  });
  return `${sessionCookieName('user', ctx.config.insecureHttp)}=${token}`;
}
