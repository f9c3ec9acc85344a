import { useMemo } from 'react';
import { Alert, Button, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconLogout } from '@tabler/icons-react';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../components/Logo';
import { ColorSchemeToggle } from '../../theme/ColorSchemeToggle';
import { renderError } from '../../lib/api/render-error';
import { useUserSession } from '../../lib/session/session-store';
import { ChangePasswordButton } from '../account/components/ChangePasswordButton';
import { useLogout } from '../auth/api';
import { useUserStatus } from '../status/api';

/** Props of {@link InterimUserHome}. */
export interface InterimUserHomeProps {
  /** The page's h1. */
  heading: string;
}

/**
 * The first cut of /home and /home/new: greeting, when the session ends, change password (local
 * accounts) and logout. The ACL list, countdown and the rest of the dashboard arrive in later issues.
 */
export function InterimUserHome({ heading }: InterimUserHomeProps) {
  const { t } = useTranslation();
  const session = useUserSession();
  const status = useUserStatus();
  const logout = useLogout('user');
  const name = status.data?.Name ?? session?.Name ?? '';
  const ends = status.data?.Ends;
  const userName = status.data?.UserName ?? session?.UserName ?? '';
  // Only local accounts have a password here to change (spec §6).
  const local = (status.data?.AuthType ?? session?.AuthType) === 'local';
  const names = useMemo(() => [name, userName], [name, userName]);

  return (
    <Container size="md" py="md">
      <Group justify="space-between" mb="xl" component="header">
        <Group gap="sm">
          <Logo size={36} />
          <Title order={1} fz="h2">
            {heading}
          </Title>
        </Group>
        <Group gap="sm">
          {local ? <ChangePasswordButton names={names} /> : null}
          <ColorSchemeToggle />
          <Button
            variant="default"
            leftSection={<IconLogout size={16} aria-hidden />}
            loading={logout.isPending}
            onClick={() => logout.mutate()}
          >
            {t('home.logout')}
          </Button>
        </Group>
      </Group>
      <Stack component="main">
        <Text size="lg">{t('home.greeting', { name })}</Text>
        {status.isPending ? <Loader size="sm" role="status" aria-label={t('app.loading')} /> : null}
        {status.isError ? (
          <Alert color="red" title={t('error.title')}>
            {renderError(status.error, t)}
          </Alert>
        ) : null}
        {ends === undefined ? null : (
          <Text>
            <time dateTime={ends} title={dayjs(ends).format('LLL')}>
              {t('home.sessionEnds', { relative: dayjs(ends).fromNow() })}
            </time>
          </Text>
        )}
      </Stack>
    </Container>
  );
}
