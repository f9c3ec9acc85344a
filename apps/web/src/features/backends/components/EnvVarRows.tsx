import type { ReactNode } from 'react';
import { ActionIcon, Button, Checkbox, Fieldset, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { RECORDED, type KnocEnvVar } from '@postern/protocol';
import { ConfigError } from './ConfigError';
import { valueAt, type ConfigForm } from '../config-form';
import type { EnvVarDeclaration } from '../config-values';

interface RowsProps {
  form: ConfigForm;
  /** The list's dotted path in the form (`Config.script.EnvVars`). */
  path: string;
  label: string;
}

/**
 * A list of variable rows with add and remove, and the error of the list as a whole (repeated
 * names). Each row's inputs carry the row's number in their accessible names, since rows look alike.
 */
function RowList<Row>({
  form,
  path,
  label,
  emptyRow,
  renderRow,
}: RowsProps & { emptyRow: Row; renderRow: (row: Row, rowPath: string, number: number) => ReactNode }) {
  const { t } = useTranslation();
  const listValue = valueAt(form.getValues(), path);
  const rows = Array.isArray(listValue) ? (listValue as Row[]) : [];
  return (
    <Fieldset legend={label} variant="unstyled">
      <Stack gap="xs">
        {rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('backendsScreen.envVars.none')}
          </Text>
        ) : null}
        {rows.map((row, index) => (
          // Rows have no id of their own; the form's paths use their position as well.
          <Group key={index} align="flex-start" gap="xs" wrap="nowrap">
            {renderRow(row, `${path}.${index}`, index + 1)}
            <ActionIcon
              variant="subtle"
              color="red"
              size="lg"
              mt={4}
              aria-label={t('backendsScreen.envVars.remove', { number: index + 1 })}
              onClick={() => form.removeListItem(path, index)}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Group>
        ))}
        <ConfigError error={form.errors[path]} />
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() => form.insertListItem(path, emptyRow as never)}
          >
            {t('backendsScreen.envVars.add')}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

const grow = { flex: '1 1 0', minWidth: 0 } as const;

/** A script backend's variable declarations: each a name and whether its values are sensitive. */
export function EnvVarDeclarationRows(props: RowsProps) {
  const { t } = useTranslation();
  const { form } = props;
  return (
    <RowList<EnvVarDeclaration>
      {...props}
      emptyRow={{ Name: '', Sensitive: false }}
      renderRow={(_, rowPath, number) => (
        <>
          <TextInput
            style={grow}
            aria-label={t('backendsScreen.envVars.name', { number })}
            placeholder="API_TOKEN"
            autoComplete="off"
            spellCheck={false}
            {...form.getInputProps(`${rowPath}.Name`)}
          />
          <Checkbox
            mt={8}
            label={t('backendsScreen.envVars.sensitive')}
            aria-label={t('backendsScreen.envVars.sensitiveOf', { number })}
            {...form.getInputProps(`${rowPath}.Sensitive`, { type: 'checkbox' })}
          />
        </>
      )}
    />
  );
}

/**
 * A script knoc's variable values. A sensitive value is typed hidden; one stored encrypted shows
 * RECORDED as its placeholder and is kept while left empty (spec: never shown again).
 */
export function EnvVarValueRows(props: RowsProps) {
  const { t } = useTranslation();
  const { form } = props;
  return (
    <RowList<KnocEnvVar>
      {...props}
      emptyRow={{ Name: '', Value: '', Sensitive: false, Encrypted: false }}
      renderRow={(row, rowPath, number) => {
        const valueLabel = t('backendsScreen.envVars.value', { number });
        const valueProps = {
          style: grow,
          'aria-label': valueLabel,
          autoComplete: 'off',
          placeholder: row.Encrypted ? RECORDED : undefined,
          ...form.getInputProps(`${rowPath}.Value`),
        };
        return (
          <>
            <TextInput
              style={grow}
              aria-label={t('backendsScreen.envVars.name', { number })}
              autoComplete="off"
              spellCheck={false}
              {...form.getInputProps(`${rowPath}.Name`)}
            />
            {row.Sensitive ? <PasswordInput {...valueProps} /> : <TextInput {...valueProps} />}
            <Checkbox
              mt={8}
              label={t('backendsScreen.envVars.sensitive')}
              aria-label={t('backendsScreen.envVars.sensitiveOf', { number })}
              {...form.getInputProps(`${rowPath}.Sensitive`, { type: 'checkbox' })}
            />
          </>
        );
      }}
    />
  );
}
