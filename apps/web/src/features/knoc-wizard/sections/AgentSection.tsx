import { useEffect } from 'react';
import { Alert, NativeSelect, Stack } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { agentChoices, autoPickedAgent, minimumVersionFor } from './agent-choice';

/** Props of {@link AgentSection}. */
export interface AgentSectionProps {
  agents: readonly AgentRecord[];
  /** The backend type the agent must be able to drive. */
  type: BackendType;
  /** An agent older than the type's minimum version cannot be chosen (the script wizard). */
  requireVersion?: boolean;
  value: string | null;
  onChange: (agentId: string | null) => void;
}

/**
 * The agent select (spec §2, §5): agents that cannot drive the type are listed disabled with their
 * reason; when exactly one can, it is chosen at once; an agent too old for the type gets a warning
 * to update it with the operating system's package manager.
 */
export function AgentSection({ agents, type, requireVersion = false, value, onChange }: AgentSectionProps) {
  const { t } = useTranslation();
  const choices = agentChoices(agents, type, { requireVersion });
  const autoPick = autoPickedAgent(choices);
  const chosen = choices.find((choice) => choice.agent.ID === value);

  useEffect(() => {
    if (value === null && autoPick !== null) onChange(autoPick);
  }, [value, autoPick, onChange]);

  const data = choices.map(({ agent, reasonKey }) => ({
    value: agent.ID,
    label: reasonKey === null ? agent.Name : `${agent.Name} — ${t(reasonKey, { version: minimumVersionFor(type) })}`,
    disabled: reasonKey !== null,
  }));

  return (
    <Stack gap="sm">
      <NativeSelect
        withAsterisk
        label={t('knocWizard.agent.label')}
        data={[
          {
            value: '',
            label: t(agents.length === 0 ? 'knocWizard.agent.none' : 'knocWizard.agent.placeholder'),
            disabled: true,
          },
          ...data,
        ]}
        value={value ?? ''}
        onChange={(event) => onChange(event.currentTarget.value === '' ? null : event.currentTarget.value)}
      />
      {chosen !== undefined && !chosen.versionCompatible ? (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} aria-hidden />} role="alert">
          {t('knocWizard.agent.updateAgent', { version: minimumVersionFor(type) })}
        </Alert>
      ) : null}
    </Stack>
  );
}
