import { Alert, Group, Radio, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ApiKeyRecord } from '@postern/protocol';
import { DataTable, type DataTableColumn } from '@/components/data-table/DataTable';
import { QueryState } from '@/components/QueryState';
import { RelativeTime } from '@/components/RelativeTime';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { apiKeysApi } from '@/features/api-keys/api';
import { allowedFromText } from '@/features/api-keys/api-key-display';
import { AllowedFromFields } from '@/features/api-keys/components/AllowedFromFields';
import { AddressRangeRows } from './AddressRangeRows';
import { API_KEY_OPTIONS, type ApiKeyStepValues } from './api-key-step';

type Form = ZodForm<ApiKeyStepValues>;

/**
 * Step 3.1 of the application wizard: how the firewall reads the published allowlist — with a new
 * API key, with an existing one (chosen in a table), or with none, restricted to address ranges.
 */
export function ApiKeySection({ form }: { form: Form }) {
  const { t } = useTranslation();
  const option = form.values.Option;
  return (
    <Stack>
      <Radio.Group label={t('knocWizardApplication.apiKey.option')} {...form.getInputProps('Option')}>
        <Group mt="xs">
          {API_KEY_OPTIONS.map((value) => (
            <Radio key={value} value={value} label={t(`knocWizardApplication.apiKey.options.${value}`)} />
          ))}
        </Group>
      </Radio.Group>
      {option === 'new' ? <NewKeyFields form={form} /> : null}
      {option === 'existing' ? <ExistingKeyTable form={form} /> : null}
      {option === 'none' ? <AddressRestriction form={form} /> : null}
    </Stack>
  );
}

function NewKeyFields({ form }: { form: Form }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <TextInput
        label={t('knocWizardApplication.apiKey.name')}
        withAsterisk
        autoComplete="off"
        {...form.getInputProps('Name')}
      />
      <AllowedFromFields form={form} />
    </Stack>
  );
}

/** The existing keys, one radio each; Next stays disabled until one is chosen. */
function ExistingKeyTable({ form }: { form: Form }) {
  const { t } = useTranslation();
  const keys = apiKeysApi.useList();
  const chosen = form.values.ExistingId;
  const columns: DataTableColumn<ApiKeyRecord>[] = [
    {
      id: 'select',
      header: t('knocWizardApplication.apiKey.columns.select'),
      width: 80,
      render: (key) => (
        <Radio
          name="existingApiKey"
          value={key.ID}
          checked={chosen === key.ID}
          onChange={() => form.setFieldValue('ExistingId', key.ID)}
          aria-label={t('knocWizardApplication.apiKey.choose', { name: key.Name })}
        />
      ),
    },
    { id: 'name', header: t('apiKeysScreen.columns.name'), accessor: (key) => key.Name, sortable: true },
    {
      id: 'allowedFrom',
      header: t('apiKeysScreen.columns.allowedFrom'),
      accessor: (key) => allowedFromText(key.AllowedFrom),
    },
    {
      id: 'lastUsed',
      header: t('apiKeysScreen.columns.lastUsed'),
      render: (key) =>
        key.LastUsedAt === null ? t('apiKeysScreen.neverUsed') : <RelativeTime date={key.LastUsedAt} />,
    },
  ];
  const error = form.errors.ExistingId;
  return (
    <QueryState data={keys.data} isError={keys.isError} error={keys.error}>
      {(rows) => (
        <Stack gap="xs">
          <DataTable
            label={t('knocWizardApplication.apiKey.existingTable')}
            columns={columns}
            rows={rows}
            rowKey={(key) => key.ID}
            emptyText={t('knocWizardApplication.apiKey.noKeys')}
          />
          {error === undefined ? null : (
            <Text c="red" size="sm" role="alert">
              {error}
            </Text>
          )}
        </Stack>
      )}
    </QueryState>
  );
}

/** No key: a warning, and the address ranges that may read the list (at least one). */
function AddressRestriction({ form }: { form: Form }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <Alert
        color="yellow"
        icon={<IconAlertTriangle aria-hidden />}
        title={t('knocWizardApplication.apiKey.noneTitle')}
      >
        {t('knocWizardApplication.apiKey.noneWarning')}
      </Alert>
      <AddressRangeRows
        description={t('err.allowlistAccessIpRestrictionFormRequired')}
        count={form.values.AllowedIpAddresses.length}
        inputProps={(index) => form.getInputProps(`AllowedIpAddresses.${index}`)}
        onRemove={(index) => form.removeListItem('AllowedIpAddresses', index)}
        onAdd={() => form.insertListItem('AllowedIpAddresses', '')}
        error={form.errors.AllowedIpAddresses}
      />
    </Stack>
  );
}
