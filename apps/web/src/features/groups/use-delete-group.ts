import { useState } from 'react';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { GroupRecord } from '@postern/protocol';
import { openConfirmDialog } from '@/components/dialogs/ConfirmDialog';
import { groupsApi } from './api';

/**
 * Deleting a group: asks first, says "deleted" in a notification, and leaves a refusal in `failure`
 * for the page's "Error" dialog. The list refreshes either way (someone may have changed it).
 */
export function useDeleteGroup() {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>(null);
  const remove = groupsApi.useDelete();
  const confirmDelete = (group: GroupRecord) =>
    openConfirmDialog(t, {
      title: t('groupsScreen.confirm.deleteTitle'),
      message: t('groupsScreen.confirm.deleteMessage', { name: group.Name }),
      confirmLabel: t('groupsScreen.confirm.delete'),
      danger: true,
      onConfirm: () =>
        remove.mutate(group.ID, {
          onSuccess: () => notifications.show({ color: 'green', message: t('groupsScreen.msg.groupDeleted') }),
          onError: setFailure,
        }),
    });
  return { confirmDelete, failure, clearFailure: () => setFailure(null) };
}
