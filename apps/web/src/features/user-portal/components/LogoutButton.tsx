import { IconLogout } from '@tabler/icons-react';
import { HeaderButton } from '@/components/HeaderButton';
import { useTranslation } from 'react-i18next';
import { useLogout } from '../../auth/api';

/** 'Log out' of the portal: back to the login, even when the call fails. */
export function LogoutButton({ variant = 'default' }: { variant?: 'default' | 'filled' }) {
  const { t } = useTranslation();
  const logout = useLogout('user');
  return (
    <HeaderButton
      variant={variant}
      label={t('home.logout')}
      icon={<IconLogout size={16} aria-hidden />}
      loading={logout.isPending}
      onClick={() => logout.mutate()}
    />
  );
}
