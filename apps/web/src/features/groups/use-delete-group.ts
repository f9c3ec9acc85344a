import { useTranslation } from 'react-i18next';
import type { GroupRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { groupsApi } from './api';

/**
 * Deleting a group: asks first, says "deleted" in a notification, and leaves a refusal in `failure`
 * for the page's "Error" dialog. The list refreshes either way (someone may have changed it).
 */
export function useDeleteGroup() {
  const { t } = useTranslation();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const remove = groupsApi.useDelete();
  const confirmDelete = (group: GroupRecord) =>
    confirm({
      title: t('groupsScreen.confirm.deleteTitle'),
      message: t('groupsScreen.confirm.deleteMessage', { name: group.Name }),
      confirmLabel: t('groupsScreen.confirm.delete'),
      mutation: remove,
      variables: group.ID,
      done: t('groupsScreen.msg.groupDeleted'),
    });
  return { confirmDelete, failure, clearFailure };
}
