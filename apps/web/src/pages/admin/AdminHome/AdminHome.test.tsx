import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../../../test-support/fake-api';
import { adminStatus, signInAdmin } from '../../../test-support/fixtures';
import { renderApp } from '../../../test-support/render-app';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('admin home', () => {
  it('shows the three counters and the recent activity', async () => {
    installFakeApi({
      'GET /api/admin/status': {
        body: {
          data: adminStatus({
            SessionCount: 3,
            ACLCount: 12,
            UserCount: 1234,
            Activity: [
              { Date: minutesAgo(5), Entry: { UserLogin: { UserName: 'ada', IpAddress: '192.0.2.1' } } },
              { Date: minutesAgo(90), Entry: { AdminLoginFailed: { AdminName: 'mallory' } } },
            ],
          }),
        },
      },
    });
    signInAdmin();
    renderApp('/admin/home');

    expect(await screen.findByText('Active sessions')).toBeInTheDocument();
    expect(screen.getByText('3')).toBeInTheDocument();
    // The knoc counter says "Knocs", as the sidebar does (not "ACLs").
    expect(screen.getByText('12').parentElement).toHaveTextContent(/^Knocs12$/);
    const sidebar = screen.getByRole('navigation', { name: 'Admin navigation' });
    expect(within(sidebar).getByRole('link', { name: 'Knocs' })).toBeInTheDocument();
    expect(screen.getByText('1,234')).toBeInTheDocument();

    const table = screen.getByRole('table', { name: 'Recent activity' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('ada');
    expect(rows[1]).toHaveTextContent('5 minutes ago');
    expect(rows[1]).toHaveTextContent('User signed in');
    expect(rows[2]).toHaveTextContent('mallory');
    expect(rows[2]).toHaveTextContent('2 hours ago');
    expect(rows[2]).toHaveTextContent('Admin sign-in failed');
  });

  it('says so when there is no activity', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp('/admin/home');
    expect(await screen.findByText('No recent activity')).toBeInTheDocument();
  });
});
