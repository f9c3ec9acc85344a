import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { adminStatus } from '@/test-support/fixtures';
import { currentPath } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import { KNOCS, openKnocs } from '@/test-support/screens/knocs';

const TILES = ['Linux host/firewall', 'Application', 'Proxy', 'Module', 'Script', 'Contact'];
const APP_LOAD = { timeout: 5000 };

/** The tiles' headings, in order, once shown. */
async function tileHeadings() {
  await screen.findByRole('heading', { name: TILES[0] }, APP_LOAD);
  return screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent);
}

const tile = (name: string) => screen.getByRole('region', { name });

describe('knoc type tiles', { timeout: 30_000 }, () => {
  it('replace the table when there are no knocs (hidden children do not count)', async () => {
    openKnocs(
      {},
      KNOCS.filter((knoc) => knoc.HideFromAdmins),
    );
    expect(await tileHeadings()).toEqual(TILES);
    expect(screen.queryByRole('table', { name: 'Knocs' })).not.toBeInTheDocument();
  });

  it.each([
    ['Linux host/firewall', 'New Linux knoc', '/admin/knocs/new/linux'],
    ['Application', 'New application knoc', '/admin/knocs/new/application'],
    ['Proxy', 'New proxy knoc', '/admin/knocs/new/proxy'],
    ['Script', 'New script knoc', '/admin/knocs/new/script'],
  ])('%s starts its wizard', async (name, link, path) => {
    const { user } = openKnocs({}, []);
    await tileHeadings();
    await user.click(within(tile(name)).getByRole('link', { name: link }));
    await waitFor(() => expect(currentPath()).toBe(path));
  });

  it("Module explains the agent's scripts directory and leads to a Script knoc", async () => {
    const { user } = openKnocs({}, []);
    await tileHeadings();
    await user.click(within(tile('Module')).getByRole('button', { name: 'About modules' }));
    const dialog = await screen.findByRole('dialog', { name: 'Modules' });
    expect(dialog).toHaveTextContent("Copy a module into the agent's scripts directory");
    expect(dialog).toHaveTextContent('/etc/postern-agent/scripts');
    expect(dialog).toHaveTextContent('knoc_action, knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr');
    await user.click(within(dialog).getByRole('link', { name: 'New script knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/new/script'));
  });

  it("Contact links to the operator's support address", async () => {
    openKnocs(
      { 'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ SupportUrl: 'mailto:support@example.org' })) },
      [],
    );
    await tileHeadings();
    await waitFor(() =>
      expect(within(tile('Contact')).getByRole('link', { name: 'Request an integration' })).toHaveAttribute(
        'href',
        'mailto:support@example.org',
      ),
    );
  });

  it("Contact writes a mail to the operator's support address, before their support page", async () => {
    const status = adminStatus({ SupportEmail: 'help@example.com', SupportUrl: 'https://help.example.com' });
    openKnocs({ 'GET /api/admin/status': data(AdminStatusResponse, status) }, []);
    await tileHeadings();
    await waitFor(() =>
      expect(within(tile('Contact')).getByRole('link', { name: 'Request an integration' })).toHaveAttribute(
        'href',
        'mailto:help@example.com?subject=Postern%3A%20request%20for%20a%20custom%20integration',
      ),
    );
  });

  it('Contact writes its mail subject in German for a German browser', async () => {
    await i18n.changeLanguage('de');
    openKnocs(
      { 'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ SupportEmail: 'hilfe@example.de' })) },
      [],
      '/admin/knocs/new',
    );
    await screen.findByRole('heading', { name: 'Linux-Host/Firewall' }, APP_LOAD);
    await waitFor(() =>
      expect(within(tile('Kontakt')).getByRole('link', { name: 'Integration anfragen' })).toHaveAttribute(
        'href',
        `mailto:hilfe@example.de?subject=${encodeURIComponent('Postern: Anfrage für eine eigene Integration')}`,
      ),
    );
  });

  it('Contact says so when the operator configured no contact, and links nowhere', async () => {
    openKnocs({}, []);
    await tileHeadings();
    const contact = tile('Contact');
    expect(contact).toHaveTextContent('The operator of this installation has not configured a contact address.');
    expect(within(contact).queryByRole('link')).not.toBeInTheDocument();
  });

  it('are the chooser at /admin/knocs/new, under its heading', async () => {
    openKnocs({}, KNOCS, '/admin/knocs/new');
    expect(await screen.findByRole('heading', { level: 1, name: 'New knoc' }, APP_LOAD)).toBeVisible();
    expect(await tileHeadings()).toEqual(TILES);
  });

  it('are in German for a German browser', async () => {
    await i18n.changeLanguage('de');
    openKnocs({}, [], '/admin/knocs/new');
    expect(await screen.findByRole('heading', { name: 'Linux-Host/Firewall' }, APP_LOAD)).toBeVisible();
    expect(screen.getByText('Was soll der neue Knoc schützen?')).toBeVisible();
    expect(within(tile('Kontakt')).getByText(/keine Kontaktadresse/)).toBeVisible();
  });
});

describe('knocs screen in German', { timeout: 30_000 }, () => {
  it('names the columns and the update message in German', async () => {
    await i18n.changeLanguage('de');
    openKnocs({}, KNOCS, '/admin/knocs?didUpdate=1');
    const table = await screen.findByRole('table', { name: 'Knocs' }, APP_LOAD);
    expect(within(table).getByRole('button', { name: 'Zuletzt geändert' })).toBeVisible();
    expect(await screen.findByText('Knoc erfolgreich aktualisiert')).toBeVisible();
  });
});
