import type { AclEntry } from '@postern/protocol';

/**
 * The `?referrer=` of the user login: the address of a protected system that sent the person here
 * to sign in. It is held in session storage across the sign-in (password, second factor or the SSO
 * round trip) and followed once the user pages know the person's ACLs, and only when its base (scheme,
 * host and port) is the base of one of those ACLs' URLs: the portal never sends anyone to an address
 * an attacker chose.
 */

/** Session-storage key of the held referrer. */
const REFERRER_STORAGE_KEY = 'postern.referrer';

/** A held referrer older than this is forgotten: the sign-in it belonged to was abandoned. */
export const REFERRER_MAX_AGE_MS = 15 * 60_000;

interface HeldReferrer {
  url: string;
  at: number;
}

/** The base (origin) of an http or https URL, or null for anything else. */
export function urlBase(value: string): string | null {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return null;
  return new URL(value).origin;
}

/** Holds the login page's referrer for after the sign-in, or forgets any held one when `value` is empty. */
export function holdReferrer(value: string | null, now = Date.now()): void {
  try {
    if (value === null || urlBase(value) === null) window.sessionStorage.removeItem(REFERRER_STORAGE_KEY);
    else window.sessionStorage.setItem(REFERRER_STORAGE_KEY, JSON.stringify({ url: value, at: now }));
  } catch {
    // Storage can be disabled; the referrer is then simply not followed.
  }
}

/** The held referrer, if one is held and still fresh. */
export function heldReferrer(now = Date.now()): string | null {
  try {
    const raw = window.sessionStorage.getItem(REFERRER_STORAGE_KEY);
    if (raw === null) return null;
    const held = JSON.parse(raw) as Partial<HeldReferrer>;
    if (typeof held.url !== 'string' || typeof held.at !== 'number') return null;
    if (now - held.at > REFERRER_MAX_AGE_MS || held.at > now + 60_000) return null;
    return held.url;
  } catch {
    return null;
  }
}

/** Forgets the held referrer. */
export function dropReferrer(): void {
  holdReferrer(null);
}

/** The first of `acls` whose URL has the same base as `referrer`, or undefined. */
export function aclForReferrer<T extends Pick<AclEntry, 'URL'>>(referrer: string, acls: readonly T[]): T | undefined {
  const base = urlBase(referrer);
  if (base === null) return undefined;
  return acls.find((acl) => urlBase(acl.URL) === base);
}
