import { Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { routeTitleKey, type RoutePageProps } from '../../../app/routes/route-types';

/**
 * Stands in for a screen that a later release delivers. Its route, title and guard are already the
 * final ones; inside the admin shell it is a plain page, elsewhere it uses the sign-in frame.
 */
export default function PlaceholderPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const heading = t(routeTitleKey(route.id));
  const notice = <Text c="dimmed">{t('placeholder.text')}</Text>;

  if (!route.requiresAdminLogin) return <AuthLayout heading={heading}>{notice}</AuthLayout>;
  return (
    <Stack>
      <Title order={1}>{heading}</Title>
      {notice}
    </Stack>
  );
}
