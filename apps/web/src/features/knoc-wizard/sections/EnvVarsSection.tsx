import { Checkbox, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { AddRowButton, RemoveRowButton } from './RowButtons';
import { emptyEnvVar, type EnvVarsValues } from './env-vars';

/** Props of {@link EnvVarsSection}. */
export interface EnvVarsSectionProps {
  form: ZodForm<EnvVarsValues>;
}

/**
 * The script's variables (Name, Value, Sensitive). A sensitive value is typed hidden; one stored
 * before is never shown again (its field stays empty and keeps the stored value unless replaced).
 */
export function EnvVarsSection({ form }: EnvVarsSectionProps) {
  const { t } = useTranslation();
  const rows = form.getValues().EnvVars;
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {t('knocWizard.envVars.help')}
      </Text>
      {rows.length === 0 ? <Text size="sm">{t('knocWizard.envVars.empty')}</Text> : null}
      {rows.map((row, index) => {
        const ValueInput = row.Sensitive ? PasswordInput : TextInput;
        return (
          <Group key={index} align="flex-start" wrap="nowrap">
            <TextInput
              style={grow}
              label={t('knocWizard.envVars.name', { n: index + 1 })}
              {...form.getInputProps(`EnvVars.${index}.Name`)}
            />
            <ValueInput
              style={grow}
              label={t('knocWizard.envVars.value', { n: index + 1 })}
              placeholder={row.Encrypted ? t('knocWizard.envVars.stored') : undefined}
              {...form.getInputProps(`EnvVars.${index}.Value`)}
            />
            <Checkbox
              mt={32}
              label={t('knocWizard.envVars.sensitive')}
              aria-label={t('knocWizard.envVars.sensitiveOf', { n: index + 1 })}
              {...form.getInputProps(`EnvVars.${index}.Sensitive`, { type: 'checkbox' })}
            />
            <RemoveRowButton
              label={t('knocWizard.envVars.remove', { n: index + 1 })}
              onClick={() => form.removeListItem('EnvVars', index)}
            />
          </Group>
        );
      })}
      <AddRowButton label={t('knocWizard.envVars.add')} onClick={() => form.insertListItem('EnvVars', emptyEnvVar())} />
    </Stack>
  );
}

/** Name and value share the row's width (a password input has no width of its own). */
const grow = { flex: '1 1 0', minWidth: 0 } as const;
