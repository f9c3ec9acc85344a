import { ThemeIcon } from '@mantine/core';
import {
  IconApi,
  IconBook,
  IconCloud,
  IconCode,
  IconDatabase,
  IconDeviceDesktop,
  IconFolder,
  IconKey,
  IconLock,
  IconMail,
  IconNetwork,
  IconRouter,
  IconServer,
  IconShield,
  IconTerminal2,
  IconWorld,
  type Icon,
} from '@tabler/icons-react';

/**
 * The icons an ACL's Icon name can pick (the admin's icon grid stores a name); any other name gets
 * the default server icon. A few common synonyms are accepted.
 */
const ICONS: Record<string, Icon> = {
  server: IconServer,
  database: IconDatabase,
  db: IconDatabase,
  world: IconWorld,
  web: IconWorld,
  globe: IconWorld,
  terminal: IconTerminal2,
  ssh: IconTerminal2,
  cloud: IconCloud,
  lock: IconLock,
  shield: IconShield,
  firewall: IconShield,
  network: IconNetwork,
  router: IconRouter,
  mail: IconMail,
  email: IconMail,
  desktop: IconDeviceDesktop,
  rdp: IconDeviceDesktop,
  key: IconKey,
  folder: IconFolder,
  files: IconFolder,
  api: IconApi,
  code: IconCode,
  git: IconCode,
  book: IconBook,
  wiki: IconBook,
};

/** One name per distinct icon, the choices of the admin's icon grid (the synonyms above stay readable). */
export const ACL_ICON_CHOICES = [
  'server',
  'database',
  'world',
  'terminal',
  'cloud',
  'lock',
  'shield',
  'network',
  'router',
  'mail',
  'desktop',
  'key',
  'folder',
  'api',
  'code',
  'book',
] as const satisfies readonly (keyof typeof ICONS)[];

/** Decorative: the ACL's description next to it names the system. */
export function AclIcon({ name, size = 36 }: { name: string; size?: number }) {
  const Glyph =
    ICONS[
      name
        .trim()
        .toLowerCase()
        .replace(/^icon-?/, '')
    ] ?? IconServer;
  return (
    <ThemeIcon variant="light" size={size} radius="md" aria-hidden>
      <Glyph size={size * 0.6} stroke={1.6} />
    </ThemeIcon>
  );
}
