import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { useConfirmedDelete } from '@/components/dialogs/use-confirmed-delete';
import { adminAclsApi } from './api';

/** Deleting an ACL: asks, says msg.aclDeleted; a refusal goes to the page's "Error" dialog. */
export function useDeleteAcl() {
  const { t } = useTranslation();
  return useConfirmedDelete(
    adminAclsApi.useDelete(),
    (knoc: KnocRecord) => knoc.ID,
    (knoc) => ({
      title: t('aclsScreen.confirm.deleteTitle'),
      message: t('aclsScreen.confirm.deleteMessage', { name: knoc.Description }),
      confirmLabel: t('aclsScreen.confirm.delete'),
      done: t('aclsScreen.msg.aclDeleted'),
    }),
  );
}
