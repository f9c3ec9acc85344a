import { Alert, Checkbox, NativeSelect, ScrollArea, Stack, Text } from '@mantine/core';
import type { KnocRecord, UserRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { apiKeyUsers } from '../api-key-display';
import type { ApiKeyFormValues } from '../api-key-form';
import { API_KEY_PURPOSES } from '../api-key-scopes';

/** Props of {@link ScopeFields}. */
export interface ScopeFieldsProps {
  form: ZodForm<ApiKeyFormValues>;
  /** The allowlist knocs to choose from. */
  allowlists: readonly KnocRecord[];
  /** Every user; a new key may act only as an API-key user (see apiKeyUsers). */
  users: readonly UserRecord[];
  /** On edit the purpose and its choice are fixed (spec §4): shown, but disabled. */
  disabled: boolean;
}

/** Where the user_sessions scope reads, on this server (spec §7). */
const userSessionsUrl = () => `${window.location.origin}/api/v1/user_sessions`;

/** The key's purpose and, where the purpose names one, the allowlists or the user it is for. */
export function ScopeFields({ form, allowlists, users, disabled }: ScopeFieldsProps) {
  const { t } = useTranslation();
  const purpose = form.values.Purpose;
  const allowlistError = form.errors.AllowlistIds;
  // A stored key may name an allowlist deleted since: still list it (by id) so the key shows all it reads.
  const known = new Set(allowlists.map((knoc) => knoc.ID));
  const allowlistOptions = [
    ...allowlists.map((knoc) => ({ id: knoc.ID, name: knoc.Name })),
    ...form.values.AllowlistIds.filter((id) => !known.has(id)).map((id) => ({ id, name: id })),
  ];
  const userOptions = (disabled ? users : apiKeyUsers(users)).map((user) => ({
    value: user.ID,
    label: `${user.Name} (${user.UserName})`,
  }));
  const userId = form.values.UserId;
  if (userId !== '' && !userOptions.some((option) => option.value === userId)) {
    userOptions.push({ value: userId, label: userId });
  }

  return (
    <Stack gap="sm">
      <NativeSelect
        label={t('apiKeysScreen.dialog.purpose')}
        disabled={disabled}
        data={API_KEY_PURPOSES.map((value) => ({ value, label: t(`apiKeysScreen.purpose.${value}`) }))}
        {...form.getInputProps('Purpose')}
      />

      {purpose === 'allowlists' ? (
        allowlistOptions.length === 0 ? (
          <Alert color="yellow" role="status">
            {t('apiKeysScreen.dialog.noAllowlists')}
          </Alert>
        ) : (
          <Checkbox.Group
            label={t('apiKeysScreen.dialog.allowlists')}
            description={disabled ? undefined : t('apiKeysScreen.dialog.allowlistsPlaceholder')}
            error={allowlistError}
            {...form.getInputProps('AllowlistIds')}
          >
            <ScrollArea.Autosize mah={180} type="auto" mt="xs">
              <Stack gap={6}>
                {allowlistOptions.map((option) => (
                  <Checkbox key={option.id} value={option.id} label={option.name} disabled={disabled} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Checkbox.Group>
        )
      ) : null}

      {purpose === 'user_auth' ? (
        userOptions.length === 0 ? (
          <Alert color="yellow" role="status">
            {t('apiKeysScreen.dialog.noApiKeyUsers')}
          </Alert>
        ) : (
          <NativeSelect
            label={t('apiKeysScreen.dialog.user')}
            disabled={disabled}
            data={[{ value: '', label: t('apiKeysScreen.dialog.userPlaceholder'), disabled: true }, ...userOptions]}
            {...form.getInputProps('UserId')}
          />
        )
      ) : null}

      {purpose === 'user_sessions' ? (
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {t('apiKeysScreen.dialog.userSessionsHint', { url: userSessionsUrl() })}
        </Text>
      ) : null}
    </Stack>
  );
}
