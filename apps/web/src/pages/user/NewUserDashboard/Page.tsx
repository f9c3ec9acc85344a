import { useCallback, useMemo, useState } from 'react';
import { Container, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { ChangePasswordButton } from '../../../features/account/components/ChangePasswordButton';
import { PasskeysButton } from '../../../features/passkeys/components/PasskeysButton';
import { accountHasPasskeys } from '../../../features/passkeys/passkey-accounts';
import { isDefaultCategory, visibleAcls } from '../../../features/acls/acl-view';
import {
  byDescription,
  dashboardSections,
  matchesSearch,
  searchOffered,
} from '../../../features/acls/dashboard-sections';
import { useDashboardPreferences } from '../../../features/acls/preferences';
import { useAclActions } from '../../../features/acls/use-acl-actions';
import { useThemeSettings } from '../../../features/status/api';
import { useAutoBrowse } from '../../../features/user-portal/auto-browse';
import { AccountExpiry } from '../../../features/user-portal/components/AccountExpiry';
import { CurrentAddress } from '../../../features/user-portal/components/CurrentAddress';
import { LogoutButton } from '../../../features/user-portal/components/LogoutButton';
import { PortalHeader } from '../../../features/user-portal/components/PortalHeader';
import { SessionCountdown } from '../../../features/user-portal/components/SessionCountdown';
import { UnlicensedNotice } from '../../../features/user-portal/components/UnlicensedNotice';
import { useUserPortal } from '../../../features/user-portal/use-user-portal';
import { ColorSchemeToggle } from '../../../theme/ColorSchemeToggle';
import { LanguageSwitch } from '../../../features/account/components/LanguageSwitch';
import { CardView } from './components/CardView';
import { HideTimerButton, ViewToggle } from './components/DashboardControls';
import { ListView } from './components/ListView';

/**
 * /home/new, the dashboard (spec §2): header with countdown and controls; the ACLs as cards in
 * sections (Favourites, Top, one per category) or as a list, under the person's current address;
 * search above 10 ACLs; grant and revoke with the spec's polling, a refusal kept on its ACL;
 * single-ACL auto-browse; the unlicensed page instead of ACLs.
 */
export default function NewUserDashboardPage() {
  const { t } = useTranslation();
  const portal = useUserPortal('dashboard');
  const { data, session, status } = portal;
  const userName = data?.UserName ?? session?.UserName ?? '';
  const prefs = useDashboardPreferences(userName);
  const { countUse } = prefs;
  const theme = useThemeSettings().data;
  const highAccessibility = theme?.HighAccessibility ?? false;
  const [query, setQuery] = useState('');

  const actions = useAclActions({
    follow: portal.polling.follow,
    discoveredIps: portal.discoveredIps,
    dualStackIps: portal.dualStackIps,
    onGranted: countUse,
    refusalsInPlace: true,
  });
  useAutoBrowse(data?.ACLs, portal.licensed && !portal.leaving);

  const acls = useMemo(() => visibleAcls(data?.ACLs ?? []), [data?.ACLs]);
  const categoryLabel = useCallback(
    (category: string) => (isDefaultCategory(category) ? t('home.sections.other') : category),
    [t],
  );
  const withSearch = searchOffered(acls.length);
  const searching = withSearch && query.trim() !== '';
  const shown = useMemo(
    () => (searching ? acls.filter((acl) => matchesSearch(acl, query, categoryLabel)) : acls),
    [acls, categoryLabel, query, searching],
  );
  const favourites = useMemo(() => new Set(prefs.favourites), [prefs.favourites]);
  const sections = useMemo(
    () => dashboardSections(acls, shown, prefs.favourites, prefs.usage, searching),
    [acls, shown, prefs.favourites, prefs.usage, searching],
  );
  const listed = useMemo(() => [...shown].sort(byDescription), [shown]);

  const name = data?.Name ?? session?.Name ?? '';
  const ends = data?.Ends ?? session?.Ends;
  const authType = data?.AuthType ?? session?.AuthType;
  const local = authType === 'local';
  const names = useMemo(() => [name, userName], [name, userName]);
  const timerHidden = highAccessibility && prefs.timerHidden;

  const rowProps = { actions, favourites, categoryLabel, onToggleFavourite: prefs.toggleFavourite, onOpen: countUse };

  return (
    <>
      <PortalHeader
        name={name}
        subtitle={
          data?.ValidUntil === null || data?.ValidUntil === undefined ? undefined : (
            <AccountExpiry validUntil={data.ValidUntil} />
          )
        }
        timer={ends === undefined || timerHidden ? undefined : <SessionCountdown ends={ends} />}
      >
        {portal.licensed && acls.length > 0 ? <ViewToggle view={prefs.view} onChange={prefs.setView} /> : null}
        {highAccessibility ? (
          <HideTimerButton hidden={prefs.timerHidden} onToggle={() => prefs.setTimerHidden((hidden) => !hidden)} />
        ) : null}
        <LanguageSwitch area="user" saved={data?.Language} />
        <ColorSchemeToggle />
        {local ? <ChangePasswordButton names={names} /> : null}
        {accountHasPasskeys(authType) ? <PasskeysButton realm="user" /> : null}
        <LogoutButton />
      </PortalHeader>
      <Container size="xl" component="main" py="lg">
        <QueryState data={data} isError={status.isError} error={status.error}>
          {(current) =>
            !portal.licensed ? (
              <UnlicensedNotice systemLicensed={current.Licensed} />
            ) : (
              <Stack gap="lg">
                <CurrentAddress address={current.CurrentAddress} otherAddress={portal.otherAddress} />
                {withSearch ? (
                  <TextInput
                    type="search"
                    aria-label={t('home.search.label')}
                    placeholder={t('home.search.placeholder')}
                    leftSection={<IconSearch size={16} aria-hidden />}
                    value={query}
                    onChange={(event) => setQuery(event.currentTarget.value)}
                    maw={{ sm: 420 }}
                  />
                ) : null}
                {acls.length === 0 ? (
                  <Text c="dimmed">{t('home.noAcls')}</Text>
                ) : shown.length === 0 ? (
                  <Text c="dimmed" role="status">
                    {t('home.noMatches')}
                  </Text>
                ) : prefs.view === 'list' ? (
                  <ListView acls={listed} {...rowProps} />
                ) : (
                  <CardView sections={sections} {...rowProps} />
                )}
              </Stack>
            )
          }
        </QueryState>
      </Container>
    </>
  );
}
