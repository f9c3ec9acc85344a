import type { AppContext } from '../app-context.js';
import type { SessionStage } from '../store/schema.js';
import type { User } from '../users/users.repo.js';
import { findAdminById, type Admin } from '../admins/admins.repo.js';
import { hashSessionToken } from '../sessions/session-tokens.js';
import {
  findRunningAdminSession,
  findRunningUserSessionWithUser,
  type AdminSession,
  type UserSession,
} from '../sessions/sessions.repo.js';

/**
 * Which sessions a caller accepts: fully signed in (every API), waiting for a second factor, or
 * either (the OTP API, which tells a signed-in caller it has nothing left to verify).
 */
export type WantedStage = 'active' | 'pending' | 'any';

function stageMatches(actual: SessionStage, wanted: WantedStage): boolean {
  if (wanted === 'any') return true;
  return wanted === 'active' ? actual === 'active' : actual !== 'active';
}

/** The running session and its user for a cookie token, or null. A disabled user has no session. */
export async function authenticateUser(
  ctx: AppContext,
  token: string,
  wanted: WantedStage = 'active',
): Promise<{ session: UserSession; user: User } | null> {
  const found = await findRunningUserSessionWithUser(ctx.db, hashSessionToken(token), ctx.clock.now());
  if (found === null || !stageMatches(found.session.stage, wanted) || found.user.disabled) return null;
  return found;
}

/** The running session and its admin for a cookie token, or null. An admin without login has no session. */
export async function authenticateAdmin(
  ctx: AppContext,
  token: string,
  wanted: WantedStage = 'active',
): Promise<{ session: AdminSession; admin: Admin } | null> {
  const session = await findRunningAdminSession(ctx.db, hashSessionToken(token), ctx.clock.now());
  if (session === null || !stageMatches(session.stage, wanted)) return null;
  const admin = await findAdminById(ctx.db, session.adminId);
  if (admin === null || !admin.loginEnabled) return null;
  return { session, admin };
}
