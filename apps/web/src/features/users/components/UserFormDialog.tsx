import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { usersApi } from '../api';
import {
  existingUserValues,
  newUserValues,
  toCreateBody,
  toUpdateBody,
  userFormSchema,
  type UserFormValues,
} from '../user-form';
import { UserFormFields } from './UserFormFields';

/** Props of {@link UserFormDialog}: `user` edits that user, none creates one. */
export interface UserFormDialogProps {
  user?: UserRecord;
  /** The licence's session limit: the field's maximum and default; null when unlicensed. */
  maxSessionLimit: number | null;
  onClose: () => void;
  /** After a create that made an API key: its one-time plaintext, to show. */
  onKeyCreated: (reveal: { userName: string; key: string }) => void;
  /** After a create: the new user, for a caller that picks it (the knoc wizard's Users step). */
  onCreated?: (user: UserRecord) => void;
}

/**
 * Create or edit a user (spec §2, §4, §5). Mounted per opening, so each starts afresh. A refusal
 * naming a field shows on it; any other appears in the Error dialog over the form, which stays open
 * with what was typed.
 */
export function UserFormDialog({ user, maxSessionLimit, onClose, onKeyCreated, onCreated }: UserFormDialogProps) {
  const { t } = useTranslation();
  const mode = user === undefined ? 'create' : 'edit';
  const form = useZodForm<UserFormValues>({
    schema: userFormSchema(mode, maxSessionLimit),
    initialValues: user === undefined ? newUserValues(maxSessionLimit) : existingUserValues(user),
  });
  const create = usersApi.useCreate();
  const update = usersApi.useUpdate();
  const save = (values: UserFormValues) => {
    if (user === undefined) {
      create.mutate(toCreateBody(values, new Date()), {
        onSuccess: ({ User, PlaintextKey }) => {
          notifications.show({ color: 'green', message: t('usersScreen.messages.userCreated') });
          if (PlaintextKey !== null) onKeyCreated({ userName: User.Name, key: PlaintextKey });
          onCreated?.(User);
          onClose();
        },
        onError: form.refuse,
      });
      return;
    }
    update.mutate(
      { id: user.ID, body: toUpdateBody(values, user) },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('usersScreen.messages.userUpdated') });
          onClose();
        },
        onError: form.refuse,
      },
    );
  };

  const pending = create.isPending || update.isPending;
  return (
    <>
      <FormDialog
        opened
        title={
          user === undefined ? t('usersScreen.form.createTitle') : t('usersScreen.form.editTitle', { name: user.Name })
        }
        onClose={() => {
          // Closing while the save is on its way would hide its outcome.
          if (!pending) onClose();
        }}
        onSubmit={form.onSubmit(save)}
        pending={pending}
        submitLabel={user === undefined ? t('usersScreen.form.create') : undefined}
      >
        <UserFormFields form={form} mode={mode} maxSessionLimit={maxSessionLimit} />
      </FormDialog>
      <ErrorDialog error={form.failure} onClose={form.clearFailure} />
    </>
  );
}
