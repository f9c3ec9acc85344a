import { Text, UnstyledButton } from '@mantine/core';
import type { TFunction } from 'i18next';
import type { AgentRecord } from '@postern/protocol';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { displayAddress } from './agent-address';
import { operatingSystem } from './agent-capabilities';
import type { AgentVersionPolicy } from './agent-version';
import { AgentActionsMenu, type AgentRowActions } from './components/AgentActionsMenu';
import { AgentActivity } from './components/AgentActivity';
import { AgentVersionBadge } from './components/AgentVersionBadge';

/** What the columns need besides the row. */
export interface AgentColumnsOptions {
  t: TFunction;
  policy: AgentVersionPolicy;
  onShowCapabilities: (agent: AgentRecord) => void;
  actions: AgentRowActions;
}

/** The Capabilities cell: the OS name and version, a button that opens the capabilities dialog. */
function CapabilitiesCell({ agent, t, onShow }: { agent: AgentRecord; t: TFunction; onShow: () => void }) {
  const os = operatingSystem(agent.Capabilities);
  if (agent.Capabilities === null) {
    return (
      <Text size="sm" c="dimmed">
        {t('agentsScreen.capabilities.notReported')}
      </Text>
    );
  }
  const shown = os ?? t('agentsScreen.capabilities.notReported');
  return (
    <UnstyledButton
      onClick={onShow}
      // The name starts with the text shown (axe: label-content-name-mismatch).
      aria-label={t('agentsScreen.capabilities.open', { name: agent.Name, os: shown })}
      fz="sm"
      c="blue"
      td="underline"
    >
      {shown}
    </UnstyledButton>
  );
}

/**
 * The agents table (spec: Name, Capabilities, Activity, Version, IP address, Actions). Every column
 * but Actions sorts; the sort values are chosen so the order means something: activity by the last
 * seen instant (never connected last), versions numerically (1.10 after 1.9).
 */
export function agentColumns({
  t,
  policy,
  onShowCapabilities,
  actions,
}: AgentColumnsOptions): DataTableColumn<AgentRecord>[] {
  return [
    {
      id: 'name',
      header: t('agentsScreen.column.name'),
      accessor: (agent) => agent.Name,
      render: (agent) => (
        <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
          {agent.Name}
        </Text>
      ),
      sortable: true,
    },
    {
      id: 'capabilities',
      header: t('agentsScreen.column.capabilities'),
      accessor: (agent) => operatingSystem(agent.Capabilities),
      render: (agent) => <CapabilitiesCell agent={agent} t={t} onShow={() => onShowCapabilities(agent)} />,
      sortable: true,
    },
    {
      id: 'activity',
      header: t('agentsScreen.column.activity'),
      // Newest first reads best, so the instant sorts negated: ascending shows the latest activity on top.
      accessor: (agent) => (agent.LastSeen === null ? null : -Date.parse(agent.LastSeen)),
      render: (agent) => <AgentActivity agent={agent} />,
      sortable: true,
    },
    {
      id: 'version',
      header: t('agentsScreen.column.version'),
      accessor: (agent) => agent.Version,
      render: (agent) => <AgentVersionBadge version={agent.Version} policy={policy} />,
      sortable: true,
    },
    {
      id: 'ipAddress',
      header: t('agentsScreen.column.ipAddress'),
      accessor: (agent) => displayAddress(agent.ExternalIP),
      render: (agent) => <Text size="sm">{displayAddress(agent.ExternalIP) ?? '—'}</Text>,
      sortable: true,
    },
    {
      id: 'actions',
      header: t('agentsScreen.column.actions'),
      render: (agent) => <AgentActionsMenu agent={agent} actions={actions} />,
      width: 80,
    },
  ];
}
