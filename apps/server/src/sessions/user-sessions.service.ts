import type { V1SessionGrant, V1UserSession } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { runningSessionGrants, runningUserSessions } from './user-sessions.repo.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** GET /api/v1/user_sessions: every running user session with its running grants, oldest first. */
export async function listRunningUserSessions(ctx: AppContext): Promise<V1UserSession[]> {
  const now = ctx.clock.now();
  const [sessions, grants] = await Promise.all([runningUserSessions(ctx.db, now), runningSessionGrants(ctx.db, now)]);
  const grantsBySession = new Map<string, V1SessionGrant[]>();
  for (const grant of grants) {
    const list = grantsBySession.get(grant.sessionId) ?? [];
    list.push({ ACLID: grant.aclId, Description: grant.description, IP: grant.ip, ExpiresAt: iso(grant.expiresAt) });
    grantsBySession.set(grant.sessionId, list);
  }
  return sessions.map((session) => ({
    ID: session.id,
    UserName: session.userName,
    Name: session.name,
    IpAddress: session.ipAddress,
    Created: iso(session.createdAt),
    Ends: iso(session.endsAt),
    KioskMode: session.kiosk,
    Grants: grantsBySession.get(session.id) ?? [],
  }));
}
