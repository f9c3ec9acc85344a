import { useEffect, useMemo } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { STATUS_CACHE_MS, type SystemStatus } from '@postern/protocol';
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

/** The single sign-on protocols a login page can offer. */
export type SsoProtocol = 'saml' | 'oidc';

const LOGIN_PATHS: Record<SsoProtocol, Record<Area, string>> = {
  saml: { user: '/api/login/saml', admin: '/api/admin/login/saml' },
  oidc: { user: '/api/login/oidc', admin: '/api/admin/login/oidc' },
};

/** Where SSO starts: the server redirects on to the identity provider. Kiosk sign-ins are for users only. */
function ssoLoginUrl(protocol: SsoProtocol, realm: Area, kioskMode: boolean): string {
  const path = LOGIN_PATHS[protocol][realm];
  if (realm === 'admin') return path;
  return `${path}?${new URLSearchParams({ kioskMode: String(kioskMode) }).toString()}`;
}

/** Leaves the app for the SSO round trip (a full-page navigation, not a router one). */
export function startSso(realm: Area, kioskMode = false, protocol: SsoProtocol = 'saml'): void {
  browserLocation.assign(ssoLoginUrl(protocol, realm, kioskMode));
}

/**
 * The name of `realm`'s OpenID Connect provider when the server offers it (the public system
 * status), null when it does not or the status cannot be read, `undefined` while asking.
 */
function useOidcProvider(realm: Area): string | null | undefined {
  const { data, isError } = useQuery({
    queryKey: statusKeys.system(),
    queryFn: ({ signal }) => fetchSystemStatus({ signal, ignoreInvalidSession: true }),
    staleTime: STATUS_CACHE_MS,
    retry: false,
  });
  if (isError) return null;
  if (data === undefined) return undefined;
  return oidcProviderOf(data, realm);
}

function oidcProviderOf(status: SystemStatus, realm: Area): string | null {
  const configured = realm === 'admin' ? status.AdminOIDCConfigured : status.UserOIDCConfigured;
  const name = realm === 'admin' ? status.AdminOIDCProviderName : status.UserOIDCProviderName;
  return configured ? name : null;
}

/** One way to sign in at an identity provider, as the login page's button offers it. */
export interface SsoMethod {
  protocol: SsoProtocol;
  label: string;
  start: () => void;
}

/** Whether any single sign-on way is offered (false while that is still being found out). */
export function hasSso(methods: readonly SsoMethod[] | undefined): boolean {
  return methods !== undefined && methods.length > 0;
}

/**
 * The single sign-on ways `realm`'s login page offers, SAML (the specification's SSO) first, then
 * OpenID Connect named after its provider; `undefined` while that is being found out. A provider
 * that turns out to be unreachable sends the browser back here with `?error=`.
 */
export function useSsoMethods(realm: Area, kioskMode = false): SsoMethod[] | undefined {
  const { t } = useTranslation();
  const saml = useSsoAvailable(realm);
  const oidcProvider = useOidcProvider(realm);
  return useMemo(() => {
    if (saml === undefined || oidcProvider === undefined) return undefined;
    const methods: SsoMethod[] = [];
    if (saml) methods.push({ protocol: 'saml', label: t('sso.signIn'), start: () => startSso(realm, kioskMode) });
    if (oidcProvider !== null) {
      methods.push({
        protocol: 'oidc',
        label: oidcProvider === '' ? t('sso.signInOidc') : t('sso.signInWith', { provider: oidcProvider }),
        start: () => startSso(realm, kioskMode, 'oidc'),
      });
    }
    return methods;
  }, [saml, oidcProvider, realm, kioskMode, t]);
}

/** Whether nothing on the page has the keyboard focus. */
function nothingFocused(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active === document.documentElement;
}

/**
 * The spec's shortcut: Enter, pressed while no field (nor any other control) has the focus, starts
 * SSO (the first way offered). With focus on a field, Enter keeps its usual meaning (submitting
 * that form). `start` undefined: no SSO, no shortcut.
 */
export function useEnterStartsSso(start: (() => void) | undefined): void {
  useEffect(() => {
    if (start === undefined) return undefined;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || event.defaultPrevented || event.isComposing || event.repeat) return;
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (!nothingFocused()) return;
      event.preventDefault();
      start();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [start]);
}
