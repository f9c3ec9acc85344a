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

/** Update a knoc (`/admin/knocs/{knocId}/update`): its name as heading; without a licence, the no-licence message. */
export default function KnocUpdatePage(_: RoutePageProps) {
  const { t } = useTranslation();
  const { knocId = '' } = useParams();
  const { known, licensed } = useKnocsLicensed();
  const knoc = useKnoc(knocId);
  const agents = agentsApi.useList();
  const title =
    knoc.data === undefined ? t('route.knocUpdate') : t('knocWizard.update.heading', { name: knoc.data.Name });
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
          {(record) => (
            <WithMembersData>
              {(users, groups) => (
                <KnocUpdateForm
                  knoc={record}
                  agent={agents.data?.find((agent) => agent.ID === record.AgentID) ?? null}
                  users={users}
                  groups={groups}
                />
              )}
            </WithMembersData>
          )}
        </QueryState>
      )}
    </AdminPage>
  );
}
