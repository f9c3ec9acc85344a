import { Alert, Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ErrorCodes, type BackendType } from '@postern/protocol';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { backendFieldLabelKey } from '../backend-fields';
import { CONFIG_MESSAGES } from '../config-rules';

/** Props of {@link CredentialDialog}; mount it only while it asks, so each time starts empty. */
export interface CredentialDialogProps {
  type: BackendType;
  /** The secret fields to enter again (see `secretsToReenter`). */
  fields: readonly string[];
  /** The new secrets by field name; the caller puts them into its form and goes on saving. */
  onSubmit: (secrets: Record<string, string>) => void;
  onCancel: () => void;
}

/**
 * Asks for a vendor backend's secrets again because its address (Url or Hostname) changed: a stored
 * secret is never sent to another host than the one it was entered for (spec §4). Every field is
 * required.
 */
export function CredentialDialog({ type, fields, onSubmit, onCancel }: CredentialDialogProps) {
  const { t } = useTranslation();
  const form = useZodForm<Record<string, string>>({
    schema: z.object(Object.fromEntries(fields.map((field) => [field, z.string().min(1, CONFIG_MESSAGES.required)]))),
    initialValues: Object.fromEntries(fields.map((field) => [field, ''])),
  });
  return (
    <Modal
      opened
      onClose={onCancel}
      title={t('backendsScreen.credentials.title')}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <form
        noValidate
        onSubmit={(event) => {
          // The dialog opens over another form: its submit must not submit that one too.
          event.stopPropagation();
          form.onSubmit((secrets) => onSubmit(secrets))(event);
        }}
      >
        <Stack>
          <Alert color="yellow" role="status">
            {t(ErrorCodes.reenterCredentials)}
          </Alert>
          {fields.map((field, index) => (
            <PasswordInput
              key={field}
              label={t(backendFieldLabelKey(type, field))}
              required
              autoComplete="new-password"
              data-autofocus={index === 0 ? true : undefined}
              {...form.getInputProps(field)}
            />
          ))}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              {t('dialog.cancel')}
            </Button>
            <Button type="submit">{t('backendsScreen.credentials.continue')}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
