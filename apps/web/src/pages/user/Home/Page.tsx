import { useMemo } from 'react';
import { Container, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { ChangePasswordButton } from '../../../features/account/components/ChangePasswordButton';
import { PasskeysButton } from '../../../features/passkeys/components/PasskeysButton';
import { accountHasPasskeys } from '../../../features/passkeys/passkey-accounts';
import { visibleAcls } from '../../../features/acls/acl-view';
import { byDescription } from '../../../features/acls/dashboard-sections';
import { useAclActions } from '../../../features/acls/use-acl-actions';
import { CurrentAddress } from '../../../features/user-portal/components/CurrentAddress';
import { LogoutButton } from '../../../features/user-portal/components/LogoutButton';
import { PortalHeader } from '../../../features/user-portal/components/PortalHeader';
import { SessionCountdown } from '../../../features/user-portal/components/SessionCountdown';
import { unlicensedKeys } from '../../../features/user-portal/components/UnlicensedNotice';
import { useUserPortal } from '../../../features/user-portal/use-user-portal';
import { ColorSchemeToggle } from '../../../theme/ColorSchemeToggle';
import { LanguageSwitch } from '../../../features/account/components/LanguageSwitch';
import { AclTable } from './components/AclTable';

/**
 * /home, the older home (spec §2): greeting, session countdown, the current IP address with the note
 * that the open page revalidates it every 30 seconds, and the ACL table. When the system (or this
 * user) is unlicensed, a dialog that only offers to log out covers the page.
 */
export default function HomePage() {
  const { t } = useTranslation();
  const portal = useUserPortal('home');
  const { data, session, status } = portal;
  const actions = useAclActions({
    follow: portal.polling.follow,
    discoveredIps: portal.discoveredIps,
    dualStackIps: portal.dualStackIps,
  });
  const acls = useMemo(() => visibleAcls(data?.ACLs ?? []).sort(byDescription), [data?.ACLs]);

  const name = data?.Name ?? session?.Name ?? '';
  const userName = data?.UserName ?? session?.UserName ?? '';
  const ends = data?.Ends ?? session?.Ends;
  const authType = data?.AuthType ?? session?.AuthType;
  const local = authType === 'local';
  const names = useMemo(() => [name, userName], [name, userName]);
  const unlicensed = data === undefined || portal.licensed ? null : unlicensedKeys(data.Licensed);

  return (
    <>
      <PortalHeader name={name} timer={ends === undefined ? undefined : <SessionCountdown ends={ends} />}>
        <LanguageSwitch area="user" saved={data?.Language} />
        <ColorSchemeToggle />
        {local ? <ChangePasswordButton names={names} /> : null}
        {accountHasPasskeys(authType) ? <PasskeysButton realm="user" /> : null}
        <LogoutButton />
      </PortalHeader>
      <Container size="lg" component="main" py="lg">
        <QueryState data={data} isError={status.isError} error={status.error}>
          {(current) => (
            <Stack gap="lg">
              <CurrentAddress address={current.CurrentAddress} otherAddress={portal.otherAddress} />
              {unlicensed !== null ? null : acls.length === 0 ? (
                <Text c="dimmed">{t('home.noAcls')}</Text>
              ) : (
                <AclTable acls={acls} actions={actions} />
              )}
            </Stack>
          )}
        </QueryState>
      </Container>
      <Modal
        opened={unlicensed !== null}
        onClose={() => undefined}
        withCloseButton={false}
        closeOnClickOutside={false}
        closeOnEscape={false}
        centered
        title={unlicensed === null ? '' : t(unlicensed.title)}
      >
        <Stack>
          <Text>{unlicensed === null ? '' : t(unlicensed.text)}</Text>
          <Group justify="flex-end">
            <LogoutButton variant="filled" />
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
