import type { ReactNode } from 'react';
import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { PasskeyName } from '@postern/protocol';

/** Props of {@link PasskeyNameForm}. */
export interface PasskeyNameFormProps {
  submitLabel: string;
  pending: boolean;
  onSubmit: (name: string) => void;
  initialName?: string;
  /** Shown between the field and the button: what the last attempt left to say. */
  outcome?: ReactNode;
  /** Before the submit button, which then sits at the end of their row (Cancel in a dialog). */
  secondaryAction?: ReactNode;
}

/** A passkey's name, checked by the protocol's rule (1–64 characters, no control characters). */
export function PasskeyNameForm(props: PasskeyNameFormProps) {
  const { submitLabel, pending, onSubmit, initialName = '', outcome, secondaryAction } = props;
  const { t } = useTranslation();
  const form = useForm({
    mode: 'controlled',
    initialValues: { Name: initialName },
    validate: {
      Name: (value) => {
        const result = PasskeyName.safeParse(value);
        if (result.success) return null;
        if (value.trim() === '') return t('passkey.name.required');
        return value.trim().length > 64 ? t('passkey.name.tooLong') : t('passkey.name.controlCharacters');
      },
    },
  });
  return (
    <form noValidate onSubmit={form.onSubmit(({ Name }) => onSubmit(Name.trim()))}>
      <Stack>
        <TextInput
          label={t('passkey.name.label')}
          description={t('passkey.name.description')}
          required
          withAsterisk={false}
          autoComplete="off"
          data-autofocus
          {...form.getInputProps('Name')}
        />
        {outcome}
        {secondaryAction === undefined ? (
          <Button type="submit" fullWidth loading={pending}>
            {submitLabel}
          </Button>
        ) : (
          <Group justify="flex-end">
            {secondaryAction}
            <Button type="submit" loading={pending}>
              {submitLabel}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
