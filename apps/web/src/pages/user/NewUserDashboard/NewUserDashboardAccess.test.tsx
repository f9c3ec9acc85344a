import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { GrantStatus, type AclEntry } from '@postern/protocol';
import { STATUS_COLOURS } from '../../../features/acls/status-colours';
import i18n from '../../../i18n/i18n';
import { AUTO_BROWSED_STORAGE_KEY } from '../../../features/user-portal/auto-browse';
import { browserLocation } from '../../../lib/navigation/browser-location';
import { installFakeApi } from '../../../test-support/fake-api';
import { aclEntry, signInUser, userSession, userStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';
import { openDashboard } from '@/test-support/screens/new-user-dashboard';

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** Stands in for the full-page navigation jsdom cannot do. */
function spyOnNavigation() {
  return vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
}

/** The card of the ACL called `name`. */
function card(name: string): HTMLElement {
  return screen.getByRole('article', { name });
}

describe('NewUserDashboard buttons and badges', () => {
  it('offers Grant Access on a ready ACL and Revoke Access with the time left on a granted one', async () => {
    openDashboard([
      aclEntry({ ACLID: 'a', Description: 'Ready one', Status: GrantStatus.Created }),
      aclEntry({
        ACLID: 'b',
        Description: 'Granted one',
        Status: GrantStatus.Granted,
        ExpiredAfter: inSeconds(2 * 3600 + 60),
      }),
    ]);
    await screen.findByText('Ready one');
    expect(within(card('Ready one')).getByRole('button', { name: 'Grant Access' })).toBeEnabled();
    const granted = card('Granted one');
    expect(within(granted).getByRole('button', { name: 'Revoke Access' })).toBeEnabled();
    expect(within(granted).getByText('Access for 2 hours')).not.toHaveAttribute('data-warning', 'true');
  });

  it('turns the access badge orange under 900 seconds', async () => {
    openDashboard([
      aclEntry({ ACLID: 'a', Description: 'Almost over', Status: GrantStatus.Published, ExpiredAfter: inSeconds(600) }),
      aclEntry({
        ACLID: 'b',
        Description: 'Plenty left',
        Status: GrantStatus.Published,
        ExpiredAfter: inSeconds(1200),
      }),
    ]);
    await screen.findByText('Almost over');
    const warning = within(card('Almost over')).getByText('Access for 10 minutes').closest('[data-warning]');
    expect(warning).toHaveAttribute('data-warning', 'true');
    expect(warning?.getAttribute('style')).toContain(STATUS_COLOURS.warning);
    const calm = within(card('Plenty left')).getByText('Access for 20 minutes').closest('[data-warning]');
    expect(calm).toHaveAttribute('data-warning', 'false');
    expect(calm?.getAttribute('style')).toContain(STATUS_COLOURS.access);
  });

  it('shows Pending, which does nothing, while the agent works', async () => {
    const { api } = openDashboard([aclEntry({ Description: 'Working on it', Status: GrantStatus.Pending })]);
    const pending = await screen.findByRole('button', { name: 'Pending' });
    expect(pending).toBeDisabled();
    expect(api.calls('POST /api/grant')).toHaveLength(0);
  });

  it('shows Disabled and the advice to consult the administrator for DisableForUser', async () => {
    openDashboard([aclEntry({ Description: 'Not from here', DisableForUser: true })]);
    const disabled = await screen.findByRole('button', { name: 'Disabled' });
    expect(disabled).toBeDisabled();
    expect(within(card('Not from here')).getByText('Consult your administrator for details')).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Grant Access' })).not.toBeInTheDocument();
  });

  it('disables an ACL whose agent is offline', async () => {
    openDashboard([aclEntry({ Description: 'Far away', Status: GrantStatus.AgentOffline })]);
    await screen.findByText('Far away');
    expect(within(card('Far away')).getByRole('button', { name: 'Grant Access' })).toBeDisabled();
    expect(within(card('Far away')).getByText('Agent offline')).toBeVisible();
  });

  it('shows the error of a failed grant and lets it be tried again', async () => {
    openDashboard([aclEntry({ Description: 'Broken', Status: GrantStatus.GrantError, Error: 'err.agentOffline' })]);
    await screen.findByText('Broken');
    expect(within(card('Broken')).getByText('Error: The agent for this system is offline')).toBeVisible();
    expect(within(card('Broken')).getByRole('button', { name: 'Grant Access' })).toBeEnabled();
  });
});

describe('NewUserDashboard address', () => {
  it('shows the address grants open, as the older home does', async () => {
    openDashboard([aclEntry()], { status: { CurrentAddress: '203.0.113.7' } });
    expect(await screen.findByText('203.0.113.7')).toBeVisible();
    expect(screen.getByText('Your IP address')).toBeVisible();
    expect(screen.getByText('Leaving this page open validates your IP every 30 seconds')).toBeVisible();
  });
});

describe('NewUserDashboard grant and revoke', () => {
  /** A status server whose one ACL the grant and revoke calls change. */
  function server(initial: Partial<AclEntry>) {
    let acl = aclEntry({ ACLID: 'k1', Description: 'Protected service', ...initial });
    const statusAnswer = () => ({ body: { data: userStatus({ NewUserDashboard: true, ACLs: [acl] }) } });
    return {
      set: (change: Partial<AclEntry>) => {
        acl = { ...acl, ...change };
      },
      routes: (onGrant: () => Partial<AclEntry>, onRevoke: () => Partial<AclEntry>) => ({
        'GET /api/status': statusAnswer,
        'POST /api/grant': () => {
          acl = { ...acl, ...onGrant() };
          return { body: { data: acl } };
        },
        'DELETE /api/sessions/current/granted-acls/k1': () => {
          acl = { ...acl, ...onRevoke() };
          return { body: { data: acl } };
        },
      }),
    };
  }

  it('grants, follows the Pending status until access is on, then revokes until ready again', async () => {
    const fake = server({ Status: GrantStatus.Created });
    const ends = inSeconds(8 * 3600);
    const { api, user } = openDashboard([], {
      routes: fake.routes(
        () => ({ Status: GrantStatus.Pending, ExpiredAfter: ends }),
        () => ({ Status: GrantStatus.Revoking, ExpiredAfter: null }),
      ),
    });
    await user.click(await screen.findByRole('button', { name: 'Grant Access' }));
    expect(await screen.findByRole('button', { name: 'Pending' })).toBeDisabled();
    expect(api.calls('POST /api/grant')[0]?.body).toEqual({ ACLID: 'k1', IPs: [] });
    const statusCallsAfterGrant = api.calls('GET /api/status').length;
    // The agent applies it; the back-off poll (1 s after the immediate refetch) picks it up.
    fake.set({ Status: GrantStatus.Granted });
    const revoke = await screen.findByRole('button', { name: 'Revoke Access' }, { timeout: 3_000 });
    expect(api.calls('GET /api/status').length).toBeGreaterThan(statusCallsAfterGrant);
    expect(within(card('Protected service')).getByText('Access for 8 hours')).toBeVisible();

    await user.click(revoke);
    await waitFor(() => expect(api.calls('DELETE /api/sessions/current/granted-acls/k1')).toHaveLength(1));
    fake.set({ Status: GrantStatus.Revoked });
    expect(await screen.findByRole('button', { name: 'Grant Access' }, { timeout: 3_000 })).toBeEnabled();
    expect(screen.queryByText(/^Access for/)).not.toBeInTheDocument();
  });

  it('keeps a refused grant’s reason on the card, not in a fading notification, until dismissed', async () => {
    const { user } = openDashboard([aclEntry({ ACLID: 'k1', Description: 'Protected service' })], {
      routes: { 'POST /api/grant': { status: 409, body: { Err: 'err.agentOffline' } } },
    });
    await user.click(await screen.findByRole('button', { name: 'Grant Access' }));
    const alert = await within(card('Protected service')).findByRole('alert');
    expect(alert).toHaveTextContent('Access to Protected service was not granted');
    expect(alert).toHaveTextContent('The agent for this system is offline');
    // Only on the card: no notification says it a second time (and then fades).
    expect(screen.getAllByText('Access to Protected service was not granted')).toHaveLength(1);
    expect(within(card('Protected service')).getByRole('button', { name: 'Grant Access' })).toBeEnabled();

    await user.click(within(alert).getByRole('button', { name: 'Dismiss the message about Protected service' }));
    await waitFor(() => expect(within(card('Protected service')).queryByRole('alert')).not.toBeInTheDocument());
  });

  it('clears a refusal from the card with the next successful grant', async () => {
    let refuse = true;
    const acl = aclEntry({ ACLID: 'k1', Description: 'Protected service' });
    const { user } = openDashboard([acl], {
      routes: {
        'POST /api/grant': () =>
          refuse
            ? { status: 403, body: { Err: 'err.unauthorised' } }
            : { body: { data: { ...acl, Status: GrantStatus.Pending } } },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Grant Access' }));
    expect(await within(card('Protected service')).findByRole('alert')).toHaveTextContent(
      'Access to Protected service was not granted',
    );
    refuse = false;
    await user.click(within(card('Protected service')).getByRole('button', { name: 'Grant Access' }));
    await waitFor(() => expect(within(card('Protected service')).queryByRole('alert')).not.toBeInTheDocument());
  });

  it('keeps the refusal in the list view too, translated', async () => {
    await i18n.changeLanguage('de');
    const { user } = openDashboard([aclEntry({ ACLID: 'k1', Description: 'Protected service' })], {
      routes: { 'POST /api/grant': { status: 409, body: { Err: 'err.agentOffline' } } },
    });
    await user.click(await screen.findByRole('radio', { name: 'Liste' }));
    await user.click(await screen.findByRole('button', { name: 'Zugriff gewähren' }));
    const alert = await within(screen.getByRole('table')).findByRole('alert');
    expect(alert).toHaveTextContent('Zugriff auf Protected service wurde nicht gewährt');
    expect(alert).toHaveTextContent(i18n.t('err.agentOffline'));
    expect(within(alert).getByRole('button', { name: 'Meldung zu Protected service schließen' })).toBeVisible();
  });

  it('polls every second while an ACL is on its way', async () => {
    const { api } = openDashboard([aclEntry({ Status: GrantStatus.Pending })]);
    await screen.findByRole('button', { name: 'Pending' });
    const first = api.calls('GET /api/status').length;
    await waitFor(() => expect(api.calls('GET /api/status').length).toBeGreaterThanOrEqual(first + 2), {
      timeout: 3_500,
    });
  });

  it('sends the addresses IP discovery found, with their attestations, and posts them to /api/log_ips', async () => {
    const { api, user } = openDashboard([aclEntry({ ACLID: 'k1', CGNATOpen: true })], {
      routes: {
        'GET /api/system_status': {
          body: {
            data: {
              IPApi: 'http://ip.example.test',
              JsBundleHash: 'build-1',
              UserSAMLConfigured: false,
              AdminSAMLConfigured: false,
            },
          },
        },
        // The discovery host (every port answers the same address and token here).
        'GET /': {
          body: { IP: '198.51.100.7', Attestation: 'v1.1.signed' },
          headers: { 'access-control-allow-origin': '*' },
        },
        'POST /api/log_ips': { body: { data: null } },
        'POST /api/grant': { body: { data: aclEntry({ ACLID: 'k1', Status: GrantStatus.Pending }) } },
      },
    });
    await waitFor(() => expect(api.calls('POST /api/log_ips')).toHaveLength(1));
    const expected = [443, 222, 3389, 8000].map((Port) => ({ Port, IP: '198.51.100.7', Attestation: 'v1.1.signed' }));
    expect(api.calls('POST /api/log_ips')[0]?.body).toEqual({ IPs: expected });
    await user.click(screen.getByRole('button', { name: 'Grant Access' }));
    await waitFor(() => expect(api.calls('POST /api/grant')[0]?.body).toEqual({ ACLID: 'k1', IPs: expected }));
  });

  it('on a dual-stack network shows both addresses, and one grant sends the IPv4-only and IPv6-only answers', async () => {
    const v4 = { IP: '203.0.113.7', Attestation: 'v1.1.signed-v4' };
    const v6 = { IP: '2001:db8::7', Attestation: 'v1.1.signed-v6' };
    const cors = { 'access-control-allow-origin': '*' };
    const { api, user } = openDashboard([aclEntry({ ACLID: 'k1', CGNATOpen: false })], {
      status: { CurrentAddress: '203.0.113.7' },
      routes: {
        'GET /api/system_status': {
          body: {
            data: {
              IPApi: '',
              IPv4Api: 'http://v4.ip.example.test/v4',
              IPv6Api: 'http://v6.ip.example.test/v6',
              JsBundleHash: 'build-1',
              UserSAMLConfigured: false,
              AdminSAMLConfigured: false,
            },
          },
        },
        // Each name answers on every port; the first port's answer (443) is the one sent.
        'GET /v4': { body: v4, headers: cors },
        'GET /v6': { body: v6, headers: cors },
        'POST /api/grant': { body: { data: aclEntry({ ACLID: 'k1', Status: GrantStatus.Pending }) } },
      },
    });
    expect(await screen.findByText('2001:db8::7')).toBeVisible();
    expect(screen.getByText('Your IP addresses')).toBeVisible();
    expect(screen.getByText('203.0.113.7')).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Grant Access' }));
    await waitFor(() =>
      expect(api.calls('POST /api/grant')[0]?.body).toEqual({
        ACLID: 'k1',
        IPs: [],
        DualStackIPs: [
          { Port: 443, ...v4 },
          { Port: 443, ...v6 },
        ],
      }),
    );
    // No IPApi: nothing for the CGNAT log.
    expect(api.calls('POST /api/log_ips')).toHaveLength(0);
  });

  it('does no IP discovery when IPApi is empty', async () => {
    const { api } = openDashboard([aclEntry()]);
    await screen.findByText('Billing database');
    await waitFor(() => expect(api.calls('GET /api/system_status').length).toBeGreaterThan(0));
    expect(api.calls('GET /')).toHaveLength(0);
    expect(api.calls('POST /api/log_ips')).toHaveLength(0);
  });
});

describe('NewUserDashboard session end', () => {
  it('refetches the status when the countdown reaches zero and goes to Login when the session has ended', async () => {
    let ended = false;
    installFakeApi({
      'GET /api/status': () =>
        ended
          ? { status: 401, body: { Err: 'err.invalidSession' } }
          : { body: { data: userStatus({ NewUserDashboard: true, Ends: inSeconds(1.2), ACLs: [aclEntry()] }) } },
    });
    signInUser({ NewUserDashboard: true });
    renderApp('/home/new');
    await screen.findByText('Billing database');
    ended = true;
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'), { timeout: 3_000 });
    expect(await screen.findByText('Error: Your session has expired, log in again')).toBeVisible();
  });
});

describe('NewUserDashboard auto-browse', () => {
  const autoBrowse = (overrides: Partial<AclEntry> = {}) =>
    aclEntry({
      ACLID: 'app',
      Description: 'The app',
      AutoBrowseUsers: true,
      URL: 'https://app.example.com/login',
      Config: { UriToken: 'tok-123' },
      Status: GrantStatus.Granted,
      ...overrides,
    });

  it('browses to the single auto-browse ACL with its knoctoken, once per tab', async () => {
    const navigation = spyOnNavigation();
    const { unmount } = openDashboard([autoBrowse(), aclEntry({ ACLID: 'other', Description: 'Other system' })]);
    await waitFor(() => expect(navigation).toHaveBeenCalledWith('https://app.example.com/login?knoctoken=tok-123'));
    expect(window.sessionStorage.getItem(AUTO_BROWSED_STORAGE_KEY)).toBe(
      'https://app.example.com/login?knoctoken=tok-123',
    );
    unmount();
    openDashboard([autoBrowse()]);
    await screen.findByText('The app');
    expect(navigation).toHaveBeenCalledTimes(1);
  });

  it('waits for the grant made at sign-in to settle', async () => {
    const navigation = spyOnNavigation();
    openDashboard([autoBrowse({ Status: GrantStatus.Pending })]);
    await screen.findByText('The app');
    expect(navigation).not.toHaveBeenCalled();
  });

  it('does not browse with two auto-browse ACLs', async () => {
    const navigation = spyOnNavigation();
    openDashboard([
      autoBrowse(),
      autoBrowse({ ACLID: 'app2', Description: 'Second app', URL: 'https://two.example.com' }),
    ]);
    await screen.findByText('Second app');
    expect(navigation).not.toHaveBeenCalled();
  });
});

describe('the login referrer', () => {
  async function signInWith(path: string, acls: AclEntry[]) {
    const navigation = spyOnNavigation();
    const api = installFakeApi({
      'POST /api/login': { body: { data: userSession({ NewUserDashboard: true }) } },
      'GET /api/status': { body: { data: userStatus({ NewUserDashboard: true, ACLs: acls }) } },
    });
    const { user } = renderApp(path);
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    return { navigation, api };
  }

  it('sends the person back after sign-in when the referrer belongs to one of their ACLs', async () => {
    const referrer = 'https://wiki.example.com/page?id=7';
    const { navigation } = await signInWith(`/?referrer=${encodeURIComponent(referrer)}`, [
      aclEntry({ Description: 'Team wiki', URL: 'https://wiki.example.com/', Status: GrantStatus.Granted }),
    ]);
    await waitFor(() => expect(navigation).toHaveBeenCalledWith(referrer));
    expect(navigation).toHaveBeenCalledTimes(1);
  });

  it('stays on the dashboard when the referrer belongs to none of them', async () => {
    const { navigation } = await signInWith(`/?referrer=${encodeURIComponent('https://evil.example.net/')}`, [
      aclEntry({ Description: 'Team wiki', URL: 'https://wiki.example.com/' }),
    ]);
    await waitFor(() => expect(currentPath()).toBe('/home/new'));
    expect(await screen.findByText('Team wiki')).toBeVisible();
    expect(navigation).not.toHaveBeenCalled();
  });
});
