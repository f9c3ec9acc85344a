import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  AdminSessionInfo,
  Passkey,
  PasswordlessOptions,
  RegistrationVerifyResult,
  UserSessionInfo,
} from '@postern/protocol';
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';
import { api } from '../../lib/api/client';
import type { Area } from '../../lib/area';
import { runRegistration, type CeremonyOptions } from './ceremony';

/** Every WebAuthn route exists once per realm (packages/protocol/src/webauthn.ts). */
const WEBAUTHN_BASE: Record<Area, string> = { user: '/webauthn', admin: '/admin/webauthn' };

const CeremonyOptionsSchema = z.record(z.string(), z.unknown());

// A sign-in that is still pending (second factor, onboarding, the passwordless one) handles a 401
// err.invalidSession itself (back to the login, saying so), as the two-factor screens do.
const PENDING_SIGN_IN = { ignoreInvalidSession: true } as const;

/** Query keys of the passkey calls. */
export const passkeyKeys = {
  all: ['passkeys'] as const,
  own: (realm: Area) => [...passkeyKeys.all, 'own', realm] as const,
};

/** POST …/webauthn/passwordless/options (public): a ceremony for a discoverable passkey. */
export function passwordlessOptions(realm: Area): Promise<PasswordlessOptions> {
  return api.post(`${WEBAUTHN_BASE[realm]}/passwordless/options`, undefined, PasswordlessOptions, PENDING_SIGN_IN);
}

/** POST /api/webauthn/passwordless/verify: signs the user in, as POST /api/login does. */
export function passwordlessVerifyUser(body: {
  CeremonyID: string;
  Response: AuthenticationResponseJSON;
  KioskMode: boolean;
}): Promise<UserSessionInfo> {
  return api.post('/webauthn/passwordless/verify', body, UserSessionInfo, PENDING_SIGN_IN);
}

/** POST /api/admin/webauthn/passwordless/verify: signs the admin in, as POST /api/admin/login does. */
export function passwordlessVerifyAdmin(body: {
  CeremonyID: string;
  Response: AuthenticationResponseJSON;
}): Promise<AdminSessionInfo> {
  return api.post('/admin/webauthn/passwordless/verify', body, AdminSessionInfo, PENDING_SIGN_IN);
}

/** POST …/webauthn/authentication/options: the second factor's options; 409 err.noPasskeys without any. */
export function authenticationOptions(realm: Area, signal?: AbortSignal): Promise<CeremonyOptions> {
  return api.post(`${WEBAUTHN_BASE[realm]}/authentication/options`, undefined, CeremonyOptionsSchema, {
    ...PENDING_SIGN_IN,
    signal,
  });
}

/** POST …/webauthn/authentication/verify: the second factor by passkey. */
export async function authenticationVerify(realm: Area, response: AuthenticationResponseJSON): Promise<void> {
  await api.post(`${WEBAUTHN_BASE[realm]}/authentication/verify`, { Response: response }, undefined, PENDING_SIGN_IN);
}

/**
 * A registration: POST …/webauthn/registration/options, the browser's ceremony, then
 * …/registration/verify. `pending`: for a sign-in enrolling its second factor (whose 401 the
 * onboarding screen handles); otherwise for a signed-in account adding a passkey.
 */
export async function registerPasskey(realm: Area, name: string, pending: boolean): Promise<RegistrationVerifyResult> {
  const options = pending ? PENDING_SIGN_IN : {};
  const base = WEBAUTHN_BASE[realm];
  const ceremony = await api.post(`${base}/registration/options`, undefined, CeremonyOptionsSchema, options);
  const body = { Name: name, Response: await runRegistration(ceremony) };
  return api.post(`${base}/registration/verify`, body, RegistrationVerifyResult, options);
}

const credentialPath = (realm: Area, id: string) => `${WEBAUTHN_BASE[realm]}/credentials/${encodeURIComponent(id)}`;

/** GET …/webauthn/credentials: the signed-in account's own passkeys. */
export function useOwnPasskeys(realm: Area) {
  return useQuery({
    queryKey: passkeyKeys.own(realm),
    queryFn: ({ signal }) => api.get(`${WEBAUTHN_BASE[realm]}/credentials`, z.array(Passkey), { signal }),
  });
}

/** Mutation options refreshing the account's passkey list once the call settles. */
function useRefreshingOwn(realm: Area) {
  const queryClient = useQueryClient();
  return { onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyKeys.own(realm) }) };
}

/** PUT …/webauthn/credentials/{id} */
export function useRenamePasskey(realm: Area) {
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => api.put(credentialPath(realm, id), { Name: name }),
    ...useRefreshingOwn(realm),
  });
}

/** DELETE …/webauthn/credentials/{id} */
export function useRemovePasskey(realm: Area) {
  return useMutation({
    mutationFn: (id: string) => api.delete(credentialPath(realm, id)),
    ...useRefreshingOwn(realm),
  });
}

/** A signed-in account adding a passkey. */
export function useAddPasskey(realm: Area) {
  return useMutation({
    mutationFn: (name: string) => registerPasskey(realm, name, false),
    ...useRefreshingOwn(realm),
  });
}
