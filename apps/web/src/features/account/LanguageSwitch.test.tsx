import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n/i18n';
import { installFakeApi } from '../../test-support/fake-api';
import { adminStatus, signInAdmin, signInUser, userStatus } from '../../test-support/fixtures';
import { APP_LOAD, renderApp } from '../../test-support/render-app';

const openSwitch = async (user: ReturnType<typeof renderApp>['user'], current: string) =>
  user.click(await screen.findByRole('button', { name: new RegExp(`^${current}`) }, APP_LOAD));
const choose = async (user: ReturnType<typeof renderApp>['user'], language: string) =>
  user.click(await screen.findByRole('menuitemradio', { name: language, hidden: true }));

describe('language switch', () => {
  it('switches the portal to German and saves the choice with the user’s account', async () => {
    const api = installFakeApi({
      'GET /api/status': { body: { data: userStatus() } },
      'PUT /api/account/language': { body: { data: null } },
    });
    signInUser();
    const { user } = renderApp('/home');
    await openSwitch(user, 'Language: English');
    await choose(user, 'Deutsch');
    expect(await screen.findByRole('button', { name: 'Abmelden' })).toBeVisible();
    expect(i18n.resolvedLanguage).toBe('de');
    await waitFor(() => expect(api.calls('PUT /api/account/language')).toHaveLength(1));
    expect(api.calls('PUT /api/account/language')[0]?.body).toEqual({ Language: 'de' });
  });

  it('applies the language the user’s account keeps, whatever this browser chose before', async () => {
    installFakeApi({ 'GET /api/status': { body: { data: userStatus({ Language: 'de' }) } } });
    signInUser();
    renderApp('/home');
    expect(await screen.findByRole('button', { name: 'Abmelden' }, APP_LOAD)).toBeVisible();
    expect(screen.getByRole('button', { name: /^Sprache: Deutsch/ })).toBeVisible();
  });

  it('keeps the language in this browser when saving it fails, and says so', async () => {
    installFakeApi({
      'GET /api/status': { body: { data: userStatus() } },
      'PUT /api/account/language': { status: 503, body: { Err: 'err.storeUnavailable' } },
    });
    signInUser();
    const { user } = renderApp('/home');
    await openSwitch(user, 'Language: English');
    await choose(user, 'Deutsch');
    expect(
      await screen.findByText(
        'Die Sprache gilt in diesem Browser, konnte aber nicht mit Ihrem Konto gespeichert werden.',
      ),
    ).toBeVisible();
    expect(i18n.resolvedLanguage).toBe('de');
  });

  it('is on the sign-in page too, where it changes the language without asking the server', async () => {
    const api = installFakeApi();
    const { user } = renderApp('/');
    await openSwitch(user, 'Language: English');
    await choose(user, 'Deutsch');
    await waitFor(() => expect(i18n.resolvedLanguage).toBe('de'));
    expect(api.requests.filter((request) => request.method === 'PUT')).toEqual([]);
  });

  it('saves an administrator’s choice with the administrator’s account', async () => {
    const api = installFakeApi({
      'GET /api/admin/status': { body: { data: adminStatus() } },
      'PUT /api/admin/account/language': { body: { data: null } },
    });
    signInAdmin();
    const { user } = renderApp('/admin/home');
    await openSwitch(user, 'Language: English');
    await choose(user, 'Deutsch');
    await waitFor(() => expect(api.calls('PUT /api/admin/account/language')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/account/language')[0]?.body).toEqual({ Language: 'de' });
  });
});
