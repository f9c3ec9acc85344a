import { useEffect, useState } from 'react';
import { Button } from '@mantine/core';
import { IconExternalLink, IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { AGENTS_PAGE_REFRESH_MS, MINIMUM_AGENT_VERSION, POSTERN_VERSION, type AgentRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { agentColumns } from '@/features/agents/agent-columns';
import { AGENT_DOCS_URL } from '@/lib/links';
import { filterAgents } from '@/features/agents/agent-search';
import { agentVersionState, versionPolicy, type AgentVersionPolicy } from '@/features/agents/agent-version';
import { agentsApi } from '@/features/agents/api';
import { freshestAgent, INSTALL_DIALOG_REFRESH_MS } from '@/features/agents/enrolment-state';
import { AgentCapabilitiesDialog } from '@/features/agents/components/AgentCapabilitiesDialog';
import { AgentFormDialog } from '@/features/agents/components/AgentFormDialog';
import { AgentTokenDialog, type TokenDialogReason } from '@/features/agents/components/AgentTokenDialog';
import { useAgentActions } from '@/features/agents/use-agent-actions';
import { useAdminStatus } from '@/features/status/api';

/** Which dialog of the page is open, and for which agent (delete and rotate ask through modals). */
type Operation =
  | { type: 'create' }
  | { type: 'edit'; agent: AgentRecord }
  | { type: 'token'; agent: AgentRecord; reason: TokenDialogReason }
  | { type: 'capabilities'; agent: AgentRecord };

/** The query that opens the create dialog (the admin home's first-run checklist links to it). */
const NEW_PARAM = 'new';
/** The query that opens the install dialog of the agent with this id (the same checklist's link). */
const INSTALL_PARAM = 'install';

/**
 * Acts on the page's query once, then clears it (history replaced), so a reload or Back does not open
 * the dialog again: `new` opens the create dialog at once; `install` opens that agent's install
 * dialog once the list has loaded (the dialog shows the list's record), and nothing for an id the
 * list does not hold: the list shows as on any visit.
 */
function useAgentsQuery(agents: readonly AgentRecord[] | undefined, open: (operation: Operation) => void) {
  const [params, setParams] = useSearchParams();
  const create = params.has(NEW_PARAM);
  const installId = params.get(INSTALL_PARAM);

  useEffect(() => {
    if (!create && installId === null) return;
    if (create) open({ type: 'create' });
    else {
      // The install dialog polls the list for the agent's enrolment: it opens on the list's record.
      if (agents === undefined) return;
      const agent = agents.find((candidate) => candidate.ID === installId);
      if (agent !== undefined) open({ type: 'token', agent, reason: 'viewed' });
    }
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(NEW_PARAM);
        next.delete(INSTALL_PARAM);
        return next;
      },
      { replace: true },
    );
  }, [create, installId, agents, open, setParams]);
}

/** Until the admin status has come, this release's own numbers judge the versions. */
const FALLBACK_POLICY: AgentVersionPolicy = { minimum: MINIMUM_AGENT_VERSION, newest: POSTERN_VERSION };

/**
 * Agents (`/admin/agents`): the list refreshed every 5 seconds (every 2 while the install dialog is open,
 * showing the agent enrol), create, rename, token with the live enrolment, rotate, delete. `?new=1`
 * opens the create dialog and `?install=<agent id>` that agent's install dialog (see useAgentsQuery).
 */
export default function AgentsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const { operation, open, close } = useOperation<Operation>();
  // Faster while the install dialog is open: the admin is watching the agent connect.
  const list = agentsApi.useList({
    refetchInterval: operation?.type === 'token' ? INSTALL_DIALOG_REFRESH_MS : AGENTS_PAGE_REFRESH_MS,
  });
  const status = useAdminStatus();
  const [search, setSearch] = useState('');
  const tokenAgent = operation?.type === 'token' ? freshestAgent(operation.agent, list.data) : null;
  useAgentsQuery(list.data, open);
  const actions = useAgentActions({ onRotated: (agent) => open({ type: 'token', agent, reason: 'rotated' }) });
  const policy = status.data === undefined ? FALLBACK_POLICY : versionPolicy(status.data);

  const columns = agentColumns({
    t,
    policy,
    onShowCapabilities: (agent) => open({ type: 'capabilities', agent }),
    actions: {
      onViewToken: (agent) => open({ type: 'token', agent, reason: 'viewed' }),
      onEdit: (agent) => open({ type: 'edit', agent }),
      onRotateToken: actions.onRotateToken,
      onDelete: actions.onDelete,
      busyId: actions.busyId,
    },
  });

  // The words a row shows besides its record ("Awaiting connection", "Out of date") are searchable too.
  const shownTexts = (agent: AgentRecord) => [
    t(
      agent.LastSeen === null
        ? 'agentsScreen.activity.awaiting'
        : agent.Online
          ? 'agentsScreen.activity.online'
          : 'agentsScreen.activity.offline',
    ),
    t(`agentsScreen.version.${agentVersionState(agent.Version, policy)}`),
  ];

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} label={t('agentsScreen.search')} />
      <Button
        component="a"
        href={AGENT_DOCS_URL}
        target="_blank"
        rel="noopener noreferrer"
        variant="default"
        aria-label={t('agentsScreen.documentationLabel')}
        leftSection={<IconExternalLink size={16} aria-hidden />}
      >
        {t('agentsScreen.documentation')}
      </Button>
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
        {t('agentsScreen.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState data={list.data} isError={list.isError} error={list.error}>
        {(agents) => (
          <DataTable
            label={t('agentsScreen.tableLabel')}
            columns={columns}
            rows={filterAgents(agents, search, shownTexts)}
            rowKey={(agent) => agent.ID}
            initialSort={{ column: 'name', direction: 'asc' }}
            emptyText={agents.length === 0 ? t('agentsScreen.empty') : t('table.noMatches')}
            minWidth={900}
          />
        )}
      </QueryState>
      <AgentFormDialog
        opened={operation?.type === 'create' || operation?.type === 'edit'}
        agent={operation?.type === 'edit' ? operation.agent : undefined}
        onClose={close}
        onCreated={(agent) => open({ type: 'token', agent, reason: 'created' })}
      />
      <AgentTokenDialog
        agent={tokenAgent}
        reason={operation?.type === 'token' ? operation.reason : 'viewed'}
        onClose={close}
        publicUrl={status.data?.PublicUrl}
      />
      <AgentCapabilitiesDialog agent={operation?.type === 'capabilities' ? operation.agent : null} onClose={close} />
      <ErrorDialog error={actions.failure} onClose={actions.clearFailure} />
    </AdminPage>
  );
}
