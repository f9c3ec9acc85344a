import { NavLink, ScrollArea, Stack } from '@mantine/core';
import { IconLogout } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { routePath } from '../../../lib/route-paths';
import { routeTitleKey } from '../../../app/routes/route-types';
import { useLogout } from '../../../features/auth/api';
import { ADMIN_NAV_ITEMS } from './admin-nav-items';

/** Whether the sidebar entry for `path` is the current section (its own page or one below it). */
function isActive(pathname: string, path: string): boolean {
  return pathname === path || pathname.startsWith(`${path}/`);
}

/** The admin sidebar's links and the logout entry. `onNavigate` closes the drawer on small screens. */
export function AdminNav({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const logout = useLogout('admin');

  return (
    <Stack justify="space-between" h="100%" gap="xs">
      <ScrollArea type="auto" offsetScrollbars>
        <Stack gap={4}>
          {ADMIN_NAV_ITEMS.map(({ routeId, icon: Icon }) => {
            const path = routePath(routeId);
            const active = isActive(pathname, path);
            return (
              <NavLink
                key={routeId}
                component={Link}
                to={path}
                label={t(routeTitleKey(routeId))}
                leftSection={<Icon size={18} stroke={1.6} aria-hidden />}
                active={active}
                aria-current={active ? 'page' : undefined}
                variant="light"
                onClick={onNavigate}
              />
            );
          })}
        </Stack>
      </ScrollArea>
      <NavLink
        component="button"
        type="button"
        label={t('adminShell.logout')}
        leftSection={<IconLogout size={18} stroke={1.6} aria-hidden />}
        disabled={logout.isPending}
        onClick={() => logout.mutate()}
      />
    </Stack>
  );
}
