import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  AdminStatusResponse,
  AgentListResponse,
  ApiKeyListResponse,
  KnocListResponse,
  type AdminStatus,
  type AgentRecord,
} from '@postern/protocol';
import i18n from '../../i18n/i18n';
import { signInAdmin } from '../../test-support/fixtures';
import { renderApp } from '../../test-support/render-app';
import { data, installTypedFakeApi } from '../../test-support/typed-fake-api';
import { BANNER_AGENTS_REFRESH_MS, BANNER_STATUS_REFRESH_MS } from './api';
import { agentRecord } from '@/test-support/records/agents';
import { APP_LOAD } from '@/test-support/render-app';
import { licensing, quietStatus } from '@/test-support/records/banners';

/** The knoc type chooser: an admin page with no calls of its own, so only the banner area talks to the fake server. */
const PAGE = '/admin/knocs/new';
const DISMISS = 'Dismiss for this session';

const TITLES = {
  unlicensed: 'Postern is not licensed',
  agentIncompatible: 'Agent incompatible with the server version',
  userLimitExceeded: 'User limit exceeded',
  serverUpdate: 'A Postern update is available',
};

const OLD_AGENT = agentRecord({ Name: 'edge-old', Version: '1.5.2' });
const UPDATE: Partial<AdminStatus> = { AvailableServerVersions: [{ version: '1.9.4', urgency: 'low' }] };

function openAdminPage(status: AdminStatus, agents: AgentRecord[] = [], path = PAGE) {
  const api = installTypedFakeApi({
    'GET /api/admin/status': data(AdminStatusResponse, status),
    'GET /api/admin/agents': data(AgentListResponse, agents),
    // The Knocs page, where a test goes to see a dismissed banner stay away.
    'GET /api/admin/knocs': data(KnocListResponse, []),
    'GET /api/admin/api-keys': data(ApiKeyListResponse, []),
  });
  signInAdmin();
  return { api, ...renderApp(path) };
}

/** Waits until the page has rendered, then returns the banners (Mantine Alerts) on it. */
async function bannersShown(): Promise<HTMLElement[]> {
  await screen.findByRole('heading', { level: 1 }, APP_LOAD);
  return screen.queryAllByRole('alert');
}

