import { useTranslation } from 'react-i18next';
import type { UserRecord, UserSessionRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { useRemoveAccountPasskeys } from '../passkeys/console-passkeys-api';
import { usersApi } from './api';
import { useEndUserSession, useInvalidateAllUserSessions, useResetUserTotp } from './user-details-api';

/**
 * The Users screen's confirmed actions: delete a user, reset a user's 2FA, remove a user's passkeys,
 * end every user session,
 * end one session. Each asks first, says "done" in a notification, and leaves a refusal in
 * `failure` for the page's Error dialog. Every call refreshes the users queries when it settles.
 */
export function useUserActions() {
  const { t } = useTranslation();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const remove = usersApi.useDelete();
  const resetTotp = useResetUserTotp();
  const removePasskeys = useRemoveAccountPasskeys('users');
  const invalidateAll = useInvalidateAllUserSessions();
  const endSession = useEndUserSession();

  return {
    failure,
    clearFailure,

    askDelete: (user: UserRecord, onDeleted?: () => void) =>
      confirm({
        title: t('usersScreen.confirm.deleteTitle'),
        message: t('usersScreen.confirm.deleteMessage', { name: user.Name }),
        confirmLabel: t('usersScreen.confirm.deleteLabel'),
        mutation: remove,
        variables: user.ID,
        done: t('usersScreen.messages.userDeleted'),
        onDone: onDeleted,
      }),

    askResetTotp: (user: UserRecord) =>
      confirm({
        title: t('usersScreen.confirm.resetTotpTitle'),
        message: t('usersScreen.confirm.resetTotpMessage', { name: user.Name }),
        confirmLabel: t('usersScreen.confirm.resetTotpLabel'),
        mutation: resetTotp,
        variables: user.ID,
        done: t('usersScreen.messages.totpReset'),
      }),

    askRemovePasskeys: (user: UserRecord) =>
      confirm({
        title: t('passkeyConsole.removeTitle'),
        message: t('passkeyConsole.removeMessage', { name: user.Name }),
        confirmLabel: t('passkeyConsole.remove'),
        mutation: removePasskeys,
        variables: user.ID,
        done: t('passkeyConsole.removed'),
      }),

    /** Disabled while a previous request runs, so a double click cannot end sessions twice. */
    invalidatingAll: invalidateAll.isPending,
    askInvalidateAll: () =>
      confirm({
        title: t('usersScreen.confirm.invalidateAllTitle'),
        message: t('usersScreen.confirm.invalidateAllMessage'),
        confirmLabel: t('usersScreen.confirm.invalidateAllLabel'),
        mutation: invalidateAll,
        variables: undefined,
        done: ({ Ended }) => t('usersScreen.messages.allSessionsInvalidated', { count: Ended }),
      }),

    /** The session being ended now, if any (its button spins). */
    endingSessionId: endSession.isPending ? endSession.variables : undefined,
    askEndSession: (session: UserSessionRecord) =>
      confirm({
        title: t('usersScreen.confirm.endSessionTitle'),
        message: t('usersScreen.confirm.endSessionMessage', { address: session.IPAddress }),
        confirmLabel: t('usersScreen.confirm.endSessionLabel'),
        mutation: endSession,
        variables: session.ID,
        done: t('usersScreen.messages.sessionDeleted'),
      }),
  };
}

/** What {@link useUserActions} returns. */
export type UserActions = ReturnType<typeof useUserActions>;
