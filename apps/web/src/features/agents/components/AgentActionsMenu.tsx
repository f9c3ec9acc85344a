import { ActionIcon, Menu } from '@mantine/core';
import { IconDots, IconEdit, IconKey, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';

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
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={t('agentsScreen.actions.menu', { name: agent.Name })}
          loading={actions.busyId === agent.ID}
        >
          <IconDots size={18} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<IconKey size={16} aria-hidden />} onClick={() => actions.onViewToken(agent)}>
          {t('agentsScreen.actions.viewToken')}
        </Menu.Item>
        <Menu.Item leftSection={<IconEdit size={16} aria-hidden />} onClick={() => actions.onEdit(agent)}>
          {t('agentsScreen.actions.edit')}
        </Menu.Item>
        <Menu.Item leftSection={<IconRefresh size={16} aria-hidden />} onClick={() => actions.onRotateToken(agent)}>
          {t('agentsScreen.actions.rotateToken')}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item
          color="red"
          leftSection={<IconTrash size={16} aria-hidden />}
          onClick={() => actions.onDelete(agent)}
        >
          {t('agentsScreen.actions.delete')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
