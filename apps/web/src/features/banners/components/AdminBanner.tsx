import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { IconCloudDownload, IconExternalLink, IconLicenseOff, IconPlugConnectedX } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { intlLocaleFor } from '@/i18n/i18n';
import { routePath } from '../../../lib/route-paths';
import type { Banner, BannerKind, UpdateUrgency } from '../banner-rules';
import { UserLimitBanner } from './UserLimitBanner';

/** The more urgent the update, the louder the colour. */
const URGENCY_COLOURS: Record<UpdateUrgency, string> = {
  low: 'blue',
  medium: 'yellow',
  high: 'orange',
  critical: 'red',
};

/** Literal keys per urgency, so the translation check sees every one of them used. */
const URGENCY_TITLES = {
  low: 'banners.serverUpdate.title.low',
  medium: 'banners.serverUpdate.title.medium',
  high: 'banners.serverUpdate.title.high',
  critical: 'banners.serverUpdate.title.critical',
} as const satisfies Record<UpdateUrgency, string>;

/** Props of {@link AdminBanner}. */
export interface AdminBannerProps {
  banner: Banner;
  onDismiss: (kind: BannerKind) => void;
}

/**
 * One admin banner, drawn for its kind. Each is a Mantine Alert (role "alert", named by its title),
 * and a dismissible one has a close button named for what it does.
 */
export function AdminBanner({ banner, onDismiss }: AdminBannerProps) {
  const { t, i18n } = useTranslation();
  const dismissible = {
    withCloseButton: true,
    closeButtonLabel: t('banners.dismiss'),
    onClose: () => onDismiss(banner.kind),
  };

  switch (banner.kind) {
    case 'unlicensed':
      return (
        <Alert color="red" icon={<IconLicenseOff aria-hidden />} title={t('banners.unlicensed.title')}>
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{t('banners.unlicensed.body')}</Text>
            <Group gap="sm" wrap="wrap">
              {/* Spec: "links to the licensing site": the operator's, when configured (never a made-up one);
                  the settings page is where the key then goes. */}
              {banner.licensingUrl !== null && (
                <Button
                  component="a"
                  href={banner.licensingUrl}
                  target="_blank"
                  rel="noopener noreferrer"
                  size="xs"
                  color="red"
                  rightSection={<IconExternalLink size={14} aria-hidden />}
                >
                  {t('banners.unlicensed.action')}
                </Button>
              )}
              <Button component={Link} to={routePath('settings')} size="xs" variant="default">
                {t('banners.unlicensed.install')}
              </Button>
            </Group>
          </Stack>
        </Alert>
      );
    case 'agentIncompatible': {
      const count = banner.agentNames.length;
      const names = new Intl.ListFormat(intlLocaleFor(i18n.resolvedLanguage), { type: 'conjunction' }).format(
        banner.agentNames,
      );
      const values = { count, names, version: banner.requiredVersion };
      return (
        <Alert
          color="red"
          icon={<IconPlugConnectedX aria-hidden />}
          title={t('banners.agentIncompatible.title')}
          {...dismissible}
        >
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              {count === 1
                ? t('banners.agentIncompatible.bodyOne', values)
                : t('banners.agentIncompatible.body', values)}
            </Text>
            <Anchor component={Link} to={routePath('agents')} size="sm">
              {t('banners.agentIncompatible.action')}
            </Anchor>
          </Stack>
        </Alert>
      );
    }
    case 'userLimitExceeded':
      return <UserLimitBanner usage={banner.usage} onDismiss={() => onDismiss(banner.kind)} />;
    case 'serverUpdate':
      return (
        <Alert
          color={URGENCY_COLOURS[banner.urgency]}
          icon={<IconCloudDownload aria-hidden />}
          title={t(URGENCY_TITLES[banner.urgency])}
          {...dismissible}
        >
          <Group gap="xs" wrap="wrap">
            <Text size="sm">
              {t('banners.serverUpdate.body', { version: banner.version, current: banner.currentVersion })}
            </Text>
            {/* The server sends no changelog address when it knows none; a dead link helps nobody. */}
            {banner.changelogUrl === '' ? null : (
              <Anchor href={banner.changelogUrl} target="_blank" rel="noopener noreferrer" size="sm">
                <Group component="span" gap={4} wrap="nowrap">
                  {t('banners.serverUpdate.changelog')}
                  <IconExternalLink size={14} aria-hidden />
                </Group>
              </Anchor>
            )}
          </Group>
        </Alert>
      );
  }
}
