import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  AdminSessionInfo,
  UserSessionInfo,
  type AdminLoginBody,
  type AdminStatus,
  type LoginBody,
  type UserStatus,
} from '@postern/protocol';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { api, type RequestOptions } from '../../lib/api/client';
import { browserLocation } from '../../lib/navigation/browser-location';
import { clearSession } from '../../lib/session/session-store';
import { LOGIN_PATH, type Area } from '../../lib/area';

/** POST /api/login */
export function login(body: LoginBody): Promise<UserSessionInfo> {
  return api.post('/login', body, UserSessionInfo);
}

/** POST /api/admin/login */
export function adminLogin(body: AdminLoginBody): Promise<AdminSessionInfo> {
  return api.post('/admin/login', body, AdminSessionInfo);
}

/**
 * GET /api/admin/session: the admin sign-in behind the cookie, finished or still waiting for its
 * second factor (the admin status answers only finished ones).
 */
export function fetchAdminSession(options?: RequestOptions): Promise<AdminSessionInfo> {
  return api.get('/admin/session', AdminSessionInfo, options);
}

/** What a logout answers: null, or the OpenID Connect provider's logout page to go on to. */
const LogoutResult = z.object({ EndSessionURL: z.string() }).nullable();

/**
 * POST /api/logout or /api/admin/logout. Resolves to the identity provider's logout URL when the
 * session came from an OpenID Connect provider that ends its own session too, else null.
 */
export async function logout(realm: Area): Promise<string | null> {
  const result = await api.post(realm === 'admin' ? '/admin/logout' : '/logout', undefined, LogoutResult);
  return result === null ? null : webUrlOrNull(result.EndSessionURL);
}

/** `url` when it is an http(s) address (never a javascript: or data: one), else null. */
function webUrlOrNull(url: string): string | null {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** The session info a guard stores when the server confirms a session it had no record of (a new tab). */
export function userSessionFromStatus(status: UserStatus): UserSessionInfo {
  return UserSessionInfo.parse(status);
}

/** The admin status carries every AdminSessionInfo field; the schema picks them out. */
export function adminSessionFromStatus(status: AdminStatus): AdminSessionInfo {
  return AdminSessionInfo.parse(status);
}

/** The sign-in call of the user login form. */
export function useLoginMutation() {
  return useMutation({ mutationFn: login });
}

/** The sign-in call of the admin login form. */
export function useAdminLoginMutation() {
  return useMutation({ mutationFn: adminLogin });
}

/**
 * Signs out of one realm: tells the server, then forgets the session and every cached answer and
 * returns to that realm's login, even when the call failed (the person asked to leave). A session
 * from an OpenID Connect provider that offers it goes on to the provider's logout page instead,
 * which ends the sign-in there too and sends the browser back to the login.
 */
export function useLogout(realm: Area) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => logout(realm),
    onSettled: async (endSessionUrl) => {
      clearSession(realm);
      queryClient.removeQueries();
      if (typeof endSessionUrl === 'string') {
        browserLocation.assign(endSessionUrl);
        return;
      }
      await navigate(LOGIN_PATH[realm], { replace: true });
    },
  });
}
