import { Group, Radio, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { API_KEY_EXPIRIES, type ApiKeyExpiry, type UserFormValues } from '../user-form';

const EXPIRY_LABELS: Record<ApiKeyExpiry, string> = {
  '12': 'usersScreen.form.expiry12',
  '24': 'usersScreen.form.expiry24',
  never: 'usersScreen.form.expiryNever',
};

/**
 * For a new apikey user: create a key scoped to the user alongside it, or none (spec §5). A new key
 * needs a name and an expiry of 12 months, 24 months or never.
 */
export function ApiKeyFields({ form }: { form: ZodForm<UserFormValues> }) {
  const { t } = useTranslation();
  const choice = form.getValues().ApiKey.Choice;
  return (
    <Stack gap="sm">
      <Radio.Group
        label={t('usersScreen.form.apiKey')}
        {...form.getInputProps('ApiKey.Choice')}
        onChange={(value) => form.setFieldValue('ApiKey.Choice', value === 'none' ? 'none' : 'new')}
      >
        <Group gap="md" mt={4}>
          <Radio value="new" label={t('usersScreen.form.apiKeyNew')} />
          <Radio value="none" label={t('usersScreen.form.apiKeyNone')} />
        </Group>
      </Radio.Group>
      {choice === 'new' ? (
        <>
          <TextInput label={t('usersScreen.form.apiKeyName')} required {...form.getInputProps('ApiKey.Name')} />
          <Radio.Group
            label={t('usersScreen.form.apiKeyExpiry')}
            required
            {...form.getInputProps('ApiKey.Expiry')}
            onChange={(value) => form.setFieldValue('ApiKey.Expiry', value as ApiKeyExpiry)}
          >
            <Group gap="md" mt={4}>
              {API_KEY_EXPIRIES.map((expiry) => (
                <Radio key={expiry} value={expiry} label={t(EXPIRY_LABELS[expiry])} />
              ))}
            </Group>
          </Radio.Group>
        </>
      ) : null}
    </Stack>
  );
}
