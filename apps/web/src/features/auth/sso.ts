import { useEffect } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { STATUS_CACHE_MS } from '@postern/protocol';
import { api } from '../../lib/api/client';
import { fetchSystemStatus, statusKeys } from '../status/api';
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
 * Whether the server says SSO is set up for `realm` (the public system status). Only then is the
 * metadata asked for: a login page without SAML makes no request that answers 404.
 */
async function samlConfigured(queryClient: QueryClient, realm: Area, signal: AbortSignal): Promise<boolean> {
  const status = await queryClient.fetchQuery({
    queryKey: statusKeys.system(),
    queryFn: () => fetchSystemStatus({ signal }),
    staleTime: STATUS_CACHE_MS,
  });
  return realm === 'admin' ? status.AdminSAMLConfigured : status.UserSAMLConfigured;
}

/**
 * Whether single sign-on works for `realm`: the server says it is set up, and its SAML metadata
 * answers 200 (any failure of either, or a slow answer, means no SSO). Never rejects.
 */
async function fetchSsoAvailable(queryClient: QueryClient, realm: Area, signal?: AbortSignal): Promise<boolean> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, SSO_PROBE_TIMEOUT_MS);
  signal?.addEventListener('abort', abort);
  try {
    if (!(await samlConfigured(queryClient, realm, controller.signal))) return false;
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
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: ssoKeys.metadata(realm),
    queryFn: ({ signal }) => fetchSsoAvailable(queryClient, realm, signal),
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
