import { Paper, Table, Text, Title } from '@mantine/core';
import type { AuditEntry } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '@/components/RelativeTime';

/** The action name and its details: an audit entry's `Entry` has exactly one key, the action. */
function describe(entry: AuditEntry) {
  const [action, detail] = Object.entries(entry.Entry)[0] ?? ['', {}];
  return { action, who: detail.UserName ?? detail.AdminName ?? '' };
}

/** The admin home's table of recent audit entries: who, when (relative) and what. */
export function RecentActivity({ entries }: { entries: readonly AuditEntry[] }) {
  const { t } = useTranslation();

  return (
    <Paper withBorder radius="md" p="md">
      <Title order={2} fz="h4" mb="sm" id="recent-activity-title">
        {t('adminHome.activity.title')}
      </Title>
      {entries.length === 0 ? (
        <Text c="dimmed">{t('adminHome.activity.empty')}</Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table striped highlightOnHover aria-labelledby="recent-activity-title">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('adminHome.activity.user')}</Table.Th>
                <Table.Th scope="col">{t('adminHome.activity.date')}</Table.Th>
                <Table.Th scope="col">{t('adminHome.activity.action')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((entry, index) => {
                const { action, who } = describe(entry);
                return (
                  // Entries have no id; date and position identify a row within one answer.
                  <Table.Tr key={`${entry.Date}-${index}`}>
                    <Table.Td>{who}</Table.Td>
                    <Table.Td>
                      <RelativeTime date={entry.Date} />
                    </Table.Td>
                    <Table.Td>{t(`audit.action.${action}`, { defaultValue: action })}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
