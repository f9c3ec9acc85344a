import { useId } from 'react';
import { Box, Card, Group, Stack, Text } from '@mantine/core';
import { GrantStatus } from '@postern/protocol';
import { AclActionButton } from '../../../../features/acls/components/AclActionButton';
import { AclIcon } from '../../../../features/acls/components/AclIcon';
import { AclStatusBadge } from '../../../../features/acls/components/AclStatusBadge';
import { FavouriteToggle } from '../../../../features/acls/components/FavouriteToggle';
import { AclRefusalAlert } from '../../../../features/user-portal/components/AclRefusalAlert';
import type { AclRowProps } from './acl-row-props';
import { AclName, aclHost } from './AclName';

/**
 * One ACL in the card view: icon, name (a link to the system), favourite star, badge and button.
 * An ACL whose agent is offline is shown dimmed, its button disabled; a refused call stays on the
 * card, above the button, until dismissed.
 */
export function AclCard({ acl, favourite, actions, onToggleFavourite, onOpen }: AclRowProps) {
  const titleId = useId();
  const host = aclHost(acl);
  const offline = acl.Status === GrantStatus.AgentOffline;
  return (
    <Card component="article" withBorder radius="md" padding="md" aria-labelledby={titleId} opacity={offline ? 0.7 : 1}>
      <Stack gap="sm" h="100%" justify="space-between">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
          <Group gap="sm" wrap="nowrap" miw={0} align="flex-start">
            <AclIcon name={acl.Icon} />
            <Box miw={0}>
              <AclName acl={acl} id={titleId} onOpen={onOpen} />
              {host === null ? null : (
                <Text size="xs" c="dimmed" truncate="end">
                  {host}
                </Text>
              )}
            </Box>
          </Group>
          <FavouriteToggle name={acl.Description} favourite={favourite} onToggle={() => onToggleFavourite(acl.ACLID)} />
        </Group>
        <AclRefusalAlert acl={acl} actions={actions} />
        <Group justify="space-between" align="center" gap="xs" wrap="wrap">
          <AclStatusBadge acl={acl} />
          <Box ml="auto" w={{ base: '100%', xs: 'auto' }}>
            <AclActionButton
              acl={acl}
              busy={actions.busy(acl.ACLID)}
              onGrant={actions.grant}
              onRevoke={actions.revoke}
              fullWidth
            />
          </Box>
        </Group>
      </Stack>
    </Card>
  );
}
