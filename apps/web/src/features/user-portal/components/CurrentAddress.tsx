import { Group, Paper, Stack, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * "Your IP address: 203.0.113.7" with the note that the open page revalidates it every 30 seconds:
 * the address grants open, which the person may need to tell an administrator. On a dual-stack
 * network `otherAddress` is the browser's address of the other family, which a grant opens too:
 * "Your IP addresses: 203.0.113.7 2001:db8::7".
 */
export function CurrentAddress({ address, otherAddress = null }: { address: string; otherAddress?: string | null }) {
  const { t } = useTranslation();
  const addresses = otherAddress === null || otherAddress === address ? [address] : [address, otherAddress];
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap={4}>
        <Group gap="xs" wrap="wrap">
          <Text c="dimmed">{t(addresses.length === 1 ? 'home.currentAddress' : 'home.currentAddresses')}</Text>
          {addresses.map((shown) => (
            <Text key={shown} fw={700} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
              {shown}
            </Text>
          ))}
        </Group>
        <Group gap={6} wrap="nowrap" align="flex-start">
          <IconInfoCircle size={18} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <Text size="sm">{t('home.revalidationNote')}</Text>
        </Group>
      </Stack>
    </Paper>
  );
}