// Whole-app renders with lazy admin chunks; a busy machine needs more than the 5 s default.
describe('admin banner area', { timeout: 20_000 }, () => {
  it.each<[keyof typeof TITLES, AdminStatus, AgentRecord[]]>([
    ['unlicensed', quietStatus({ Licensing: licensing({ Licensed: false }) }), []],
    ['agentIncompatible', quietStatus(), [OLD_AGENT]],
    ['userLimitExceeded', quietStatus({ UserCount: 120 }), []],
    ['serverUpdate', quietStatus(UPDATE), []],
  ])('shows the %s banner, alone, on an admin page', async (kind, status, agents) => {
    openAdminPage(status, agents);
    expect(await screen.findByRole('alert', { name: TITLES[kind] }, APP_LOAD)).toBeVisible();
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });

  it('shows nothing when no condition holds', async () => {
    const { api } = openAdminPage(quietStatus(), [agentRecord()]);
    await waitFor(() => expect(api.calls('GET /api/admin/agents')).toHaveLength(1), APP_LOAD);
    expect(await bannersShown()).toEqual([]);
  });

  it('offers no dismissal of the unlicensed banner, links to the licensing site and settings, and skips the agents call', async () => {
    const licensingUrl = 'https://shop.example.com/licences';
    const { api } = openAdminPage(
      quietStatus({ ...UPDATE, Licensing: licensing({ Licensed: false }), LicensingUrl: licensingUrl }),
      [OLD_AGENT],
    );
    const banner = await screen.findByRole('alert', { name: TITLES.unlicensed }, APP_LOAD);
    expect(within(banner).queryByRole('button', { name: DISMISS })).not.toBeInTheDocument();
    const site = within(banner).getByRole('link', { name: 'Get a licence' });
    expect(site).toHaveAttribute('href', licensingUrl);
    expect(site).toHaveAttribute('target', '_blank');
    expect(within(banner).getByRole('link', { name: 'Enter a licence key' })).toHaveAttribute(
      'href',
      '/admin/settings',
    );
    expect(api.calls('GET /api/admin/agents')).toHaveLength(0);
  });

  it('offers only the settings page when the operator configured no licensing site', async () => {
    openAdminPage(quietStatus({ Licensing: licensing({ Licensed: false }) }));
    const banner = await screen.findByRole('alert', { name: TITLES.unlicensed }, APP_LOAD);
    expect(
      within(banner)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/admin/settings']);
  });

  it('shows the higher-priority banner first and the next one after each dismissal', async () => {
    const { user } = openAdminPage(quietStatus({ ...UPDATE, UserCount: 101 }), [OLD_AGENT]);
    for (const kind of ['agentIncompatible', 'userLimitExceeded', 'serverUpdate'] as const) {
      const banner = await screen.findByRole('alert', { name: TITLES[kind] }, APP_LOAD);
      expect(screen.getAllByRole('alert')).toHaveLength(1);
      await user.click(within(banner).getByRole('button', { name: DISMISS }));
    }
    await waitFor(() => expect(screen.queryAllByRole('alert')).toEqual([]));
    expect(Object.keys(window.sessionStorage).filter((key) => key.startsWith('postern.banner.'))).toHaveLength(3);
  });

  it('keeps a dismissed banner away across pages and reloads, until the session ends', async () => {
    const status = quietStatus(UPDATE);
    const first = openAdminPage(status);
    const banner = await screen.findByRole('alert', { name: TITLES.serverUpdate }, APP_LOAD);
    await first.user.click(within(banner).getByRole('button', { name: DISMISS }));
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());

    // Another admin page in the same tab.
    const nav = screen.getByRole('navigation', { name: 'Admin navigation' });
    await first.user.click(within(nav).getByRole('link', { name: 'Knocs' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Knocs' }, APP_LOAD)).toBeVisible();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    // A reload: a new app on the same session storage.
    first.unmount();
    const reloaded = openAdminPage(status);
    await waitFor(() => expect(reloaded.api.calls('GET /api/admin/status').length).toBeGreaterThan(0), APP_LOAD);
    expect(await bannersShown()).toEqual([]);

    // A new browser session: session storage starts empty.
    reloaded.unmount();
    window.sessionStorage.clear();
    openAdminPage(status);
    expect(await screen.findByRole('alert', { name: TITLES.serverUpdate }, APP_LOAD)).toBeVisible();
  });

  it('names the incompatible agents and the required version, and links to the agents page', async () => {
    openAdminPage(quietStatus({ MinimumRequiredAgentVersion: '1.6.0' }), [
      OLD_AGENT,
      agentRecord({ Name: 'edge-new', Version: '1.9.0' }),
      agentRecord({ Name: 'edge-older', Version: '1.4.0' }),
    ]);
    const banner = await screen.findByRole('alert', { name: TITLES.agentIncompatible }, APP_LOAD);
    expect(banner).toHaveTextContent(
      '2 agents run a version this server no longer supports: edge-old and edge-older. Agents need version 1.6.0 or newer.',
    );
    expect(within(banner).getByRole('link', { name: 'Go to agents' })).toHaveAttribute('href', '/admin/agents');
  });

  it('says how urgent a server update is and links to the changelog', async () => {
    openAdminPage(
      quietStatus({
        AvailableServerVersions: [
          { version: '1.9.1', urgency: 'critical' },
          { version: '1.10.0', urgency: 'medium' },
        ],
        LatestChangeLogsUrl: 'https://example.org/postern/changes',
      }),
    );
    const banner = await screen.findByRole(
      'alert',
      {
        name: 'A critical Postern update is available: update now',
      },
      APP_LOAD,
    );
    expect(banner).toHaveTextContent('Version 1.10.0 is available; this server runs version 1.9.0.');
    const changelog = within(banner).getByRole('link', { name: 'Read the changelog' });
    expect(changelog).toHaveAttribute('href', 'https://example.org/postern/changes');
    expect(changelog).toHaveAttribute('target', '_blank');
  });

  it('shows no server update on a cloud installation', async () => {
    const { api } = openAdminPage(quietStatus({ ...UPDATE, Cloud: true }));
    await waitFor(() => expect(api.calls('GET /api/admin/agents')).toHaveLength(1), APP_LOAD);
    expect(await bannersShown()).toEqual([]);
  });

  it('is in German for a German browser', async () => {
    await i18n.changeLanguage('de');
    openAdminPage(quietStatus(UPDATE));
    const banner = await screen.findByRole('alert', { name: 'Ein Postern-Update ist verfügbar' }, APP_LOAD);
    expect(within(banner).getByRole('button', { name: 'Für diese Sitzung ausblenden' })).toBeVisible();
  });

  it('asks for the admin status and the agents again every 180 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openAdminPage(quietStatus(UPDATE));
    await screen.findByRole('alert', { name: TITLES.serverUpdate }, APP_LOAD);
    const status = api.calls('GET /api/admin/status').length;
    expect(api.calls('GET /api/admin/agents')).toHaveLength(1);
    expect(BANNER_STATUS_REFRESH_MS).toBe(180_000);
    expect(BANNER_AGENTS_REFRESH_MS).toBe(180_000);

    await act(async () => {
      await vi.advanceTimersByTimeAsync(175_000);
    });
    expect(api.calls('GET /api/admin/status')).toHaveLength(status);
    expect(api.calls('GET /api/admin/agents')).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6_000);
    });
    expect(api.calls('GET /api/admin/status')).toHaveLength(status + 1);
    expect(api.calls('GET /api/admin/agents')).toHaveLength(2);
    vi.useRealTimers();
  });
});
