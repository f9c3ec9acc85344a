import { Burger, Group, Text } from '@mantine/core';
import { IconUserCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../../components/Logo';
import { useAdminSession } from '../../../lib/session/session-store';
import { ColorSchemeToggle } from '../../../theme/ColorSchemeToggle';

/** Props of {@link AdminHeader}. */
export interface AdminHeaderProps {
  navOpened: boolean;
  onToggleNav: () => void;
}

/** Product name, colour-scheme toggle and the signed-in admin. */
export function AdminHeader({ navOpened, onToggleNav }: AdminHeaderProps) {
  const { t } = useTranslation();
  const session = useAdminSession();

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger
          opened={navOpened}
          onClick={onToggleNav}
          hiddenFrom="sm"
          size="sm"
          aria-label={t('adminShell.toggleNavigation')}
        />
        <Logo size={30} />
        <Text fw={700} size="lg">
          {t('app.adminName')}
        </Text>
      </Group>
      <Group gap="sm" wrap="nowrap">
        {session === null ? null : (
          <Group gap={6} visibleFrom="xs" wrap="nowrap" title={t('adminShell.signedInAs', { name: session.Name })}>
            <IconUserCircle size={20} stroke={1.6} aria-hidden />
            <Text size="sm">{session.Name}</Text>
          </Group>
        )}
        <ColorSchemeToggle />
      </Group>
    </Group>
  );
}
