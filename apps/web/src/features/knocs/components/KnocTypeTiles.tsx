import type { ReactNode } from 'react';
import { Anchor, Button, Card, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconApps, IconServer, IconMail, IconPackage, IconScript, IconTransfer } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAdminStatus } from '@/features/status/api';
import { licenceLinks } from '@/lib/links';
import { routePath, type RouteId } from '@/lib/route-paths';
import { ModuleDialog } from './ModuleDialog';

/** The tiles that start a wizard, in the spec's order, with the wizard's route. */
const WIZARD_TILES: { id: 'linux' | 'application' | 'proxy'; route: RouteId; icon: ReactNode }[] = [
  { id: 'linux', route: 'knocsNewLinux', icon: <IconServer aria-hidden /> },
  { id: 'application', route: 'knocsNewApplication', icon: <IconApps aria-hidden /> },
  { id: 'proxy', route: 'knocsNewProxy', icon: <IconTransfer aria-hidden /> },
];

function Tile({ id, icon, children }: { id: string; icon: ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  const headingId = `knoc-tile-${id}`;
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby={headingId}>
      <Stack gap="sm" h="100%" justify="space-between">
        <Stack gap="xs">
          <ThemeIcon variant="light" size="lg">
            {icon}
          </ThemeIcon>
          <Title order={2} size="h4" id={headingId}>
            {t(`knocsScreen.tiles.${id}.title`)}
          </Title>
          <Text size="sm" c="dimmed">
            {t(`knocsScreen.tiles.${id}.description`)}
          </Text>
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}

/**
 * The Contact tile's link: a mail to the operator's support address (POSTERN_SUPPORT_EMAIL), else
 * their support page, else a note that none is configured.
 */
function ContactAction() {
  const { t } = useTranslation();
  const status = useAdminStatus().data;
  const email = status?.SupportEmail ?? null;
  const support =
    email === null ? licenceLinks(status).support : contactMailLink(email, t('knocsScreen.tiles.contact.mailSubject'));
  if (support === null) {
    return (
      <Text size="sm" fs="italic">
        {t('knocsScreen.tiles.contact.noContact')}
      </Text>
    );
  }
  return (
    <Anchor href={support} target="_blank" rel="noopener noreferrer">
      {t('knocsScreen.tiles.contact.action')}
    </Anchor>
  );
}

/** A mailto: link to one address with a subject (the address was checked by the server's config). */
export function contactMailLink(address: string, subject: string): string {
  return `mailto:${address}?subject=${encodeURIComponent(subject)}`;
}

/**
 * The six ways to start a knoc (the empty knocs list and the chooser at /admin/knocs/new): the
 * Linux, Application and Proxy wizards, Module (a dialog about the agent's pre-packaged scripts),
 * Script, and Contact for an integration Postern lacks.
 */
export function KnocTypeTiles() {
  const { t } = useTranslation();
  const [moduleOpened, moduleDialog] = useDisclosure(false);
  const start = (id: string, route: RouteId) => (
    <Button component={Link} to={routePath(route)} variant="light">
      {t(`knocsScreen.tiles.${id}.action`)}
    </Button>
  );
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {WIZARD_TILES.map((tile) => (
          <Tile key={tile.id} id={tile.id} icon={tile.icon}>
            {start(tile.id, tile.route)}
          </Tile>
        ))}
        <Tile id="module" icon={<IconPackage aria-hidden />}>
          <Button variant="light" onClick={moduleDialog.open}>
            {t('knocsScreen.tiles.module.action')}
          </Button>
        </Tile>
        <Tile id="script" icon={<IconScript aria-hidden />}>
          {start('script', 'knocsNewScript')}
        </Tile>
        <Tile id="contact" icon={<IconMail aria-hidden />}>
          <ContactAction />
        </Tile>
      </SimpleGrid>
      <ModuleDialog opened={moduleOpened} onClose={moduleDialog.close} />
    </>
  );
}
