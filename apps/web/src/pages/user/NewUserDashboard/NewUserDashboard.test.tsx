import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../i18n/i18n';
import { preferenceKey } from '../../../features/acls/preferences';
import { STATUS_COLOURS } from '../../../features/acls/status-colours';
import { COLOR_SCHEME_STORAGE_KEY } from '../../../theme/color-scheme';
import { aclEntry } from '../../../test-support/fixtures';
import { openDashboard, services, themeAnswer } from '@/test-support/screens/new-user-dashboard';

const COUNTDOWN = /^\d{2}:\d{2}:\d{2}$/;

/** The headings of the card view's sections, in order. */
function sectionTitles(): string[] {
  return screen.getAllByRole('region').map((region) => within(region).getByRole('heading').textContent ?? '');
}

/** The names of the ACL cards inside `container`, in order (each card is named by its ACL). */
function cardNames(container: HTMLElement): string[] {
  return within(container)
    .getAllByRole('article')
    .map((card) => document.getElementById(card.getAttribute('aria-labelledby') ?? '')?.textContent ?? '');
}

/** The countdown's HH:MM:SS. */
function countdownText(): string {
  const timer = screen.getByRole('timer', { name: 'Session expires in' });
  const time = within(timer).getByText(COUNTDOWN);
  return time.textContent ?? '';
}

