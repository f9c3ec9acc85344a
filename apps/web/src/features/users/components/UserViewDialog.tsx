import { Modal, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';
import type { UserActions } from '../use-user-actions';
import { UserDetailsPanel } from './UserDetailsPanel';
import { UserAclsPanel, UserGroupsPanel } from './UserMembershipPanels';
import { UserSessionsPanel } from './UserSessionsPanel';

/** Props of {@link UserViewDialog}. */
export interface UserViewDialogProps {
  user: UserRecord;
  actions: Pick<UserActions, 'askEndSession' | 'endingSessionId'>;
  onClose: () => void;
}

/**
 * A user's view dialog (spec §2): details, groups, ACLs and sessions, one tab each; a tab's data is
 * fetched when the tab is first shown.
 */
export function UserViewDialog({ user, actions, onClose }: UserViewDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('usersScreen.view.title', { name: user.Name })}
      size="lg"
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Tabs defaultValue="details" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="details">{t('usersScreen.view.details')}</Tabs.Tab>
          <Tabs.Tab value="groups">{t('usersScreen.view.groups')}</Tabs.Tab>
          <Tabs.Tab value="acls">{t('usersScreen.view.acls')}</Tabs.Tab>
          <Tabs.Tab value="sessions">{t('usersScreen.view.sessions')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="details">
          <UserDetailsPanel user={user} />
        </Tabs.Panel>
        <Tabs.Panel value="groups">
          <UserGroupsPanel userId={user.ID} />
        </Tabs.Panel>
        <Tabs.Panel value="acls">
          <UserAclsPanel userId={user.ID} />
        </Tabs.Panel>
        <Tabs.Panel value="sessions">
          <UserSessionsPanel userId={user.ID} actions={actions} />
        </Tabs.Panel>
      </Tabs>
    </Modal>
  );
}
