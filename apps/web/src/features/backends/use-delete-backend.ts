import { useTranslation } from 'react-i18next';
import type { BackendRecord } from '@postern/protocol';
import { useConfirmedDelete } from '@/components/dialogs/use-confirmed-delete';
import { backendsApi } from './api';

/** Deleting a backend: asks, says msg.backendDeleted; a refusal (knocs still use it) goes to the Error dialog. */
export function useDeleteBackend() {
  const { t } = useTranslation();
  return useConfirmedDelete(
    backendsApi.useDelete(),
    (backend: BackendRecord) => backend.ID,
    (backend) => ({
      title: t('backendsScreen.confirm.deleteTitle'),
      message: t('backendsScreen.confirm.deleteMessage', { name: backend.Name }),
      confirmLabel: t('backendsScreen.confirm.delete'),
      done: t('backendsScreen.msg.backendDeleted'),
    }),
  );
}
