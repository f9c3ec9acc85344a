import { ActionIcon, Menu } from '@mantine/core';
import { IconDots, IconEye, IconKeyOff, IconPencil, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';

/** What a user row's menu can do. */
export interface UserRowActionsProps {
  user: UserRecord;
  onView: (user: UserRecord) => void;
  onEdit: (user: UserRecord) => void;
  onResetTotp: (user: UserRecord) => void;
  onDelete: (user: UserRecord) => void;
}

/**
 * A user row's actions (spec §2): view, edit, reset 2FA (only when the user has TOTP on) and delete.
 * Edit is left out for SAML users, who belong to their IdP (spec §5: SAML users cannot be edited).
 */
export function UserRowActions({ user, onView, onEdit, onResetTotp, onDelete }: UserRowActionsProps) {
  const { t } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={t('usersScreen.actions.menu', { name: user.Name })}>
          <IconDots size={18} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<IconEye size={16} aria-hidden />} onClick={() => onView(user)}>
          {t('usersScreen.actions.view')}
        </Menu.Item>
        {user.AuthType === 'SAML' ? null : (
          <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => onEdit(user)}>
            {t('usersScreen.actions.edit')}
          </Menu.Item>
        )}
        {user.TOTPEnabled ? (
          <Menu.Item leftSection={<IconKeyOff size={16} aria-hidden />} onClick={() => onResetTotp(user)}>
            {t('usersScreen.actions.resetTotp')}
          </Menu.Item>
        ) : null}
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => onDelete(user)}>
          {t('usersScreen.actions.delete')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
