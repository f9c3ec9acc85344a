import type { ReactNode } from 'react';
import { Box, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { ColorSchemeToggle } from '../theme/ColorSchemeToggle';
import { LanguageSwitch } from '../features/account/components/LanguageSwitch';
import { Logo } from './Logo';

/** Props of {@link AuthLayout}. */
export interface AuthLayoutProps {
  /** The page's one h1. */
  heading: string;
  /** A line under the heading. */
  intro?: string;
  children: ReactNode;
}

/** The frame of the sign-in pages: colour-scheme toggle at the top, a centred card below. */
export function AuthLayout({ heading, intro, children }: AuthLayoutProps) {
  return (
    <Box mih="100vh" py="md">
      <Group justify="flex-end" px="md" gap="xs">
        <LanguageSwitch />
        <ColorSchemeToggle />
      </Group>
      <Container size={440} component="main" mt="xl">
        <Stack align="center" gap="xs" mb="lg">
          <Logo size={56} />
          <Title order={1} ta="center" fz="h2">
            {heading}
          </Title>
          {intro === undefined ? null : (
            <Text c="dimmed" ta="center">
              {intro}
            </Text>
          )}
        </Stack>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
