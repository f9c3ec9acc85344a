import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { Id } from './common.js';

/**
 * The machine API under /api/v1, used with API keys instead of sessions: published allowlists, the
 * running user sessions, and the machine sign-in.
 */

/** The fixed HTTP Basic user name that goes with an API key as the password (the spec's 'apiuser'). */
export const API_KEY_BASIC_USER = 'apiuser';

/** GET /api/v1/allowlists/{aclId}/{token}.json: the same addresses as the .txt file. */
export const AllowlistRecord = z.object({
  ACLID: Id,
  /** The knoc's description (its name). */
  Description: z.string(),
  /** ISO instant the list was computed. */
  Generated: z.string(),
  /** IPv4 first, then IPv6, each in address order; a single address without /32 or /128. */
  Addresses: z.array(z.string()),
});
export type AllowlistRecord = z.infer<typeof AllowlistRecord>;
export const AllowlistResponse = dataEnvelope(AllowlistRecord);

/** One running grant of a session, as /api/v1/user_sessions shows it. */
export const V1SessionGrant = z.object({
  ACLID: Id,
  /** The knoc's description. */
  Description: z.string(),
  IP: z.string(),
  /** ISO instant the grant ends on its own. */
  ExpiresAt: z.string(),
});
export type V1SessionGrant = z.infer<typeof V1SessionGrant>;

/** GET /api/v1/user_sessions (scope user.sessions): every running, fully signed-in user session. */
export const V1UserSession = z.object({
  ID: Id,
  UserName: z.string(),
  /** The user's display name. */
  Name: z.string(),
  /** The address the session signed in from (its grants may be on other addresses). */
  IpAddress: z.string(),
  Created: z.string(),
  Ends: z.string(),
  KioskMode: z.boolean(),
  Grants: z.array(V1SessionGrant),
});
export type V1UserSession = z.infer<typeof V1UserSession>;
export const V1UserSessionListResponse = dataEnvelope(z.array(V1UserSession));

/**
 * POST /api/v1/login: a script or server signs in with an API key scoped `user.auth:{user ID}`, sent
 * in the Authorization header (`Bearer <key>`, or HTTP Basic `apiuser` + key), never in the URL. The
 * key's user (AuthType apikey) gets a normal user session, exactly as POST /api/login gives a person:
 * the same answer (LoginResponse) and session cookie, then the user API (/api/status, /api/grant,
 * DELETE /api/sessions/current/granted-acls/{id}, /api/logout) with that cookie.
 */
export const V1_LOGIN_PATH = '/api/v1/login';
