import { Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { KnocTypeTiles } from '@/features/knocs/components/KnocTypeTiles';

/** The knoc type chooser (`/admin/knocs/new`): the same six tiles as the empty knocs list. */
export default function KnocNewPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  return (
    <AdminPage title={t(routeTitleKey(route.id))}>
      <Stack>
        <Text>{t('knocsScreen.chooser.intro')}</Text>
        <KnocTypeTiles />
      </Stack>
    </AdminPage>
  );
}
