import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AuthenticationSettings,
  LicenceStatus,
  OidcTestResult,
  SettingsRecord,
  type AuthenticationSettingsBody,
  type LicenceBody,
  type OidcRealm,
  type OidcTestBody,
  type SettingsConfigBody,
  type SettingsCustomizeBody,
} from '@postern/protocol';
import { z } from 'zod';
import { api } from '@/lib/api/client';
import { statusKeys } from '@/features/status/api';

/** Query keys of the Settings screen; every cache entry it reads is named here. */
export const settingsKeys = {
  all: ['settings'] as const,
  record: () => [...settingsKeys.all, 'record'] as const,
  authentication: () => [...settingsKeys.all, 'authentication'] as const,
  licence: () => [...settingsKeys.all, 'licence'] as const,
};

/** Which SAML realm a key pair is generated for. */
export type SamlRealm = 'user' | 'admin';

const SAML_GENERATE_PATHS: Record<SamlRealm, string> = {
  user: '/admin/settings/generateUserSamlKeyCert',
  admin: '/admin/settings/generateAdminSamlKeyCert',
};
const SamlKeyCert = z.object({ Certificate: z.string() });

/** GET /api/admin/settings */
export function useSettingsRecord() {
  return useQuery({
    queryKey: settingsKeys.record(),
    queryFn: ({ signal }) => api.get('/admin/settings', SettingsRecord, { signal }),
  });
}

/** GET /api/admin/settings/authentication */
export function useAuthenticationSettings() {
  return useQuery({
    queryKey: settingsKeys.authentication(),
    queryFn: ({ signal }) => api.get('/admin/settings/authentication', AuthenticationSettings, { signal }),
  });
}

/** GET /api/admin/settings/license */
export function useLicenceStatus() {
  return useQuery({
    queryKey: settingsKeys.licence(),
    queryFn: ({ signal }) => api.get('/admin/settings/license', LicenceStatus, { signal }),
  });
}

/** The licence dialog's refresh icon: the server re-reads and re-verifies the stored licence. */
export function useRefreshLicenceStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.get('/admin/settings/license?refresh=true', LicenceStatus),
    onSuccess: (status) => queryClient.setQueryData(settingsKeys.licence(), status),
  });
}

/** PUT /api/admin/settings/license; then licence status and system status are fetched again (spec). */
export function useSaveLicence() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LicenceBody) => api.put('/admin/settings/license', body, LicenceStatus),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: settingsKeys.licence() }),
        // The admin status carries the licensing summary the banners and the shell read.
        queryClient.invalidateQueries({ queryKey: statusKeys.admin() }),
        queryClient.invalidateQueries({ queryKey: statusKeys.system() }),
      ]);
    },
  });
}

/** PUT /api/admin/settings/config: IP discovery, kiosk duration and logging. */
export function useSaveConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsConfigBody) => api.put('/admin/settings/config', body, SettingsRecord),
    onSuccess: (record) => queryClient.setQueryData(settingsKeys.record(), record),
  });
}

/** PUT /api/admin/settings/customize: branding and the dashboard choice; the theme follows at once. */
export function useSaveCustomisation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsCustomizeBody) => api.put('/admin/settings/customize', body, SettingsRecord),
    onSuccess: async (record) => {
      queryClient.setQueryData(settingsKeys.record(), record);
      await queryClient.invalidateQueries({ queryKey: statusKeys.theme() });
    },
  });
}

/** PUT /api/admin/settings/authentication */
export function useSaveAuthentication() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AuthenticationSettingsBody) =>
      api.put('/admin/settings/authentication', body, AuthenticationSettings),
    onSuccess: (settings) => queryClient.setQueryData(settingsKeys.authentication(), settings),
  });
}

/** POST generate{User,Admin}SamlKeyCert: a new key pair replaces the realm's; the settings are re-read. */
export function useGenerateSamlKeyCert() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (realm: SamlRealm) => api.post(SAML_GENERATE_PATHS[realm], undefined, SamlKeyCert),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.authentication() }),
  });
}

/**
 * POST /api/admin/settings/oidc/test: tries the realm's stored configuration against its provider.
 * Nothing is cached: each result belongs to the moment it was asked for.
 */
export function useTestOidcConfiguration() {
  return useMutation({
    mutationFn: (realm: OidcRealm) =>
      api.post('/admin/settings/oidc/test', { Realm: realm } satisfies OidcTestBody, OidcTestResult),
  });
}
