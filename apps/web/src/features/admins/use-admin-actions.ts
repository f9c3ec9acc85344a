import { useTranslation } from 'react-i18next';
import type { AdminRecord, AdminSessionRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { useEndAdminSession, useInvalidateAdminSessions } from './admin-sessions-api';
import { useRemoveAccountPasskeys } from '../passkeys/console-passkeys-api';
import { adminsApi, useResetAdminTotp } from './api';

/**
 * The admins screen's confirmed one-click actions: delete, reset 2FA, remove passkeys, invalidate all admin sessions
 * and end one session. Each asks first, says "done" in a notification, and leaves a refusal in
 * `failure` for the page's "Error" dialog.
 */
export function useAdminActions() {
  const { t } = useTranslation();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const remove = adminsApi.useDelete();
  const resetTotp = useResetAdminTotp();
  const removePasskeys = useRemoveAccountPasskeys('admins');
  const invalidate = useInvalidateAdminSessions();
  const endSession = useEndAdminSession();

  return {
    failure,
    clearFailure,
    confirmDelete: (admin: AdminRecord) =>
      confirm({
        title: t('adminsScreen.confirm.deleteTitle'),
        message: t('adminsScreen.confirm.deleteMessage', { name: admin.Name, userName: admin.UserName }),
        confirmLabel: t('adminsScreen.confirm.delete'),
        mutation: remove,
        variables: admin.ID,
        done: t('adminsScreen.msg.adminDeleted'),
      }),
    confirmResetTotp: (admin: AdminRecord) =>
      confirm({
        title: t('adminsScreen.confirm.resetTotpTitle'),
        message: t('adminsScreen.confirm.resetTotpMessage', { name: admin.Name }),
        confirmLabel: t('adminsScreen.confirm.resetTotp'),
        mutation: resetTotp,
        variables: admin.ID,
        done: t('adminsScreen.msg.totpReset'),
      }),
    confirmRemovePasskeys: (admin: AdminRecord) =>
      confirm({
        title: t('passkeyConsole.removeTitle'),
        message: t('passkeyConsole.removeMessage', { name: admin.Name }),
        confirmLabel: t('passkeyConsole.remove'),
        mutation: removePasskeys,
        variables: admin.ID,
        done: t('passkeyConsole.removed'),
      }),
    confirmInvalidateSessions: () =>
      confirm({
        title: t('adminsScreen.confirm.invalidateTitle'),
        message: t('adminsScreen.confirm.invalidateMessage'),
        confirmLabel: t('adminsScreen.confirm.invalidate'),
        mutation: invalidate,
        variables: undefined,
        done: ({ Ended }) => t('adminsScreen.msg.sessionsInvalidated', { count: Ended }),
      }),
    confirmEndSession: (session: AdminSessionRecord) =>
      confirm({
        title: t('adminsScreen.confirm.endSessionTitle'),
        // Ending the session in use signs this admin out: say so before, not after.
        message: t(
          session.Current ? 'adminsScreen.confirm.endOwnSessionMessage' : 'adminsScreen.confirm.endSessionMessage',
          { ip: session.IPAddress },
        ),
        confirmLabel: t('adminsScreen.confirm.endSession'),
        mutation: endSession,
        variables: session.ID,
        done: t('adminsScreen.msg.sessionEnded'),
      }),
    /** Whether an action is on its way (the toolbar's button waits meanwhile). */
    invalidating: invalidate.isPending,
  };
}

/** What {@link useAdminActions} returns. */
export type AdminActions = ReturnType<typeof useAdminActions>;
