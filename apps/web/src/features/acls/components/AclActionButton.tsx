import { Button, Loader, Stack, Text } from '@mantine/core';
import type { AclEntry } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { useNow } from '../../../lib/time/use-now';
import { aclAction } from '../acl-view';
import { outlined, STATUS_COLOURS } from '../status-colours';

/** Props of {@link AclActionButton}. */
export interface AclActionButtonProps {
  acl: AclEntry;
  onGrant: (acl: AclEntry) => void;
  onRevoke: (acl: AclEntry) => void;
  /** This ACL's grant or revoke call is on its way. */
  busy: boolean;
  /** Stretch to the width of the card (phones). */
  fullWidth?: boolean;
}

/**
 * The ACL's one button (spec §2, §4): Grant Access when ready, Revoke Access while a grant is issued
 * or running, Pending (which does nothing) while the agent works on it, and a disabled button for a
 * rule the user may not use here ('Disabled', with the advice to consult the administrator) or whose
 * agent is offline.
 */
export function AclActionButton({ acl, onGrant, onRevoke, busy, fullWidth = false }: AclActionButtonProps) {
  const { t } = useTranslation();
  const action = aclAction(acl, useNow(1_000));
  const common = { fullWidth, size: 'sm', miw: 132 } as const;

  switch (action) {
    case 'disabled':
      return (
        <Stack gap={4} align={fullWidth ? 'stretch' : 'flex-start'}>
          <Button {...common} disabled>
            {t('acl.disabled')}
          </Button>
          <Text size="xs" c="dimmed">
            {t('acl.consultAdministrator')}
          </Text>
        </Stack>
      );
    case 'offline':
      return (
        <Button {...common} disabled>
          {t('acl.grant')}
        </Button>
      );
    case 'pending':
      return (
        <Button {...common} variant="light" disabled leftSection={<Loader size={14} aria-hidden />}>
          {t('acl.pending')}
        </Button>
      );
    case 'revoke':
      return (
        <Button
          {...common}
          variant="outline"
          style={outlined(STATUS_COLOURS.danger)}
          loading={busy}
          onClick={() => onRevoke(acl)}
        >
          {t('acl.revoke')}
        </Button>
      );
    default:
      return (
        <Button {...common} loading={busy} onClick={() => onGrant(acl)}>
          {t('acl.grant')}
        </Button>
      );
  }
}
