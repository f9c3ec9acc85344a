import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { adminAclsApi } from './api';

/** Deleting an ACL: asks first, says msg.aclDeleted, a refusal goes to the page's "Error" dialog. */
export function useDeleteAcl() {
  const { t } = useTranslation();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const remove = adminAclsApi.useDelete();
  const confirmDelete = (knoc: KnocRecord) =>
    confirm({
      title: t('aclsScreen.confirm.deleteTitle'),
      message: t('aclsScreen.confirm.deleteMessage', { name: knoc.Description }),
      confirmLabel: t('aclsScreen.confirm.delete'),
      mutation: remove,
      variables: knoc.ID,
      done: t('aclsScreen.msg.aclDeleted'),
    });
  return { confirmDelete, failure, clearFailure };
}
