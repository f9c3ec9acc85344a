import { AdminSessionInfo, UserSessionInfo } from '@postern/protocol';
import { useSyncExternalStore } from 'react';
import type { Area } from '../area';

/**
 * The spec keeps session data in session storage: one key per realm, so a person can be signed in
 * to the portal and the admin console at once, and closing the tab forgets both. The cookie is the
 * real credential; this is only what the pages show and route on.
 */
export const SESSION_KEYS = {
  user: 'postern.session.user',
  admin: 'postern.session.admin',
  /** Set while an admin who signed in still owes the second factor (value: the path of that step). */
  adminSecondFactor: 'postern.session.admin.secondFactor',
} as const;

/** The second-factor step an admin session still has to pass. */
export type SecondFactorStep = '/admin/otp/verify' | '/admin/otp/onboard';

const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of [...listeners]) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function readRaw(key: string): string | null {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) window.sessionStorage.removeItem(key);
    else window.sessionStorage.setItem(key, value);
  } catch {
    // Storage can be disabled; the guards then ask the server on every page load instead.
  }
  emit();
}

/** Parses stored JSON; anything that no longer matches the contract (an old build, a hand edit) is no session. */
function parseSession<T>(raw: string, schema: { safeParse(value: unknown): { success: boolean; data?: T } }): T | null {
  try {
    const result = schema.safeParse(JSON.parse(raw));
    return result.success ? (result.data ?? null) : null;
  } catch {
    return null;
  }
}

/** The last parse per key, so repeated reads return the same object (useSyncExternalStore needs that). */
const parsedCache = new Map<string, { raw: string; value: unknown }>();

function readParsed<T>(key: string, schema: { safeParse(value: unknown): { success: boolean; data?: T } }): T | null {
  const raw = readRaw(key);
  if (raw === null) return null;
  const cached = parsedCache.get(key);
  if (cached?.raw === raw) return cached.value as T | null;
  const value = parseSession(raw, schema);
  parsedCache.set(key, { raw, value });
  return value;
}

/** The signed-in user's session info, or null. */
function readUserSession(): UserSessionInfo | null {
  return readParsed(SESSION_KEYS.user, UserSessionInfo);
}

/** The signed-in admin's session info, or null. */
function readAdminSession(): AdminSessionInfo | null {
  return readParsed(SESSION_KEYS.admin, AdminSessionInfo);
}

/** The second-factor step the stored admin session still owes, or null when it owes none. */
function readAdminSecondFactorStep(): SecondFactorStep | null {
  const raw = readRaw(SESSION_KEYS.adminSecondFactor);
  return raw === '/admin/otp/verify' || raw === '/admin/otp/onboard' ? raw : null;
}

/** Remembers the user's session after sign-in (or after the server confirmed one). */
export function storeUserSession(info: UserSessionInfo): void {
  write(SESSION_KEYS.user, JSON.stringify(info));
}

/** Remembers the admin's session; `pendingStep` marks a sign-in that still needs its second factor. */
export function storeAdminSession(info: AdminSessionInfo, pendingStep: SecondFactorStep | null = null): void {
  // The step first: a reader between the two writes then sees no session rather than a complete one.
  write(SESSION_KEYS.adminSecondFactor, pendingStep);
  write(SESSION_KEYS.admin, JSON.stringify(info));
}

/** Forgets one realm's session. */
export function clearSession(realm: Area): void {
  if (realm === 'user') {
    write(SESSION_KEYS.user, null);
  } else {
    write(SESSION_KEYS.admin, null);
    write(SESSION_KEYS.adminSecondFactor, null);
  }
}

/** The stored user session, re-rendering when it changes. */
export function useUserSession(): UserSessionInfo | null {
  return useSyncExternalStore(subscribe, readUserSession);
}

/** The stored admin session, re-rendering when it changes. */
export function useAdminSession(): AdminSessionInfo | null {
  return useSyncExternalStore(subscribe, readAdminSession);
}

/** The second-factor step the stored admin session still owes, re-rendering when it changes. */
export function useAdminSecondFactorStep(): SecondFactorStep | null {
  return useSyncExternalStore(subscribe, readAdminSecondFactorStep);
}
