import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ApiKeyRecord, KnocRecord } from '@postern/protocol';
import { useConfirmedActions, type MutateCallbacks } from '@/components/dialogs/use-confirmed-actions';
import { apiKeysApi } from '@/features/api-keys/api';
import { knocsApi } from './api';
import { keyLeftBehind } from './knoc-types';

/**
 * Deleting a knoc: asks first; once deleted, offers to delete the allowlist's API key when it read
 * only this knoc (one scope or fewer). A refusal lands in `failure` for the page's "Error" dialog.
 * The knocs and API keys lists refresh either way (the key's scopes change with the knoc).
 */
export function useDeleteKnoc(apiKeys: readonly ApiKeyRecord[]) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const removeKnoc = knocsApi.useDelete();
  const removeKey = apiKeysApi.useDelete();

  const offerKeyDeletion = (key: ApiKeyRecord) =>
    confirm({
      title: t('knocsScreen.confirm.deleteKeyTitle'),
      message: t('knocsScreen.confirm.deleteKeyMessage', { name: key.Name }),
      confirmLabel: t('knocsScreen.confirm.deleteKey'),
      mutation: removeKey,
      variables: key.ID,
      done: t('knocsScreen.msg.apiKeyDeleted'),
    });

  const confirmDelete = (knoc: KnocRecord) => {
    // The key's scopes as they are before the delete: afterwards the list may already have changed.
    const key = keyLeftBehind(knoc, apiKeys);
    confirm({
      title: t('knocsScreen.confirm.deleteTitle'),
      message: t('knocsScreen.confirm.deleteMessage', { name: knoc.Name }),
      confirmLabel: t('knocsScreen.confirm.delete'),
      mutation: {
        mutate: (id: string, callbacks: MutateCallbacks<unknown>) =>
          removeKnoc.mutate(id, {
            ...callbacks,
            onSettled: () => void queryClient.invalidateQueries({ queryKey: apiKeysApi.keys.all }),
          }),
      },
      variables: knoc.ID,
      done: t('knocsScreen.msg.knocDeleted'),
      onDone: () => {
        if (key !== null) offerKeyDeletion(key);
      },
    });
  };

  return { confirmDelete, failure, clearFailure };
}