describe('NewUserDashboard header', () => {
  it('greets the user, counts the session down in HH:MM:SS and says when the account expires', async () => {
    const ends = new Date(Date.now() + 2 * 3_600_000 + 5 * 60_000 + 30_000).toISOString();
    const validUntil = new Date(Date.now() + 10.5 * 86_400_000).toISOString();
    openDashboard(services(1), { status: { Ends: ends, ValidUntil: validUntil } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Hello, Ada Lovelace' })).toBeVisible();
    await screen.findByText('Service 1');
    expect(countdownText()).toMatch(/^02:05:(2\d|30)$/);
    expect(screen.getByText('Your account expires in 10 days')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Log out' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Change password' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Change colour scheme' })).toBeVisible();
    expect(screen.getByRole('radio', { name: 'Cards' })).toBeChecked();
  });

  it('turns the countdown orange under 900 seconds', async () => {
    const { unmount } = openDashboard(services(1), { status: { Ends: new Date(Date.now() + 901_000).toISOString() } });
    await screen.findByText('Service 1');
    const calm = within(screen.getByRole('timer')).getByText(COUNTDOWN);
    expect(calm).toHaveAttribute('data-warning', 'false');
    expect(calm.getAttribute('style') ?? '').not.toContain(STATUS_COLOURS.warning);
    unmount();
    openDashboard(services(1), { status: { Ends: new Date(Date.now() + 899_000).toISOString() } });
    await screen.findByText('Service 1');
    const warning = within(screen.getByRole('timer')).getByText(COUNTDOWN);
    expect(warning).toHaveAttribute('data-warning', 'true');
    expect(warning.getAttribute('style')).toContain(STATUS_COLOURS.warning);
  });

  it('ticks the countdown each second', async () => {
    openDashboard(services(1));
    await screen.findByText('Service 1');
    const first = countdownText();
    await waitFor(() => expect(countdownText()).not.toBe(first), { timeout: 2_500 });
  });

  it('offers no password change to an SSO account, and no expiry line without ValidUntil', async () => {
    openDashboard(services(1), { status: { AuthType: 'SAML', ValidUntil: null } });
    await screen.findByText('Service 1');
    expect(screen.queryByRole('button', { name: 'Change password' })).not.toBeInTheDocument();
    expect(screen.queryByText(/Your account expires/)).not.toBeInTheDocument();
  });

  it('says "in 1 day" and "today" for an account about to expire', async () => {
    openDashboard(services(1), { status: { ValidUntil: new Date(Date.now() + 30 * 3_600_000).toISOString() } });
    expect(await screen.findByText('Your account expires in 1 day')).toBeVisible();
  });

  it('offers Hide Timer in high-accessibility mode only, and remembers it', async () => {
    const { user, unmount } = openDashboard(services(1), {
      routes: { 'GET /api/theme': themeAnswer({ HighAccessibility: true }) },
    });
    await user.click(await screen.findByRole('button', { name: 'Hide Timer' }));
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show Timer' })).toBeVisible();
    unmount();
    openDashboard(services(1), { routes: { 'GET /api/theme': themeAnswer({ HighAccessibility: true }) } });
    expect(await screen.findByRole('button', { name: 'Show Timer' })).toBeVisible();
    await screen.findByText('Service 1');
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
  });

  it('has no Hide Timer button without high-accessibility mode', async () => {
    openDashboard(services(1));
    await screen.findByText('Service 1');
    expect(screen.getByRole('timer')).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Hide Timer' })).not.toBeInTheDocument();
  });

  it('shows the light-mode logo on a light page and the dark-mode one on a dark page', async () => {
    const routes = {
      'GET /api/theme': themeAnswer({
        LogoURL: '/api/branding/logo/dark?v=1',
        LightModeLogoURL: '/api/branding/logo/light?v=2',
      }),
    };
    const { unmount } = openDashboard(services(1), { routes });
    await waitFor(() =>
      expect(screen.getByRole('img', { name: 'Postern' })).toHaveAttribute('src', '/api/branding/logo/light?v=2'),
    );
    unmount();
    window.localStorage.setItem(COLOR_SCHEME_STORAGE_KEY.user, 'dark');
    openDashboard(services(1), { routes });
    await waitFor(() =>
      expect(screen.getByRole('img', { name: 'Postern' })).toHaveAttribute('src', '/api/branding/logo/dark?v=1'),
    );
  });

  it('uses the only logo there is in either mode, and Postern’s mark without one', async () => {
    const { unmount } = openDashboard(services(1), {
      routes: { 'GET /api/theme': themeAnswer({ LogoURL: '/api/branding/logo/dark?v=1' }) },
    });
    await waitFor(() =>
      expect(screen.getByRole('img', { name: 'Postern' })).toHaveAttribute('src', '/api/branding/logo/dark?v=1'),
    );
    unmount();
    openDashboard(services(1));
    await screen.findByText('Service 1');
    expect(screen.getByRole('img', { name: 'Postern' }).tagName.toLowerCase()).toBe('svg');
  });
});

describe('NewUserDashboard card view', () => {
  it('shows one section per category, the default one as Other, and hides HideFromUsers ACLs', async () => {
    openDashboard([
      aclEntry({ ACLID: 'db', Description: 'Billing database', Category: 'Databases' }),
      aclEntry({ ACLID: 'wiki', Description: 'Team wiki', Category: 'Default' }),
      aclEntry({ ACLID: 'hidden', Description: 'Secret backdoor', HideFromUsers: true }),
    ]);
    const databases = await screen.findByRole('region', { name: 'Databases' });
    expect(within(databases).getByRole('article', { name: 'Billing database' })).toBeVisible();
    expect(within(screen.getByRole('region', { name: 'Other' })).getByText('Team wiki')).toBeVisible();
    expect(sectionTitles()).toEqual(['Databases', 'Other']);
    expect(screen.queryByText('Secret backdoor')).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Favourites' })).not.toBeInTheDocument();
  });

  it('links an ACL with an http(s) URL to its system, in a new tab', async () => {
    openDashboard([aclEntry({ Description: 'Team wiki', URL: 'https://wiki.example.com/start' })]);
    const link = await screen.findByRole('link', { name: 'Team wiki' });
    expect(link).toHaveAttribute('href', 'https://wiki.example.com/start');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('collects favourites in their own section and keeps them across a reload', async () => {
    const { user, unmount } = openDashboard(services(3));
    await user.click(await screen.findByRole('button', { name: 'Add Service 2 to favourites' }));
    const favourites = await screen.findByRole('region', { name: 'Favourites' });
    expect(within(favourites).getByText('Service 2')).toBeVisible();
    expect(within(favourites).queryByText('Service 1')).not.toBeInTheDocument();
    expect(JSON.parse(window.localStorage.getItem(preferenceKey('ada', 'favourites')) ?? '[]')).toEqual(['svc-2']);
    unmount();

    const again = openDashboard(services(3));
    expect(within(await screen.findByRole('region', { name: 'Favourites' })).getByText('Service 2')).toBeVisible();
    await again.user.click(
      within(screen.getByRole('region', { name: 'Favourites' })).getByRole('button', {
        name: 'Remove Service 2 from favourites',
      }),
    );
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Favourites' })).not.toBeInTheDocument());
  });

  it('has no Top section with 20 ACLs', async () => {
    openDashboard(services(20));
    await screen.findByText('Service 20');
    expect(screen.queryByRole('heading', { name: 'Top' })).not.toBeInTheDocument();
  });

  it('has a Top section with 21 ACLs: the 5 most used, from the usage counts kept in the browser', async () => {
    window.localStorage.setItem(
      preferenceKey('ada', 'usage'),
      JSON.stringify({ 'svc-3': 4, 'svc-7': 9, 'svc-1': 1, 'svc-9': 2, 'svc-12': 5, 'svc-15': 3, 'svc-20': 0 }),
    );
    openDashboard(services(21));
    const top = await screen.findByRole('region', { name: 'Top' });
    expect(cardNames(top)).toEqual(['Service 7', 'Service 12', 'Service 3', 'Service 15', 'Service 9']);
  });

  it('explains an empty Top section until something has been used', async () => {
    openDashboard(services(21));
    const top = await screen.findByRole('region', { name: 'Top' });
    expect(within(top).getByText('The systems you use most will appear here.')).toBeVisible();
  });

  it('counts a grant as a use', async () => {
    const { user } = openDashboard(services(1), {
      routes: {
        'POST /api/grant': { body: { data: aclEntry({ ACLID: 'svc-1', Description: 'Service 1', Status: 2 }) } },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Grant Access' }));
    await waitFor(() =>
      expect(JSON.parse(window.localStorage.getItem(preferenceKey('ada', 'usage')) ?? '{}')).toEqual({ 'svc-1': 1 }),
    );
  });
});

describe('NewUserDashboard search', () => {
  it('is not offered with 10 ACLs', async () => {
    openDashboard(services(10));
    await screen.findByText('Service 10');
    expect(screen.queryByRole('searchbox')).not.toBeInTheDocument();
  });

  it('is offered with 11 ACLs and filters the sections', async () => {
    const { user } = openDashboard(services(11, (index) => ({ Category: index === 6 ? 'Databases' : 'Default' })));
    await user.type(await screen.findByRole('searchbox', { name: 'Search' }), 'service 7');
    await waitFor(() => expect(screen.queryByText('Service 3')).not.toBeInTheDocument());
    expect(screen.getByText('Service 7')).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Other' })).not.toBeInTheDocument();
    await user.clear(screen.getByRole('searchbox'));
    await user.type(screen.getByRole('searchbox'), 'nothing like this');
    expect(await screen.findByText('No systems match your search')).toBeVisible();
  });
});

describe('NewUserDashboard list view', () => {
  it('shows a table with Favourite, Category, System and Access, and keeps the choice', async () => {
    const acls = [
      aclEntry({ ACLID: 'db', Description: 'Billing database', Category: 'Databases' }),
      aclEntry({ ACLID: 'wiki', Description: 'Team wiki' }),
    ];
    const { user, unmount } = openDashboard(acls);
    await user.click(await screen.findByRole('radio', { name: 'List' }));
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Favourite', 'Category', 'System', 'Access']);
    const billing = within(table).getByRole('row', { name: /Billing database/ });
    expect(within(billing).getByRole('cell', { name: 'Databases' })).toBeVisible();
    expect(within(billing).getByRole('button', { name: 'Grant Access' })).toBeVisible();
    expect(within(billing).getByRole('button', { name: 'Add Billing database to favourites' })).toBeVisible();
    expect(
      within(within(table).getByRole('row', { name: /Team wiki/ })).getByRole('cell', { name: 'Other' }),
    ).toBeVisible();
    expect(window.localStorage.getItem(preferenceKey('ada', 'view'))).toBe('"list"');
    unmount();

    openDashboard(acls);
    expect(await screen.findByRole('table')).toBeVisible();
    expect(screen.getByRole('radio', { name: 'List' })).toBeChecked();
  });
});

describe('NewUserDashboard for an unlicensed user', () => {
  it('says the user is not licensed and lists no ACLs', async () => {
    openDashboard(services(2), { status: { UserLicensed: false } });
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent('User Not Licensed');
    expect(notice).toHaveTextContent('Please contact your administrator.');
    expect(screen.queryByText('Service 1')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Grant Access' })).not.toBeInTheDocument();
  });

  it('says the installation is not licensed', async () => {
    openDashboard(services(2), { status: { Licensed: false, UserLicensed: false } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Not licensed');
    expect(screen.queryByText('Service 1')).not.toBeInTheDocument();
  });
});

describe('NewUserDashboard in German', () => {
  it('speaks German everywhere the person looks', async () => {
    await i18n.changeLanguage('de');
    openDashboard([aclEntry({ Description: 'Team-Wiki' })]);
    expect(await screen.findByRole('region', { name: 'Sonstige' })).toBeVisible();
    expect(screen.getByRole('timer', { name: 'Sitzung läuft ab in' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Zugriff gewähren' })).toBeVisible();
    expect(screen.getByRole('heading', { level: 1, name: 'Hallo, Ada Lovelace' })).toBeVisible();
    expect(screen.getByRole('radio', { name: 'Liste' })).toBeInTheDocument();
    expect(screen.queryByText('Grant Access')).not.toBeInTheDocument();
  });
});
