import type { ReactNode } from 'react';
import { Box, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { BrandLogo } from './BrandLogo';

/** Props of {@link PortalHeader}. */
export interface PortalHeaderProps {
  /** The signed-in person's name, greeted in the page's h1. */
  name: string;
  /** A line under the greeting (the account expiry). */
  subtitle?: ReactNode;
  /** The session countdown, or nothing while it is hidden or unknown. */
  timer?: ReactNode;
  /** The buttons on the right: view toggle, colour mode, password, logout. */
  children: ReactNode;
}

/**
 * The top of the user pages: logo, greeting, countdown and controls. On a phone the three groups stack
 * and the controls wrap, so nothing ever scrolls sideways.
 */
export function PortalHeader({ name, subtitle, timer, children }: PortalHeaderProps) {
  const { t } = useTranslation();
  return (
    <Box component="header" py="sm" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
      <Container size="xl">
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: '1 1 16rem' }}>
            <BrandLogo />
            <Stack gap={0} miw={0}>
              <Title order={1} fz="h3" style={{ overflowWrap: 'anywhere' }}>
                {t('home.greeting', { name })}
              </Title>
              {subtitle === undefined ? null : (
                <Text size="sm" c="dimmed">
                  {subtitle}
                </Text>
              )}
            </Stack>
          </Group>
          {timer}
          <Group gap="xs" wrap="wrap" justify="flex-end">
            {children}
          </Group>
        </Group>
      </Container>
    </Box>
  );
}
