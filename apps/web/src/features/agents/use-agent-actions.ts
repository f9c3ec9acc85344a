import { useTranslation } from 'react-i18next';
import { ErrorCodes, type AgentRecord } from '@postern/protocol';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { ApiError } from '@/lib/api/api-error';
import { agentsApi, useRotateAgentToken } from './api';

/**
 * The refusal a delete would get while backends use the agent (spec: "Please detach all backends
 * from this agent before deleting it"), naming them so the admin knows what to detach. Asking the
 * server first would only make the admin confirm something bound to fail.
 */
export function attachedBackendsRefusal(agent: AgentRecord): ApiError | null {
  if (agent.Backends.length === 0) return null;
  return new ApiError(409, ErrorCodes.agentHasBackends, agent.Backends.map((backend) => backend.Name).join(', '));
}

/**
 * Delete and Rotate token, each behind a confirmation, with a notification on success and the
 * "Error" dialog's failure on refusal. `onRotated` receives the agent with its new token.
 */
export function useAgentActions({ onRotated }: { onRotated: (agent: AgentRecord) => void }) {
  const { t } = useTranslation();
  const remove = agentsApi.useDelete();
  const rotate = useRotateAgentToken();
  const { confirm, failure, setFailure, clearFailure } = useConfirmedActions();

  const onDelete = (agent: AgentRecord) => {
    const refusal = attachedBackendsRefusal(agent);
    if (refusal !== null) {
      setFailure(refusal);
      return;
    }
    confirm({
      title: t('agentsScreen.delete.title'),
      message: t('agentsScreen.delete.message', { name: agent.Name }),
      confirmLabel: t('agentsScreen.delete.confirm'),
      mutation: remove,
      variables: agent.ID,
      done: t('agentsScreen.messages.agentDeleted'),
    });
  };

  const onRotateToken = (agent: AgentRecord) => {
    confirm({
      title: t('agentsScreen.rotate.title'),
      message: t('agentsScreen.rotate.message', { name: agent.Name }),
      confirmLabel: t('agentsScreen.rotate.confirm'),
      mutation: rotate,
      variables: agent.ID,
      done: t('agentsScreen.messages.tokenRotated'),
      onDone: onRotated,
    });
  };

  // While a delete or rotation is on its way, that row's menu spins and cannot start another.
  const busyId = remove.isPending ? String(remove.variables) : rotate.isPending ? String(rotate.variables) : null;

  return { onDelete, onRotateToken, busyId, failure, clearFailure };
}
