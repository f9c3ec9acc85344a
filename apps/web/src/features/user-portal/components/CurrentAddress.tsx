import { Group, Paper, Stack, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * "Your IP address: 203.0.113.7" with the note that the open page revalidates it every 30 seconds:
 * the address grants open, which the person may need to tell an administrator.
 */
export function CurrentAddress({ address }: { address: string }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap={4}>
        <Group gap="xs" wrap="wrap">
          <Text c="dimmed">{t('home.currentAddress')}</Text>
          <Text fw={700} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {address}
          </Text>
        </Group>
        <Group gap={6} wrap="nowrap" align="flex-start">
          <IconInfoCircle size={18} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <Text size="sm">{t('home.revalidationNote')}</Text>
        </Group>
      </Stack>
    </Paper>
  );
}
