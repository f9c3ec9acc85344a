import { Burger, Group, Text } from '@mantine/core';
import { IconUserCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { BrandLogo } from '../../../components/BrandLogo';
import { CompactHeaderContext } from '../../../components/HeaderButton';
import { useAdminSession } from '../../../lib/session/session-store';
import { ColorSchemeToggle } from '../../../theme/ColorSchemeToggle';
import { LanguageSwitch } from '../../../features/account/components/LanguageSwitch';
import { useAdminStatus } from '../../../features/status/api';
import { PasskeysButton } from '../../../features/passkeys/components/PasskeysButton';
import { accountHasPasskeys } from '../../../features/passkeys/passkey-accounts';

/** Props of {@link AdminHeader}. */
export interface AdminHeaderProps {
  navOpened: boolean;
  onToggleNav: () => void;
}

/**
 * The organisation's logo, the product name, the colour-scheme toggle and the signed-in admin, with
 * the admin's own passkeys where the account holds them.
 */
export function AdminHeader({ navOpened, onToggleNav }: AdminHeaderProps) {
  const { t } = useTranslation();
  const session = useAdminSession();
  const savedLanguage = useAdminStatus().data?.Language;

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap" miw={0}>
        <Burger
          opened={navOpened}
          onClick={onToggleNav}
          hiddenFrom="sm"
          size="sm"
          aria-label={t('adminShell.toggleNavigation')}
        />
        {/* The organisation's logo, as the user portal shows it; Postern's mark when none is uploaded. */}
        <BrandLogo height={30} maxWidth={120} />
        <Text fw={700} size="lg" truncate>
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
        {accountHasPasskeys(session?.AuthType) ? (
          // An icon with its name as tooltip, like the other controls of this narrow header.
          <CompactHeaderContext.Provider value>
            <PasskeysButton realm="admin" />
          </CompactHeaderContext.Provider>
        ) : null}
        <LanguageSwitch area="admin" saved={savedLanguage} />
        <ColorSchemeToggle />
      </Group>
    </Group>
  );
}
