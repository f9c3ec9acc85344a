import { Box, Group, Stack, Table } from '@mantine/core';
import type { AclEntry } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { AclActionButton } from '../../../../features/acls/components/AclActionButton';
import { AclIcon } from '../../../../features/acls/components/AclIcon';
import { AclStatusBadge } from '../../../../features/acls/components/AclStatusBadge';
import { FavouriteToggle } from '../../../../features/acls/components/FavouriteToggle';
import { AclRefusalAlert } from '../../../../features/user-portal/components/AclRefusalAlert';
import type { AclRowProps } from './acl-row-props';
import { AclName } from './AclName';

/** Props of {@link ListView}. */
export interface ListViewProps extends Omit<AclRowProps, 'acl' | 'favourite'> {
  acls: readonly AclEntry[];
  favourites: ReadonlySet<string>;
  categoryLabel: (category: string) => string;
}

/**
 * The list view (spec §2): one table with the columns Favourite, Category, System and Access. On a
 * narrow screen the table scrolls sideways inside its own box, never the page.
 */
export function ListView({ acls, favourites, categoryLabel, actions, onToggleFavourite, onOpen }: ListViewProps) {
  const { t } = useTranslation();
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={1}>{t('home.columns.favourite')}</Table.Th>
            <Table.Th>{t('home.columns.category')}</Table.Th>
            <Table.Th>{t('home.columns.system')}</Table.Th>
            <Table.Th>{t('home.columns.access')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {acls.map((acl) => (
            <Table.Tr key={acl.ACLID}>
              <Table.Td>
                <FavouriteToggle
                  name={acl.Description}
                  favourite={favourites.has(acl.ACLID)}
                  onToggle={() => onToggleFavourite(acl.ACLID)}
                />
              </Table.Td>
              <Table.Td>{categoryLabel(acl.Category)}</Table.Td>
              <Table.Td>
                <Group gap="sm" wrap="nowrap">
                  <AclIcon name={acl.Icon} size={28} />
                  <Box miw={0}>
                    <AclName acl={acl} onOpen={onOpen} />
                  </Box>
                </Group>
              </Table.Td>
              <Table.Td>
                <Stack gap="xs">
                  <Group gap="sm" wrap="wrap">
                    <AclStatusBadge acl={acl} />
                    <AclActionButton
                      acl={acl}
                      busy={actions.busy(acl.ACLID)}
                      onGrant={actions.grant}
                      onRevoke={actions.revoke}
                    />
                  </Group>
                  <AclRefusalAlert acl={acl} actions={actions} />
                </Stack>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
