import { Alert, Button, Group, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconUsersGroup } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { intlLocaleFor } from '@/i18n/i18n';
import { routePath } from '../../../lib/route-paths';
import type { LicenceUsage, UserLimitLevel } from '../licence-usage';

/** Yellow while the grace allowance is comfortable, orange from the warning share, red once users are refused. */
const LEVEL_COLOURS: Record<UserLimitLevel, string> = { grace: 'yellow', warning: 'orange', beyond: 'red' };

/** Props of {@link UserLimitBanner}. */
export interface UserLimitBannerProps {
  usage: LicenceUsage;
  onDismiss: () => void;
}

/**
 * The userLimitExceeded banner (spec: "licence usage bar with licensed users, grace, current,
 * remaining; buttons 'Upgrade Licence' and 'Manage Users'; dismissible"). The bar spans licensed plus
 * grace seats: its first section is users within the licence, the second users in the grace allowance.
 */
export function UserLimitBanner({ usage, onDismiss }: UserLimitBannerProps) {
  const { t, i18n } = useTranslation();
  const format = new Intl.NumberFormat(intlLocaleFor(i18n.resolvedLanguage));
  const messages: Record<UserLimitLevel, string> = {
    grace: t('banners.userLimit.grace', { remaining: format.format(usage.remaining) }),
    warning: t('banners.userLimit.warning', {
      percent: format.format(usage.overPercent),
      remaining: format.format(usage.remaining),
    }),
    beyond: t('banners.userLimit.beyond'),
  };
  const facts = [
    { label: t('banners.userLimit.licensed'), value: usage.licensed },
    { label: t('banners.userLimit.graceSeats'), value: usage.grace },
    { label: t('banners.userLimit.current'), value: usage.current },
    { label: t('banners.userLimit.remaining'), value: usage.remaining },
  ];

  return (
    <Alert
      color={LEVEL_COLOURS[usage.level]}
      icon={<IconUsersGroup aria-hidden />}
      title={t('banners.userLimit.title')}
      withCloseButton
      closeButtonLabel={t('banners.dismiss')}
      onClose={onDismiss}
    >
      <Stack gap="sm">
        <Text size="sm">{messages[usage.level]}</Text>
        <Progress.Root size="lg" role="group" aria-label={t('banners.userLimit.usage')}>
          <Progress.Section
            value={usage.licensedPercent}
            color="blue"
            aria-label={t('banners.userLimit.licensedUsage')}
          />
          <Progress.Section
            value={usage.gracePercent}
            color={LEVEL_COLOURS[usage.level]}
            aria-label={t('banners.userLimit.graceUsage')}
          />
        </Progress.Root>
        {/* Two columns on a phone, four from the small breakpoint: the numbers stay readable at 390 px. */}
        <SimpleGrid component="dl" cols={{ base: 2, sm: 4 }} spacing="xs" verticalSpacing={4} m={0}>
          {facts.map(({ label, value }) => (
            <div key={label}>
              <Text component="dt" size="xs" c="dimmed">
                {label}
              </Text>
              <Text component="dd" fw={700} m={0}>
                {format.format(value)}
              </Text>
            </div>
          ))}
        </SimpleGrid>
        <Group gap="sm" wrap="wrap">
          <Button component={Link} to={routePath('settings')} size="xs" color={LEVEL_COLOURS[usage.level]}>
            {t('banners.userLimit.upgrade')}
          </Button>
          <Button component={Link} to={routePath('users')} size="xs" variant="default">
            {t('banners.userLimit.manageUsers')}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
