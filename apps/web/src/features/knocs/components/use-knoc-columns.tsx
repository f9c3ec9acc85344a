import { useMemo } from 'react';
import { Anchor, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { KnocDetails } from './KnocDetails';
import { KnocLastModified } from './KnocLastModified';

/**
 * The knocs table (spec: Name, Details, users and groups counts, Agent name, Last modified with its
 * modifier). Name, users, agent and last modified sort. The name is a button too, so the detail
 * dialog a row click opens can be reached from the keyboard.
 */
export function useKnocColumns(view: (knoc: KnocRecord) => void): DataTableColumn<KnocRecord>[] {
  const { t } = useTranslation();
  return useMemo(
    () => [
      {
        id: 'name',
        header: t('knocsScreen.columns.name'),
        accessor: (knoc) => knoc.Name,
        sortable: true,
        render: (knoc) => (
          <Anchor
            component="button"
            type="button"
            fz="sm"
            onClick={(event) => {
              // The row's own click would open the dialog a second time.
              event.stopPropagation();
              view(knoc);
            }}
          >
            {knoc.Name}
          </Anchor>
        ),
      },
      { id: 'details', header: t('knocsScreen.columns.details'), render: (knoc) => <KnocDetails knoc={knoc} /> },
      { id: 'users', header: t('knocsScreen.columns.users'), accessor: (knoc) => knoc.UserCount, sortable: true },
      { id: 'groups', header: t('knocsScreen.columns.groups'), accessor: (knoc) => knoc.GroupCount },
      {
        id: 'agent',
        header: t('knocsScreen.columns.agent'),
        // A knoc without an agent (an allowlist) sorts last, whichever way.
        accessor: (knoc) => (knoc.AgentName === '' ? null : knoc.AgentName),
        sortable: true,
        // An empty cell would look like missing data: say why there is no agent.
        render: (knoc) =>
          knoc.AgentName === '' ? (
            <Text span fz="sm" c="dimmed">
              {t(knoc.BackendType === 'allowlist' ? 'knocsScreen.agentNone.allowlist' : 'knocsScreen.agentNone.other')}
            </Text>
          ) : (
            knoc.AgentName
          ),
      },
      {
        id: 'lastModified',
        header: t('knocsScreen.columns.lastModified'),
        accessor: (knoc) => Date.parse(knoc.LastModifiedAt),
        sortable: true,
        render: (knoc) => <KnocLastModified knoc={knoc} />,
      },
    ],
    [t, view],
  );
}
