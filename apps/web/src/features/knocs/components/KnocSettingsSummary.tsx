import type { ReactNode } from 'react';
import { Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { NO_AGENT_ID, type KnocRecord } from '@postern/protocol';
import { useKnocTypeLabel } from './use-knoc-labels';
import { KnocDetails } from './KnocDetails';
import { KnocLastModified } from './KnocLastModified';

/** The detail dialog's summary of a knoc's settings, as a two-column table. */
export function KnocSettingsSummary({ knoc }: { knoc: KnocRecord }) {
  const { t } = useTranslation();
  const typeLabel = useKnocTypeLabel();
  const yesNo = (value: boolean) => (value ? t('knocsScreen.detail.yes') : t('knocsScreen.detail.no'));
  const minutes = knoc.MaximumGrantDuration / 60;
  const rows: [string, ReactNode][] = [
    [t('knocsScreen.detail.type'), typeLabel(knoc.BackendType)],
    [t('knocsScreen.columns.details'), <KnocDetails knoc={knoc} />],
    [t('knocsScreen.detail.backend'), knoc.BackendName],
    [t('knocsScreen.columns.agent'), knoc.AgentID === NO_AGENT_ID ? t('knocsScreen.detail.noAgent') : knoc.AgentName],
    [t('knocsScreen.columns.users'), knoc.UserCount],
    [t('knocsScreen.columns.groups'), knoc.GroupCount],
    [t('knocsScreen.detail.url'), knoc.URL === '' ? '—' : knoc.URL],
    [t('knocsScreen.detail.category'), knoc.Category],
    [t('knocsScreen.detail.clickToGrant'), yesNo(knoc.ClickToGrant)],
    [t('knocsScreen.detail.hideFromUsers'), yesNo(knoc.HideFromUsers)],
    [t('knocsScreen.detail.autoBrowseUsers'), yesNo(knoc.AutoBrowseUsers)],
    [
      t('knocsScreen.detail.maximumGrantDuration'),
      minutes === 0 ? t('knocsScreen.detail.noMaximum') : t('knocsScreen.detail.minutes', { count: minutes }),
    ],
    [t('knocsScreen.detail.ipRestriction'), t(`knocsScreen.restrictions.${knoc.IpExclusions.RestrictionType}`)],
    [
      t('knocsScreen.detail.grantType'),
      knoc.GrantType.Type === 'userIp'
        ? t('knocsScreen.detail.userIp')
        : knoc.GrantType.Ips.map((entry) => entry.Ip).join(', '),
    ],
    [t('knocsScreen.columns.lastModified'), <KnocLastModified knoc={knoc} />],
  ];
  return (
    <Table variant="vertical" withTableBorder aria-label={t('knocsScreen.detail.settings')}>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w="40%">{label}</Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
