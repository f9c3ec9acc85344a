import { Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { CopyableValue } from '@/features/agents/components/CopyableValue';
import { verification } from '../knoc-types';
import { useTextRef } from './use-knoc-labels';

/**
 * How to check that this knoc's grants reach its backend: what to look at, and the commands to copy
 * and run (the allowlist request, the HAProxy socket read, the ipset listing …).
 */
export function VerificationInstructions({ knoc }: { knoc: KnocRecord }) {
  const { t } = useTranslation();
  const translate = useTextRef();
  // The allowlist is served by this very server, at the address the console was loaded from.
  const { steps, commands } = verification(knoc, window.location.origin);
  return (
    <Stack gap="sm">
      {steps.map((step) => (
        <Text key={step.key} size="sm">
          {translate(step)}
        </Text>
      ))}
      {commands.map((command) => {
        const label = translate(command.label);
        return (
          <CopyableValue
            key={command.value}
            label={label}
            value={command.value}
            copyLabel={t('knocsScreen.detail.copy', { what: label })}
          />
        );
      })}
    </Stack>
  );
}
