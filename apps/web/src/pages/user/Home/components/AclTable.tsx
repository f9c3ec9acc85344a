import { Group, Stack, Table, Text } from '@mantine/core';
import type { AclEntry } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { browsableUrl } from '../../../../features/acls/acl-view';
import { AclActionButton } from '../../../../features/acls/components/AclActionButton';
import { AclStatusBadge } from '../../../../features/acls/components/AclStatusBadge';
import type { AclActions } from '../../../../features/acls/use-acl-actions';
import { statusNameKey } from '../../../../features/acls/status-names';

/** Props of {@link AclTable}. */
export interface AclTableProps {
  acls: readonly AclEntry[];
  actions: AclActions;
}

/** The older home's table of ACLs (spec §2): description, status, actions. */
export function AclTable({ acls, actions }: AclTableProps) {
  const { t } = useTranslation();
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table verticalSpacing="sm" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('home.columns.description')}</Table.Th>
            <Table.Th>{t('home.columns.status')}</Table.Th>
            <Table.Th>{t('home.columns.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {acls.map((acl) => {
            const url = browsableUrl(acl.URL);
            return (
              <Table.Tr key={acl.ACLID}>
                <Table.Td>
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {acl.Description}
                  </Text>
                  {url === null ? null : (
                    <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                      {url}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Stack gap={4} align="flex-start">
                    <Text size="sm">{t(statusNameKey(acl.Status))}</Text>
                    <AclStatusBadge acl={acl} />
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    <AclActionButton
                      acl={acl}
                      busy={actions.busy(acl.ACLID)}
                      onGrant={actions.grant}
                      onRevoke={actions.revoke}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
