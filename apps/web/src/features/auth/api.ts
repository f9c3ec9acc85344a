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
import { api, type RequestOptions } from '../../lib/api/client';
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

/** POST /api/logout or /api/admin/logout */
export async function logout(realm: Area): Promise<void> {
  await api.post(realm === 'admin' ? '/admin/logout' : '/logout');
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
 * returns to that realm's login, even when the call failed (the person asked to leave).
 */
export function useLogout(realm: Area) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => logout(realm),
    onSettled: async () => {
      clearSession(realm);
      queryClient.removeQueries();
      await navigate(LOGIN_PATH[realm], { replace: true });
    },
  });
}
