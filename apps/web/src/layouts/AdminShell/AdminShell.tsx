import { Suspense } from 'react';
import { AppShell } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Outlet } from 'react-router';
import { useTranslation } from 'react-i18next';
import { FullPageLoader } from '../../components/FullPageLoader';
import { BannerArea } from '../../features/banners/BannerArea';
import { AdminHeader } from './components/AdminHeader';
import { AdminNav } from './components/AdminNav';

/** The frame of every signed-in admin page: header, sidebar navigation, banner slot, then the page. */
export default function AdminShell() {
  const { t } = useTranslation();
  const [navOpened, { toggle, close }] = useDisclosure(false);

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
      padding="md"
    >
      <AppShell.Header>
        <AdminHeader navOpened={navOpened} onToggleNav={toggle} />
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label={t('adminShell.navigation')}>
        <AdminNav onNavigate={close} />
      </AppShell.Navbar>
      <AppShell.Main>
        <BannerArea />
        <Suspense fallback={<FullPageLoader />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
