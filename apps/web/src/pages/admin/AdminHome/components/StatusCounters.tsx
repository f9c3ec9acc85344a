import { Group, Paper, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { IconDeviceDesktopAnalytics, IconShieldLock, IconUsers, type Icon } from '@tabler/icons-react';
import type { AdminStatus } from '@postern/protocol';
import { useTranslation } from 'react-i18next';

interface Counter {
  labelKey: string;
  value: number;
  icon: Icon;
}

/** The admin home's three counters: active sessions, knocs and users. */
export function StatusCounters({ status }: { status: AdminStatus }) {
  const { t, i18n } = useTranslation();
  const counters: Counter[] = [
    { labelKey: 'adminHome.counters.sessions', value: status.SessionCount, icon: IconDeviceDesktopAnalytics },
    { labelKey: 'adminHome.counters.acls', value: status.ACLCount, icon: IconShieldLock },
    { labelKey: 'adminHome.counters.users', value: status.UserCount, icon: IconUsers },
  ];
  const format = new Intl.NumberFormat(i18n.resolvedLanguage);

  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }}>
      {counters.map(({ labelKey, value, icon: CounterIcon }) => (
        <Paper key={labelKey} withBorder p="md" radius="md">
          <Group justify="space-between" wrap="nowrap">
            <div>
              <Text c="dimmed" size="sm" fw={600}>
                {t(labelKey)}
              </Text>
              <Text fz={32} fw={700} lh={1.2}>
                {format.format(value)}
              </Text>
            </div>
            <ThemeIcon variant="light" size={44} radius="md" aria-hidden>
              <CounterIcon size={26} stroke={1.5} />
            </ThemeIcon>
          </Group>
        </Paper>
      ))}
    </SimpleGrid>
  );
}
