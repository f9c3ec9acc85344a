import { useTranslation } from 'react-i18next';
import type { BackendRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { backendsApi } from './api';

/**
 * Deleting a backend: asks first, says msg.backendDeleted, and leaves a refusal (a backend its knocs
 * still use) in `failure` for the page's "Error" dialog. The list refreshes either way.
 */
export function useDeleteBackend() {
  const { t } = useTranslation();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const remove = backendsApi.useDelete();
  const confirmDelete = (backend: BackendRecord) =>
    confirm({
      title: t('backendsScreen.confirm.deleteTitle'),
      message: t('backendsScreen.confirm.deleteMessage', { name: backend.Name }),
      confirmLabel: t('backendsScreen.confirm.delete'),
      mutation: remove,
      variables: backend.ID,
      done: t('backendsScreen.msg.backendDeleted'),
    });
  return { confirmDelete, failure, clearFailure };
}
