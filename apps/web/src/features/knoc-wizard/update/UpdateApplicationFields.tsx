import { Checkbox, Group, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { AddressRangeRows } from '../sections/AddressRangeRows';
import type { SettingsValues } from '../sections/settings';
import type { ApplicationKind } from './application-kind';

/** An application knoc's kind and vendor, read only: they are fixed from its config (spec §4). */
export function FixedApplicationKind({ kind }: { kind: ApplicationKind }) {
  const { t } = useTranslation();
  return (
    <Group grow align="flex-start">
      <TextInput
        readOnly
        label={t('knocWizardApplication.settings.applicationType')}
        description={t('knocWizard.update.kindFixed')}
        value={t(`knocWizardApplication.types.${kind.type}`)}
      />
      {kind.vendor === null ? null : (
        <TextInput
          readOnly
          label={t('knocWizardApplication.settings.vendor')}
          value={t(`knocWizardApplication.vendors.${kind.vendor}`)}
        />
      )}
    </Group>
  );
}

const rangesOf = (acl: Record<string, unknown>): string[] =>
  Array.isArray(acl.AllowedIpAddresses) ? (acl.AllowedIpAddresses as string[]) : [];

/**
 * An allowlist's access by address: whether the firewall may read the list from address ranges
 * without a key, and those ranges. Its token and API key stay as they are.
 */
export function AllowlistAccessFields({ form }: { form: ZodForm<SettingsValues> }) {
  const { t } = useTranslation();
  const acl = form.getValues().Acl;
  const ranges = rangesOf(acl);
  return (
    <Stack gap="sm">
      <Checkbox
        label={t('knocWizard.update.allowAccessByIp')}
        description={t('knocWizard.update.allowAccessByIpDescription')}
        {...form.getInputProps('Acl.AllowAccessByIp', { type: 'checkbox' })}
      />
      {acl.AllowAccessByIp === true ? (
        <AddressRangeRows
          count={ranges.length}
          inputProps={(index) => form.getInputProps(`Acl.AllowedIpAddresses.${index}`)}
          onRemove={(index) => form.removeListItem('Acl.AllowedIpAddresses', index)}
          onAdd={() => form.insertListItem('Acl.AllowedIpAddresses', '')}
          error={form.errors['Acl.AllowedIpAddresses']}
        />
      ) : null}
    </Stack>
  );
}
