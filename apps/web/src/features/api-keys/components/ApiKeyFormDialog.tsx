import { useState } from 'react';
import { Alert, NativeSelect, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import dayjs from 'dayjs';
import type { ApiKeyRecord, KnocRecord, UserRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { apiKeysApi } from '../api';
import { API_KEY_EXPIRY_CHOICES } from '../api-key-expiry';
import {
  createFormSchema,
  EDIT_FORM_SCHEMA,
  existingKeyValues,
  newKeyValues,
  toCreateBody,
  toUpdateBody,
  type ApiKeyFormValues,
} from '../api-key-form';
import { AllowedFromFields } from './AllowedFromFields';
import { ScopeFields } from './ScopeFields';

/** Props of {@link ApiKeyFormDialog}; mount it only while it is open, so each opening starts afresh. */
export interface ApiKeyFormDialogProps {
  /** The key being edited; undefined to create one. */
  apiKey?: ApiKeyRecord;
  /** Names of the existing keys (spec: names are unique). */
  existingNames: readonly string[];
  allowlists: readonly KnocRecord[];
  users: readonly UserRecord[];
  /** The allowlists or users could not be loaded: the purpose choices may be incomplete. */
  choicesFailed: boolean;
  onClose: () => void;
  /** After a key was created: its name and its plaintext, which must now be shown once. */
  onCreated: (name: string, plaintextKey: string) => void;
}

/**
 * Create or edit an API key. On edit only AllowedFrom can change (spec §4): name, purpose, allowlists,
 * user and expiry are shown disabled and are not sent.
 */
export function ApiKeyFormDialog({
  apiKey,
  existingNames,
  allowlists,
  users,
  choicesFailed,
  onClose,
  onCreated,
}: ApiKeyFormDialogProps) {
  const { t } = useTranslation();
  const editing = apiKey !== undefined;
  const [schema] = useState(() => (editing ? EDIT_FORM_SCHEMA : createFormSchema(existingNames)));
  const form = useZodForm<ApiKeyFormValues>({
    schema,
    initialValues: editing
      ? existingKeyValues(apiKey)
      : newKeyValues([t('apiKeysScreen.allowedFrom.anywhereV4'), t('apiKeysScreen.allowedFrom.anywhereV6')]),
  });
  const create = apiKeysApi.useCreate();
  const update = apiKeysApi.useUpdate();
  const pending = create.isPending || update.isPending;

  const save = (values: ApiKeyFormValues) => {
    // Mantine's form does not stop a second Enter while the first save is on its way.
    if (pending) return;
    form.clearFailure();
    if (apiKey !== undefined) {
      update.mutate(
        { id: apiKey.ID, body: toUpdateBody(apiKey, values) },
        {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('apiKeysScreen.notify.updated') });
            onClose();
          },
          onError: form.refuse,
        },
      );
      return;
    }
    create.mutate(toCreateBody(values, new Date()), {
      onSuccess: (created) => {
        notifications.show({ color: 'green', message: t('apiKeysScreen.notify.created') });
        onCreated(created.Name, created.PlaintextKey);
      },
      onError: form.refuse,
    });
  };

  return (
    <FormDialog
      opened
      title={t(editing ? 'apiKeysScreen.dialog.editTitle' : 'apiKeysScreen.dialog.createTitle')}
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
      submitLabel={editing ? undefined : t('apiKeysScreen.dialog.create')}
    >
      {editing ? (
        <Text size="sm" c="dimmed">
          {t('apiKeysScreen.dialog.editHint')}
        </Text>
      ) : null}
      {choicesFailed ? (
        <Alert color="yellow" role="status">
          {t('apiKeysScreen.dialog.choicesFailed')}
        </Alert>
      ) : null}
      <TextInput
        label={t('apiKeysScreen.dialog.name')}
        required={!editing}
        disabled={editing}
        data-autofocus
        {...form.getInputProps('Name')}
      />
      <ScopeFields form={form} allowlists={allowlists} users={users} disabled={editing} />
      {editing ? (
        <TextInput
          label={t('apiKeysScreen.dialog.expiresOn')}
          disabled
          value={apiKey.ExpiredAfter === null ? t('apiKeysScreen.never') : dayjs(apiKey.ExpiredAfter).format('LLL')}
          readOnly
        />
      ) : (
        <NativeSelect
          label={t('apiKeysScreen.dialog.expiry')}
          required
          data={[
            { value: '', label: t('apiKeysScreen.dialog.expiryPlaceholder'), disabled: true },
            ...API_KEY_EXPIRY_CHOICES.map((value) => ({ value, label: t(`apiKeysScreen.expiryChoice.${value}`) })),
          ]}
          {...form.getInputProps('Expiry')}
        />
      )}
      <AllowedFromFields form={form} />
    </FormDialog>
  );
}
