import { IconEye, IconFingerprintOff, IconKeyOff, IconPencil, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';
import { RowActionMenu, type RowMenuItem } from '@/components/RowActionMenu';
import { accountHasPasskeys } from '../../passkeys/passkey-accounts';

/** What a user row's menu can do. */
export interface UserRowActionsProps {
  user: UserRecord;
  onView: (user: UserRecord) => void;
  onEdit: (user: UserRecord) => void;
  onResetTotp: (user: UserRecord) => void;
  onRemovePasskeys: (user: UserRecord) => void;
  onDelete: (user: UserRecord) => void;
}

/**
 * A user row's actions (spec §2): view, edit, reset 2FA (only when the user has TOTP on), remove
 * passkeys (for the accounts that hold them: local and LDAP) and delete.
 * Edit is left out for SAML users, who belong to their IdP (spec §5: SAML users cannot be edited).
 */
export function UserRowActions({ user, onView, onEdit, onResetTotp, onRemovePasskeys, onDelete }: UserRowActionsProps) {
  const { t } = useTranslation();
  const items: RowMenuItem[] = [
    { label: t('usersScreen.actions.view'), icon: <IconEye size={16} aria-hidden />, onClick: () => onView(user) },
  ];
  if (user.AuthType !== 'SAML') {
    items.push({
      label: t('usersScreen.actions.edit'),
      icon: <IconPencil size={16} aria-hidden />,
      onClick: () => onEdit(user),
    });
  }
  if (user.TOTPEnabled) {
    items.push({
      label: t('usersScreen.actions.resetTotp'),
      icon: <IconKeyOff size={16} aria-hidden />,
      onClick: () => onResetTotp(user),
    });
  }
  if (accountHasPasskeys(user.AuthType)) {
    items.push({
      label: t('passkeyConsole.remove'),
      icon: <IconFingerprintOff size={16} aria-hidden />,
      onClick: () => onRemovePasskeys(user),
    });
  }
  items.push({
    label: t('usersScreen.actions.delete'),
    icon: <IconTrash size={16} aria-hidden />,
    onClick: () => onDelete(user),
    danger: true,
  });
  return <RowActionMenu label={t('usersScreen.actions.menu', { name: user.Name })} items={items} />;
}
