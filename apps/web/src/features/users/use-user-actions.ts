import { useState } from 'react';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { UserRecord, UserSessionRecord } from '@postern/protocol';
import { openConfirmDialog } from '@/components/dialogs/ConfirmDialog';
import { usersApi } from './api';
import { useEndUserSession, useInvalidateAllUserSessions, useResetUserTotp } from './user-details-api';

/**
 * The Users screen's confirmed actions: delete a user, reset a user's 2FA, end every user session,
 * end one session. Each asks first, says "done" in a notification, and leaves a refusal in
 * `failure` for the page's Error dialog. Every call refreshes the users queries when it settles.
 */
export function useUserActions() {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>(null);
  const remove = usersApi.useDelete();
  const resetTotp = useResetUserTotp();
  const invalidateAll = useInvalidateAllUserSessions();
  const endSession = useEndUserSession();

  const succeeded = (message: string) => notifications.show({ color: 'green', message });
  const onError = (error: unknown) => setFailure(error);

  return {
    failure,
    clearFailure: () => setFailure(null),

    askDelete: (user: UserRecord, onDeleted?: () => void) =>
      openConfirmDialog(t, {
        title: t('usersScreen.confirm.deleteTitle'),
        message: t('usersScreen.confirm.deleteMessage', { name: user.Name }),
        confirmLabel: t('usersScreen.confirm.deleteLabel'),
        danger: true,
        onConfirm: () =>
          remove.mutate(user.ID, {
            onSuccess: () => {
              succeeded(t('usersScreen.messages.userDeleted'));
              onDeleted?.();
            },
            onError,
          }),
      }),

    askResetTotp: (user: UserRecord) =>
      openConfirmDialog(t, {
        title: t('usersScreen.confirm.resetTotpTitle'),
        message: t('usersScreen.confirm.resetTotpMessage', { name: user.Name }),
        confirmLabel: t('usersScreen.confirm.resetTotpLabel'),
        danger: true,
        onConfirm: () =>
          resetTotp.mutate(user.ID, { onSuccess: () => succeeded(t('usersScreen.messages.totpReset')), onError }),
      }),

    /** Disabled while a previous request runs, so a double click cannot end sessions twice. */
    invalidatingAll: invalidateAll.isPending,
    askInvalidateAll: () =>
      openConfirmDialog(t, {
        title: t('usersScreen.confirm.invalidateAllTitle'),
        message: t('usersScreen.confirm.invalidateAllMessage'),
        confirmLabel: t('usersScreen.confirm.invalidateAllLabel'),
        danger: true,
        onConfirm: () =>
          invalidateAll.mutate(undefined, {
            onSuccess: ({ Ended }) => succeeded(t('usersScreen.messages.allSessionsInvalidated', { count: Ended })),
            onError,
          }),
      }),

    /** The session being ended now, if any (its button spins). */
    endingSessionId: endSession.isPending ? endSession.variables : undefined,
    askEndSession: (session: UserSessionRecord) =>
      openConfirmDialog(t, {
        title: t('usersScreen.confirm.endSessionTitle'),
        message: t('usersScreen.confirm.endSessionMessage', { address: session.IPAddress }),
        confirmLabel: t('usersScreen.confirm.endSessionLabel'),
        danger: true,
        onConfirm: () =>
          endSession.mutate(session.ID, {
            onSuccess: () => succeeded(t('usersScreen.messages.sessionDeleted')),
            onError,
          }),
      }),
  };
}

/** What {@link useUserActions} returns. */
export type UserActions = ReturnType<typeof useUserActions>;
