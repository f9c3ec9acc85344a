import { Radio, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { backendTypeAvailability, backendTypeLabelKey } from '@/features/backends/backend-types';

/** Props of {@link BackendTypeChoice}. */
export interface BackendTypeChoiceProps {
  /** The types offered, in order. */
  types: readonly BackendType[];
  agents: readonly AgentRecord[];
  value: BackendType;
  onChange: (type: BackendType) => void;
}

/**
 * The backend type of a wizard that offers several before its agent is chosen (the Linux wizard:
 * ipset or nftables). A type no agent can drive is disabled, with the reason as its description.
 */
export function BackendTypeChoice({ types, agents, value, onChange }: BackendTypeChoiceProps) {
  const { t } = useTranslation();
  return (
    <Radio.Group withAsterisk label={t('knocWizard.agent.type')} value={value} onChange={onChange}>
      <Stack gap="xs" mt="xs">
        {types.map((type) => {
          const { disabled, reason } = backendTypeAvailability(type, agents);
          return (
            <Radio
              key={type}
              value={type}
              label={t(backendTypeLabelKey(type))}
              description={t(reason ?? `knocWizard.agent.typeHelp.${type}`)}
              disabled={disabled && type !== value}
            />
          );
        })}
      </Stack>
    </Radio.Group>
  );
}
