import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api/client';
import { browserLocation } from '../../lib/navigation/browser-location';
import type { Area } from '../../lib/area';

/**
 * How long the login page waits to learn whether SSO exists before showing the local form alone:
 * a metadata endpoint that hangs must not keep anyone from signing in.
 */
const SSO_PROBE_TIMEOUT_MS = 3_000;

/** Query keys of the SSO calls. */
export const ssoKeys = {
  all: ['sso'] as const,
  metadata: (realm: Area) => [...ssoKeys.all, 'metadata', realm] as const,
};

const METADATA_PATH: Record<Area, string> = { user: '/saml/metadata', admin: '/admin/saml/metadata' };

/**
 * Whether single sign-on is set up for `realm`: its SAML metadata answers 200 (a 404
 * err.samlNotConfigured, or any other failure, means no SSO). Never rejects.
 */
async function fetchSsoAvailable(realm: Area, signal?: AbortSignal): Promise<boolean> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, SSO_PROBE_TIMEOUT_MS);
  signal?.addEventListener('abort', abort);
  try {
    // The body is XML; only the status matters here.
    await api.get(METADATA_PATH[realm], undefined, { signal: controller.signal, ignoreInvalidSession: true });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
}

/** Whether the login page of `realm` offers SSO; `undefined` while that is being found out. */
export function useSsoAvailable(realm: Area): boolean | undefined {
  const { data } = useQuery({
    queryKey: ssoKeys.metadata(realm),
    queryFn: ({ signal }) => fetchSsoAvailable(realm, signal),
    retry: false,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  return data;
}

/** Where SSO starts: the server redirects on to the identity provider. */
function ssoLoginUrl(realm: Area, kioskMode = false): string {
  if (realm === 'admin') return '/api/admin/login/saml';
  return `/api/login/saml?${new URLSearchParams({ kioskMode: String(kioskMode) }).toString()}`;
}

/** Leaves the app for the SSO round trip (a full-page navigation, not a router one). */
export function startSso(realm: Area, kioskMode = false): void {
  browserLocation.assign(ssoLoginUrl(realm, kioskMode));
}

/** Whether nothing on the page has the keyboard focus. */
function nothingFocused(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active === document.documentElement;
}

/**
 * The spec's shortcut: Enter, pressed while no field (nor any other control) has the focus, starts
 * SSO. With focus on a field, Enter keeps its usual meaning (submitting that form).
 */
export function useEnterStartsSso(enabled: boolean, start: () => void): void {
  useEffect(() => {
    if (!enabled) return undefined;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || event.defaultPrevented || event.isComposing || event.repeat) return;
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (!nothingFocused()) return;
      event.preventDefault();
      start();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [enabled, start]);
}
