import type { AgentRecord, KnocRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import type { RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { FullPageLoader } from '@/components/FullPageLoader';
import { QueryState } from '@/components/QueryState';
import { agentsApi } from '@/features/agents/api';
import { useKnoc } from '@/features/knoc-wizard/api';
import { NoLicenceNotice, useKnocsLicensed } from '@/features/knoc-wizard/NoLicenceNotice';
import { WithMembersData } from '@/features/knoc-wizard/steps/with-members-data';
import { KnocUpdateForm } from '@/features/knoc-wizard/update/KnocUpdateForm';

/**
 * Update a knoc (`/admin/knocs/{knocId}/update`): its name as heading; without a licence, the
 * no-licence message. A passive+ firewall knoc (hidden, edited from its parent's row) is shown with
 * its parent: the parent's name, options and members.
 */
export default function KnocUpdatePage(_: RoutePageProps) {
  const { t } = useTranslation();
  const { knocId = '' } = useParams();
  const { known, licensed } = useKnocsLicensed();
  const knoc = useKnoc(knocId);
  const parentId = knoc.data?.ParentID ?? null;
  const parent = useKnoc(parentId === '' ? null : parentId);
  const agents = agentsApi.useList();
  const shown = parent.data ?? knoc.data;
  const title = shown === undefined ? t('route.knocUpdate') : t('knocWizard.update.heading', { name: shown.Name });
  if (known && !licensed) {
    return (
      <AdminPage title={t('route.knocUpdate')}>
        <NoLicenceNotice />
      </AdminPage>
    );
  }
  return (
    <AdminPage title={title}>
      {!known ? (
        <FullPageLoader />
      ) : (
        <QueryState {...knoc}>
          {(record) =>
            record.ParentID === null || record.ParentID === '' ? (
              <UpdateForm knoc={record} parent={null} agents={agents.data} />
            ) : (
              <QueryState {...parent}>
                {(parentRecord) => <UpdateForm knoc={record} parent={parentRecord} agents={agents.data} />}
              </QueryState>
            )
          }
        </QueryState>
      )}
    </AdminPage>
  );
}

/** The form once the knoc (and its parent, if any) and the members' lists are there. */
function UpdateForm({
  knoc,
  parent,
  agents,
}: {
  knoc: KnocRecord;
  parent: KnocRecord | null;
  agents: readonly AgentRecord[] | undefined;
}) {
  return (
    <WithMembersData>
      {(users, groups) => (
        <KnocUpdateForm
          knoc={knoc}
          parent={parent}
          agent={agents?.find((agent) => agent.ID === knoc.AgentID) ?? null}
          users={users}
          groups={groups}
        />
      )}
    </WithMembersData>
  );
}
