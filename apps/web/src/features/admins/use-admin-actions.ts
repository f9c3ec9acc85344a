import { useState } from 'react';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { AdminRecord, AdminSessionRecord } from '@postern/protocol';
import { openConfirmDialog } from '@/components/dialogs/ConfirmDialog';
import { useEndAdminSession, useInvalidateAdminSessions } from './admin-sessions-api';
import { adminsApi, useResetAdminTotp } from './api';

/**
 * The admins screen's confirmed one-click actions: delete, reset 2FA, invalidate all admin sessions
 * and end one session. Each asks first, says "done" in a notification, and leaves a refusal in
 * `failure` for the page's "Error" dialog.
 */
export function useAdminActions() {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>(null);
  const remove = adminsApi.useDelete();
  const resetTotp = useResetAdminTotp();
  const invalidate = useInvalidateAdminSessions();
  const endSession = useEndAdminSession();

  const done = (key: string, options?: Record<string, unknown>) => ({
    onSuccess: () => notifications.show({ color: 'green', message: t(key, options) }),
    onError: setFailure,
  });

  return {
    failure,
    clearFailure: () => setFailure(null),
    confirmDelete: (admin: AdminRecord) =>
      openConfirmDialog(t, {
        title: t('adminsScreen.confirm.deleteTitle'),
        message: t('adminsScreen.confirm.deleteMessage', { name: admin.Name, userName: admin.UserName }),
        confirmLabel: t('adminsScreen.confirm.delete'),
        danger: true,
        onConfirm: () => remove.mutate(admin.ID, done('adminsScreen.msg.adminDeleted')),
      }),
    confirmResetTotp: (admin: AdminRecord) =>
      openConfirmDialog(t, {
        title: t('adminsScreen.confirm.resetTotpTitle'),
        message: t('adminsScreen.confirm.resetTotpMessage', { name: admin.Name }),
        confirmLabel: t('adminsScreen.confirm.resetTotp'),
        danger: true,
        onConfirm: () => resetTotp.mutate(admin.ID, done('adminsScreen.msg.totpReset')),
      }),
    confirmInvalidateSessions: () =>
      openConfirmDialog(t, {
        title: t('adminsScreen.confirm.invalidateTitle'),
        message: t('adminsScreen.confirm.invalidateMessage'),
        confirmLabel: t('adminsScreen.confirm.invalidate'),
        danger: true,
        onConfirm: () =>
          invalidate.mutate(undefined, {
            onSuccess: ({ Ended }) =>
              notifications.show({
                color: 'green',
                message: t('adminsScreen.msg.sessionsInvalidated', { count: Ended }),
              }),
            onError: setFailure,
          }),
      }),
    confirmEndSession: (session: AdminSessionRecord) =>
      openConfirmDialog(t, {
        title: t('adminsScreen.confirm.endSessionTitle'),
        // Ending the session in use signs this admin out: say so before, not after.
        message: t(
          session.Current ? 'adminsScreen.confirm.endOwnSessionMessage' : 'adminsScreen.confirm.endSessionMessage',
          {
            ip: session.IPAddress,
          },
        ),
        confirmLabel: t('adminsScreen.confirm.endSession'),
        danger: true,
        onConfirm: () => endSession.mutate(session.ID, done('adminsScreen.msg.sessionEnded')),
      }),
    /** Whether an action is on its way (the toolbar's button waits meanwhile). */
    invalidating: invalidate.isPending,
  };
}

/** What {@link useAdminActions} returns. */
export type AdminActions = ReturnType<typeof useAdminActions>;
