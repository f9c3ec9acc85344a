import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { licensingSummary } from '@/test-support/fixtures';
import { columnTexts } from '@/test-support/table';
import { apiError } from '@/test-support/typed-fake-api';
import { findUsersTable, manyUsers, openUsersPage, userRoutes } from '@/test-support/screens/users';
import { listedUser } from '@/test-support/records/users';

const table = findUsersTable;
/** The names of this page's two licence alerts (the admin shell has banners of its own). */
const LIMIT_ALERTS = /More users than the licence allows|user limit has been reached/;
/** The Name cell text of each body row, in order. */
const names = (element: HTMLElement) => columnTexts(element, 0);

describe('users table', () => {
  it('shows the spec’s columns with each user’s values', async () => {
    openUsersPage();
    const users = await table();
    const headers = within(users)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual([
      'Name',
      'Company',
      'Duration',
      'Auth type',
      'Username',
      'Last login',
      'Active session',
      'Actions',
    ]);
    const ada = within(users).getByRole('row', { name: /Ada Lovelace/ });
    expect(
      within(ada)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['Ada Lovelace', 'Analytical Engines', '480 min', 'Local', 'ada', '2 hours ago', 'Yes', '']);
    const linus = within(users).getByRole('row', { name: /Linus Torvalds/ });
    expect(linus).toHaveTextContent('API key');
    expect(linus).toHaveTextContent('Never');
    expect(linus).toHaveTextContent('No');
  });

  it('greys out users whose Licensed is false, and says so to screen readers', async () => {
    openUsersPage();
    const users = await table();
    const linus = within(users).getByRole('row', { name: /Linus Torvalds/ });
    expect(linus).toHaveAttribute('data-unlicensed', 'true');
    expect(linus).toHaveTextContent('(Not licensed)');
    const ada = within(users).getByRole('row', { name: /Ada Lovelace/ });
    expect(ada).not.toHaveAttribute('data-unlicensed');
  });

  it('sorts by name, and reverses on a second click', async () => {
    const { user } = openUsersPage();
    const users = await table();
    expect(names(users)).toEqual(['Ada Lovelace', 'grace Hopper', 'Linus Torvalds (Not licensed)']);
    await user.click(within(users).getByRole('button', { name: 'Name' }));
    expect(names(users)).toEqual(['Linus Torvalds (Not licensed)', 'grace Hopper', 'Ada Lovelace']);
  });

  it.each([
    ['Duration', ['grace Hopper', 'Ada Lovelace', 'Linus Torvalds (Not licensed)']],
    ['Company', ['Ada Lovelace', 'Linus Torvalds (Not licensed)', 'grace Hopper']],
    ['Last login', ['grace Hopper', 'Ada Lovelace', 'Linus Torvalds (Not licensed)']],
    ['Auth type', ['Linus Torvalds (Not licensed)', 'grace Hopper', 'Ada Lovelace']],
  ])('sorts by %s', async (column, expected) => {
    const { user } = openUsersPage();
    const users = await table();
    await user.click(within(users).getByRole('button', { name: column }));
    expect(names(users)).toEqual(expected);
  });

  it('searches any column, ignoring case', async () => {
    const { user } = openUsersPage();
    const users = await table();
    await user.type(screen.getByRole('textbox', { name: 'Search users' }), 'NAVY');
    expect(names(users)).toEqual(['grace Hopper']);
    await user.clear(screen.getByRole('textbox', { name: 'Search users' }));
    await user.type(screen.getByRole('textbox', { name: 'Search users' }), 'nobody');
    expect(screen.getByText('Nothing matches the search')).toBeVisible();
  });

  it('pages 25 users at a time', async () => {
    const { user } = openUsersPage(userRoutes(manyUsers(30)), licensingSummary({ UserLimit: 100 }));
    const users = await table();
    expect(within(users).getAllByRole('row')).toHaveLength(26);
    await user.click(screen.getByRole('button', { name: 'Page 2' }));
    expect(within(users).getAllByRole('row')).toHaveLength(6);
  });

  it('says so when there are no users', async () => {
    openUsersPage(userRoutes([]));
    expect(await screen.findByText('There are no users yet', {}, { timeout: 5_000 })).toBeVisible();
  });

  it('shows a failed load as an error', async () => {
    openUsersPage({ 'GET /api/admin/users': apiError(500, ErrorCodes.internalServerError) });
    expect(await screen.findByRole('alert', { name: 'Error' }, { timeout: 5_000 })).toHaveTextContent(
      'Internal server error',
    );
  });
});

describe('users refresh', () => {
  afterEach(() => vi.useRealTimers());

  it('asks for the list again every 30 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openUsersPage();
    await table();
    const listCalls = () => api.calls('GET /api/admin/users').length;
    expect(listCalls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(29_000));
    expect(listCalls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(1_500));
    await waitFor(() => expect(listCalls()).toBe(2));
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    await waitFor(() => expect(listCalls()).toBe(3));
  });
});

describe('licence notice', () => {
  it('says how many more users may be created over the limit', async () => {
    openUsersPage(userRoutes(manyUsers(12)));
    const alert = await screen.findByRole('alert', { name: 'More users than the licence allows' }, { timeout: 5_000 });
    expect(alert).toHaveTextContent(
      '12 users exceed the licence’s limit of 10. The licence allows 5 additional users (50% over the limit): 3 more can still be created.',
    );
    expect(await screen.findByRole('button', { name: 'Create user' })).toBeVisible();
  });

  it('shows nothing within the limit', async () => {
    openUsersPage(userRoutes(manyUsers(10)));
    await table();
    expect(await screen.findByRole('button', { name: 'Create user' })).toBeVisible();
    expect(screen.queryByRole('alert', { name: LIMIT_ALERTS })).not.toBeInTheDocument();
  });

  it('shows no banner over the limit when SAML users exist', async () => {
    openUsersPage(userRoutes([...manyUsers(11), listedUser({ ID: 'u-saml', Name: 'Sam', AuthType: 'SAML' })]));
    await table();
    expect(await screen.findByRole('button', { name: 'Create user' })).toBeVisible();
    expect(screen.queryByRole('alert', { name: LIMIT_ALERTS })).not.toBeInTheDocument();
  });

  it('replaces creation with err.userLimitReached at the limit plus overage', async () => {
    openUsersPage(userRoutes(manyUsers(15)));
    const alert = await screen.findByRole(
      'alert',
      { name: 'The licence’s user limit has been reached' },
      { timeout: 5_000 },
    );
    expect(alert).toHaveTextContent('New users cannot be created until the licence is upgraded.');
    expect(alert).toHaveTextContent('50% over 10 users.');
    await table();
    expect(screen.queryByRole('button', { name: 'Create user' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Invalidate all sessions' })).toBeVisible();
  });

  it('does not limit an unlicensed installation', async () => {
    openUsersPage(userRoutes(manyUsers(40)), licensingSummary({ Licensed: false, UserLimit: 0, UserLimitOverage: 0 }));
    await table();
    expect(await screen.findByRole('button', { name: 'Create user' })).toBeVisible();
    expect(screen.queryByRole('alert', { name: LIMIT_ALERTS })).not.toBeInTheDocument();
  });
});
