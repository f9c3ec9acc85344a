import { IconEdit, IconKey, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';
import { RowActionMenu } from '@/components/RowActionMenu';

/** What the Actions menu of a row can ask for. */
export interface AgentRowActions {
  onViewToken: (agent: AgentRecord) => void;
  onEdit: (agent: AgentRecord) => void;
  onRotateToken: (agent: AgentRecord) => void;
  onDelete: (agent: AgentRecord) => void;
  /** The id of the agent a delete or rotation is on its way for: its menu waits. */
  busyId: string | null;
}

/** The row's Actions menu: View token, Edit, Rotate token and Delete. */
export function AgentActionsMenu({ agent, actions }: { agent: AgentRecord; actions: AgentRowActions }) {
  const { t } = useTranslation();
  return (
    <RowActionMenu
      label={t('agentsScreen.actions.menu', { name: agent.Name })}
      loading={actions.busyId === agent.ID}
      items={[
        {
          label: t('agentsScreen.actions.viewToken'),
          icon: <IconKey size={16} aria-hidden />,
          onClick: () => actions.onViewToken(agent),
        },
        {
          label: t('agentsScreen.actions.edit'),
          icon: <IconEdit size={16} aria-hidden />,
          onClick: () => actions.onEdit(agent),
        },
        {
          label: t('agentsScreen.actions.rotateToken'),
          icon: <IconRefresh size={16} aria-hidden />,
          onClick: () => actions.onRotateToken(agent),
        },
        {
          label: t('agentsScreen.actions.delete'),
          icon: <IconTrash size={16} aria-hidden />,
          onClick: () => actions.onDelete(agent),
          danger: true,
        },
      ]}
    />
  );
}
