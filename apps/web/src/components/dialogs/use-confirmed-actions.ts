import { useCallback, useState, type ReactNode } from 'react';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { openConfirmDialog } from './ConfirmDialog';

/** What a mutation's `mutate` takes as its second argument: the two outcomes. */
export interface MutateCallbacks<TData> {
  onSuccess: (data: TData) => void;
  onError: (error: unknown) => void;
}

/** One action behind a confirmation. Texts are already translated. */
export interface ConfirmedAction<TData, TVariables> {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** The TanStack Query mutation to run once confirmed (`adminsApi.useDelete()`). */
  mutation: { mutate: (variables: TVariables, callbacks: MutateCallbacks<TData>) => void };
  /** What to run it with (the item's id; undefined for none). */
  variables: TVariables;
  /** The green notification's text once the call succeeded, given its answer. */
  done: string | ((data: TData) => string);
  /** Also run after the success notification. */
  onDone?: (data: TData) => void;
}

/**
 * Confirm, then mutate, then notify: the admin screens' one-click actions (delete, reset 2FA,
 * invalidate sessions, rotate a token, clear logs). Each asks first in a red confirmation, says
 * "done" in a notification, and leaves a refusal in `failure` for the page's "Error" dialog.
 */
export function useConfirmedActions() {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>(null);

  const confirm = useCallback(
    <TData, TVariables>(action: ConfirmedAction<TData, TVariables>) =>
      openConfirmDialog(t, {
        title: action.title,
        message: action.message,
        confirmLabel: action.confirmLabel,
        danger: true,
        onConfirm: () =>
          action.mutation.mutate(action.variables, {
            onSuccess: (data) => {
              const { done } = action;
              notifications.show({ color: 'green', message: typeof done === 'string' ? done : done(data) });
              action.onDone?.(data);
            },
            onError: setFailure,
          }),
      }),
    [t],
  );

  return {
    confirm,
    failure,
    /** Shows a refusal known before asking (the Error dialog opens with it). */
    setFailure,
    clearFailure: useCallback(() => setFailure(null), []),
  };
}
