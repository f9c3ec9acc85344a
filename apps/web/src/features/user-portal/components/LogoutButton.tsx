import { Button } from '@mantine/core';
import { IconLogout } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useLogout } from '../../auth/api';

/** 'Log out' of the portal: back to the login, even when the call fails. */
export function LogoutButton({ variant = 'default' }: { variant?: 'default' | 'filled' }) {
  const { t } = useTranslation();
  const logout = useLogout('user');
  return (
    <Button
      variant={variant}
      leftSection={<IconLogout size={16} aria-hidden />}
      loading={logout.isPending}
      onClick={() => logout.mutate()}
    >
      {t('home.logout')}
    </Button>
  );
}
