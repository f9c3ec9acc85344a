import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../test-support/fake-api';
import { signInAdmin, signInUser } from '../test-support/fixtures';
import { currentPath, renderApp } from '../test-support/render-app';
import { SESSION_KEYS } from '../lib/session/session-store';

describe('a call refused with 401 err.invalidSession', () => {
  it('forgets the user session and returns to the login, saying why', async () => {
    installFakeApi({ 'GET /api/status': { status: 401, body: { Err: 'err.invalidSession' } } });
    signInUser();
    renderApp('/home');
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'));
    expect(window.sessionStorage.getItem(SESSION_KEYS.user)).toBeNull();
    expect(await screen.findByText('Error: Your session has expired, log in again')).toBeInTheDocument();
  });

  it('forgets the admin session, keeps the user one, and returns to the admin login', async () => {
    installFakeApi({ 'GET /api/admin/status': { status: 401, body: { Err: 'err.invalidSession' } } });
    signInUser();
    signInAdmin();
    renderApp('/admin/home');
    await waitFor(() => expect(currentPath()).toBe('/admin?error=err.sessionExpired'));
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toBeNull();
    expect(window.sessionStorage.getItem(SESSION_KEYS.user)).not.toBeNull();
    expect(await screen.findByRole('heading', { level: 1, name: 'Postern admin console' })).toBeInTheDocument();
  });

  it('does not treat wrong credentials as an ended session', async () => {
    installFakeApi({ 'POST /api/login': { status: 401, body: { Err: 'err.invalidCredentials' } } });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'wrong-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Invalid credentials');
    expect(currentPath()).toBe('/');
  });
});
