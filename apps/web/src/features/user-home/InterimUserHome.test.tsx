import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../../test-support/fake-api';
import { signInUser, userStatus } from '../../test-support/fixtures';
import { currentPath, renderApp } from '../../test-support/render-app';
import { SESSION_KEYS } from '../../lib/session/session-store';

describe('user home (interim)', () => {
  it('greets the user and says when the session ends', async () => {
    const ends = new Date(Date.now() + 3 * 3_600_000 + 60_000).toISOString();
    installFakeApi({ 'GET /api/status': { body: { data: userStatus({ Name: 'Ada Lovelace', Ends: ends }) } } });
    signInUser();
    renderApp('/home/new');
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Hello, Ada Lovelace')).toBeInTheDocument();
    expect(await screen.findByText('Your session ends in 3 hours.')).toBeInTheDocument();
  });

  it('logs out and returns to the login', async () => {
    const api = installFakeApi({ 'GET /api/status': { body: { data: userStatus() } } });
    signInUser();
    const { user } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(currentPath()).toBe('/'));
    expect(api.calls('POST /api/logout')).toHaveLength(1);
    expect(window.sessionStorage.getItem(SESSION_KEYS.user)).toBeNull();
  });
});
