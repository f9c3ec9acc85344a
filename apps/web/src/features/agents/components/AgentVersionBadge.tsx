import { Badge, Stack, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { TOOLTIP_DELAY_MS } from '@postern/protocol';
import { agentVersionState, VERSION_STATE_COLOURS, type AgentVersionPolicy } from '../agent-version';

/** Props of {@link AgentVersionBadge}. */
export interface AgentVersionBadgeProps {
  version: string | null;
  policy: AgentVersionPolicy;
}

/**
 * The Version column: the version in a red, yellow or green badge, with its state written under it
 * (colour alone says nothing to a colour-blind admin or a screen reader) and the advice as a tooltip.
 */
export function AgentVersionBadge({ version, policy }: AgentVersionBadgeProps) {
  const { t } = useTranslation();
  const state = agentVersionState(version, policy);
  const hint = t(`agentsScreen.version.${state}Hint`, { minimum: policy.minimum, newest: policy.newest ?? '' });
  return (
    <Stack gap={2} align="flex-start">
      <Tooltip label={hint} openDelay={TOOLTIP_DELAY_MS} multiline maw={280} withArrow>
        <Badge color={VERSION_STATE_COLOURS[state]} variant="filled" data-state={state} title={hint}>
          {version ?? t('agentsScreen.version.unknown')}
        </Badge>
      </Tooltip>
      {state === 'unknown' ? null : (
        <Text size="xs" c="dimmed">
          {t(`agentsScreen.version.${state}`)}
        </Text>
      )}
    </Stack>
  );
}
