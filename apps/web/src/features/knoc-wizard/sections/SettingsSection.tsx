import { NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { agentSetNames, defaultSettings, type SettingsValues } from './settings';

/** Props of {@link SettingsSection}. */
export interface SettingsSectionProps {
  form: ZodForm<SettingsValues>;
  /** The types the admin chooses between (the proxy wizard: haproxy or knocproxy); one shows no choice. */
  types: readonly BackendType[];
  /** The agent that will drive the backend (its sockets and IP sets fill the defaults and choices). */
  agent: AgentRecord | null;
  /** On update the type is fixed. */
  mode: 'create' | 'update';
}

/** The backend's and the knoc's config for the chosen type. */
export function SettingsSection({ form, types, agent, mode }: SettingsSectionProps) {
  const { t } = useTranslation();
  const { Type: type } = form.getValues();
  const setNameError = form.errors.Acl;
  return (
    <Stack gap="md">
      {types.length > 1 ? (
        <NativeSelect
          withAsterisk
          label={t('knocWizard.settings.type')}
          data={[...types]}
          value={type}
          disabled={mode === 'update'}
          onChange={(event) => form.setValues(defaultSettings(event.currentTarget.value as BackendType, agent))}
        />
      ) : null}
      {type === 'ipset'
        ? (['inet', 'inet6'] as const).map((family) => (
            <NativeSelect
              key={family}
              label={t(family === 'inet' ? 'knocWizard.settings.v4SetName' : 'knocWizard.settings.v6SetName')}
              data={[{ value: '', label: t('knocWizard.settings.noSet') }, ...agentSetNames(agent, family)]}
              {...form.getInputProps(family === 'inet' ? 'Acl.V4SetName' : 'Acl.V6SetName')}
              error={form.errors[family === 'inet' ? 'Acl.V4SetName' : 'Acl.V6SetName'] ?? setNameError !== undefined}
            />
          ))
        : null}
      {type === 'haproxy' || type === 'knocproxy' ? (
        <>
          <NativeSelect
            withAsterisk
            label={t('knocWizard.settings.protocol')}
            data={['unix', 'tcp']}
            {...form.getInputProps('Backend.Protocol')}
          />
          <TextInput withAsterisk label={t('knocWizard.settings.address')} {...form.getInputProps('Backend.Address')} />
        </>
      ) : null}
      {type === 'haproxy' ? (
        <TextInput withAsterisk label={t('knocWizard.settings.aclId')} {...form.getInputProps('Acl.ID')} />
      ) : null}
      {type === 'knocproxy' ? (
        <TextInput withAsterisk label={t('knocWizard.settings.aclName')} {...form.getInputProps('Acl.Name')} />
      ) : null}
      {type === 'script' ? (
        <>
          <TextInput withAsterisk label={t('knocWizard.settings.command')} {...form.getInputProps('Backend.Command')} />
          <TextInput label={t('knocWizard.settings.scriptAclName')} {...form.getInputProps('Acl.Name')} />
        </>
      ) : null}
      {setNameError === undefined ? null : (
        <Text size="sm" c="red" role="alert">
          {setNameError}
        </Text>
      )}
    </Stack>
  );
}
