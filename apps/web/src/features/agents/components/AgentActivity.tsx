import { ActionIcon, Badge, Box, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPY_CONFIRMATION_MS, TOOLTIP_DELAY_MS, type AgentRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';

/**
 * The Activity column: when the agent was last seen (relative) and whether it is connected now; an
 * agent that never connected says "Awaiting connection" and offers its token to copy. The token
 * itself is not printed in the table, where anyone looking over a shoulder could read it.
 */
export function AgentActivity({ agent }: { agent: AgentRecord }) {
  const { t } = useTranslation();
  if (agent.LastSeen === null) {
    const copyLabel = t('agentsScreen.activity.copyToken', { name: agent.Name });
    return (
      <Group gap="xs" wrap="nowrap">
        <Badge color="gray" variant="light">
          {t('agentsScreen.activity.awaiting')}
        </Badge>
        <CopyButton value={agent.Token} timeout={COPY_CONFIRMATION_MS}>
          {({ copied, copy }) => (
            <Tooltip
              label={copied ? t('agentsScreen.activity.tokenCopied') : copyLabel}
              openDelay={TOOLTIP_DELAY_MS}
              withArrow
            >
              <ActionIcon
                variant={copied ? 'light' : 'subtle'}
                color={copied ? 'teal' : 'gray'}
                aria-label={copied ? t('agentsScreen.activity.tokenCopied') : copyLabel}
                onClick={copy}
              >
                {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
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
