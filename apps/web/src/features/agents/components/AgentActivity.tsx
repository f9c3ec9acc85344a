import { Badge, Box, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';
import { CopyIconButton } from '@/components/CopyIconButton';
import { RelativeTime } from '@/components/RelativeTime';

/**
 * The Activity column: when the agent was last seen (relative) and whether it is connected now; an
 * agent that never connected says "Awaiting connection" and offers its token to copy. The token
 * itself is not printed in the table, where anyone looking over a shoulder could read it.
 */
export function AgentActivity({ agent }: { agent: AgentRecord }) {
  const { t } = useTranslation();
  if (agent.LastSeen === null) {
    return (
      <Group gap="xs" wrap="nowrap">
        <Badge color="gray" variant="light">
          {t('agentsScreen.activity.awaiting')}
        </Badge>
        <CopyIconButton
          value={agent.Token}
          label={t('agentsScreen.activity.copyToken', { name: agent.Name })}
          copiedLabel={t('agentsScreen.activity.tokenCopied')}
        />
      </Group>
    );
  }
  return (
    <Stack gap={2}>
      <Text size="sm">
        <RelativeTime date={agent.LastSeen} />
      </Text>
      <Group gap={6} wrap="nowrap">
        <Box w={8} h={8} bg={agent.Online ? 'green.6' : 'gray.5'} style={{ borderRadius: '50%' }} aria-hidden />
        <Text size="xs" c="dimmed">
          {agent.Online ? t('agentsScreen.activity.online') : t('agentsScreen.activity.offline')}
        </Text>
      </Group>
    </Stack>
  );
}
