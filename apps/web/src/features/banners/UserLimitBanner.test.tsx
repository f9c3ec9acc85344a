import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, AgentListResponse, BackendListResponse } from '@postern/protocol';
import { signInAdmin } from '../../test-support/fixtures';
import { renderApp } from '../../test-support/render-app';
import { data, installTypedFakeApi } from '../../test-support/typed-fake-api';
import { APP_LOAD } from '@/test-support/render-app';
import { licensing, quietStatus } from '@/test-support/records/banners';

const TITLE = 'User limit exceeded';

/** An admin page showing the user-limit banner for `users` users of 100 licensed plus 50 grace. */
async function openWithUsers(users: number) {
  installTypedFakeApi({
    'GET /api/admin/status': data(
      AdminStatusResponse,
      quietStatus({ UserCount: users, Licensing: licensing({ UserLimit: 100, UserLimitOverage: 50 }) }),
    ),
    'GET /api/admin/agents': data(AgentListResponse, []),
    'GET /api/admin/backends': data(BackendListResponse, []),
  });
  signInAdmin();
  const rendered = renderApp('/admin/knocs/new');
  const banner = await screen.findByRole('alert', { name: TITLE }, APP_LOAD);
  return { ...rendered, banner };
}

/** The banner's figures as label → value, read from its description list. */
function figures(banner: HTMLElement): Record<string, string> {
  const terms = within(banner).getAllByRole('term');
  const values = within(banner).getAllByRole('definition');
  return Object.fromEntries(terms.map((term, i) => [term.textContent, values[i]?.textContent ?? '']));
}

/** The value of one section of the usage bar (a group named "Licence usage"). */
function barValue(banner: HTMLElement, name: string): string | null {
  const bar = within(banner).getByRole('group', { name: 'Licence usage' });
  return within(bar).getByRole('progressbar', { name }).getAttribute('aria-valuenow');
}

// Whole-app renders with lazy admin chunks; a busy machine needs more than the 5 s default.
describe('user limit banner', { timeout: 20_000 }, () => {
  it('shows licensed users, grace, current and remaining, and fills the bar to match', async () => {
    const { banner } = await openWithUsers(120);
    expect(figures(banner)).toEqual({ 'Licensed users': '100', Grace: '50', Current: '120', Remaining: '30' });
    // 150 seats in all: 100 within the licence (66.7%), 20 of the grace allowance in use (13.3%).
    expect(barValue(banner, 'Users within the licence')).toBe('66.7');
    expect(barValue(banner, 'Users in the grace allowance')).toBe('13.3');
    expect(banner).toHaveTextContent('The grace allowance still admits 30 more.');
  });

  it('warns from 30 percent over the limit', async () => {
    const { banner } = await openWithUsers(130);
    expect(banner).toHaveTextContent(
      'There are 30% more users than the licence allows. The grace allowance admits only 20 more: upgrade the licence soon.',
    );
    expect(barValue(banner, 'Users in the grace allowance')).toBe('20');
  });

  it('says users are denied access beyond the limit plus grace', async () => {
    const { banner } = await openWithUsers(160);
    expect(figures(banner)).toEqual({ 'Licensed users': '100', Grace: '50', Current: '160', Remaining: '0' });
    expect(banner).toHaveTextContent('users are denied access until the licence is upgraded');
    expect(barValue(banner, 'Users within the licence')).toBe('66.7');
    expect(barValue(banner, 'Users in the grace allowance')).toBe('33.3');
  });

  it('sends Upgrade Licence to the licence settings and Manage Users to the users list', async () => {
    const { banner } = await openWithUsers(101);
    expect(within(banner).getByRole('link', { name: 'Upgrade Licence' })).toHaveAttribute('href', '/admin/settings');
    expect(within(banner).getByRole('link', { name: 'Manage Users' })).toHaveAttribute('href', '/admin/users');
  });

  it('can be dismissed', async () => {
    const { banner, user } = await openWithUsers(101);
    await user.click(within(banner).getByRole('button', { name: 'Dismiss for this session' }));
    await waitFor(() => expect(screen.queryByRole('alert', { name: TITLE })).not.toBeInTheDocument());
  });
});
