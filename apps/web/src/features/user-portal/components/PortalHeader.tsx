import type { ReactNode } from 'react';
import { Box, Container, Group, Stack, Text, Title, useMantineTheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { BrandLogo } from '@/components/BrandLogo';
import { CompactHeaderContext } from '@/components/HeaderButton';

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
 * The top of the user pages: logo, greeting, countdown and controls. On a phone (below Mantine's xs
 * breakpoint) it keeps to two rows: the greeting beside a stacked countdown, then the controls as
 * icons; nothing ever scrolls sideways. Wider screens have room for one row.
 */
export function PortalHeader({ name, subtitle, timer, children }: PortalHeaderProps) {
  const { t } = useTranslation();
  const theme = useMantineTheme();
  const compact = useMediaQuery(`(max-width: ${theme.breakpoints.xs})`) ?? false;
  return (
    <Box component="header" py="sm" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
      <Container size="xl">
        <CompactHeaderContext.Provider value={compact}>
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: compact ? '1 1 0' : '1 1 16rem' }}>
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
            {/* On a phone the controls take the second row to themselves. */}
            <Group gap="xs" wrap="wrap" justify="flex-end" style={compact ? { flex: '1 1 100%' } : undefined}>
              {children}
            </Group>
          </Group>
        </CompactHeaderContext.Provider>
      </Container>
    </Box>
  );
}
