import { useQuery } from '@tanstack/react-query';
import {
  AdminStatus,
  ADMIN_HOME_STATUS_REFRESH_MS,
  STATUS_CACHE_MS,
  SystemStatus,
  THEME_CACHE_MS,
  Theme,
  UserStatus,
} from '@postern/protocol';
import { api, type RequestOptions } from '../../lib/api/client';

/** Query keys of the status calls; every cache entry about status is named here. */
export const statusKeys = {
  all: ['status'] as const,
  user: () => [...statusKeys.all, 'user'] as const,
  admin: () => [...statusKeys.all, 'admin'] as const,
  theme: () => [...statusKeys.all, 'theme'] as const,
  system: () => [...statusKeys.all, 'system'] as const,
};

/** GET /api/status */
export function fetchUserStatus(options?: RequestOptions): Promise<UserStatus> {
  return api.get('/status', UserStatus, options);
}

/** GET /api/admin/status */
export function fetchAdminStatus(options?: RequestOptions): Promise<AdminStatus> {
  return api.get('/admin/status', AdminStatus, options);
}

/** GET /api/system_status */
export function fetchSystemStatus(options?: RequestOptions): Promise<SystemStatus> {
  return api.get('/system_status', SystemStatus, options);
}

/** GET /api/theme */
function fetchTheme(options?: RequestOptions): Promise<Theme> {
  return api.get('/theme', Theme, options);
}

/** The signed-in user's status, cached for the spec's status lifetime. */
export function useUserStatus() {
  return useQuery({
    queryKey: statusKeys.user(),
    queryFn: ({ signal }) => fetchUserStatus({ signal }),
    staleTime: STATUS_CACHE_MS,
  });
}

/**
 * The admin status. `live` is for the admin home, which refreshes it every 30 seconds even in a
 * background tab; elsewhere it is cached like the user status.
 */
export function useAdminStatus({ live = false }: { live?: boolean } = {}) {
  return useQuery({
    queryKey: statusKeys.admin(),
    queryFn: ({ signal }) => fetchAdminStatus({ signal }),
    staleTime: live ? 0 : STATUS_CACHE_MS,
    refetchInterval: live ? ADMIN_HOME_STATUS_REFRESH_MS : false,
    refetchIntervalInBackground: live,
  });
}

/** The accent and accessibility mode chosen by the administrator; public, cached ten minutes. */
export function useThemeSettings() {
  return useQuery({
    queryKey: statusKeys.theme(),
    queryFn: ({ signal }) => fetchTheme({ signal }),
    staleTime: THEME_CACHE_MS,
    gcTime: THEME_CACHE_MS,
    // The default look is fine when the call fails; do not keep asking.
    retry: false,
  });
}
