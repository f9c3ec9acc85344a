import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ErrorCodes, LogClearResponse, LogListResponse, type AuditEntry } from '@postern/protocol';
import { signInAdmin } from '@/test-support/fixtures';
import { findMenuItem } from '@/test-support/menu';
import { renderApp } from '@/test-support/render-app';
import { pick } from '@/test-support/screens/knoc-wizard';
import { bodyRows } from '@/test-support/table';
import { apiError, data, installTypedFakeApi, type TypedHandler } from '@/test-support/typed-fake-api';

// The whole app renders behind the fake API.
configure({ asyncUtilTimeout: 5_000 });
vi.setConfig({ testTimeout: 20_000 });

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** `count` logins, newest first, by user-0, user-1, … */
const logins = (count: number): AuditEntry[] =>
  Array.from({ length: count }, (_, index) => ({
    Date: minutesAgo(index + 1),
    Entry: { UserLogin: { UserName: `user-${index}`, IpAddress: '192.0.2.1' } },
    Actor: `user-${index}`,
  }));

function openScreen(entries: AuditEntry[], routes: Record<string, TypedHandler> = {}) {
  const api = installTypedFakeApi({ 'GET /api/admin/logs': data(LogListResponse, entries), ...routes });
  signInAdmin();
  return { api, ...renderApp('/admin/logs') };
}

const table = () => screen.findByRole('table', { name: 'Audit log' });

/** Catches the CSV downloads: the blobs the screen makes and the clicks on their links (no real download). */
function catchDownloads() {
  const blobs: Blob[] = [];
  vi.stubGlobal(
    'URL',
    Object.assign(URL, {
      createObjectURL: vi.fn((blob: Blob) => {
        blobs.push(blob);
        return 'blob:audit';
      }),
      revokeObjectURL: vi.fn(),
    }),
  );
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
  return { blobs, click };
}

/** Opens the toolbar's menu and chooses the clearing, which is kept out of the way there. */
async function chooseClear(user: ReturnType<typeof openScreen>['user']) {
  await user.click(screen.getByRole('button', { name: 'More log actions' }));
  await user.click(await findMenuItem('Clear entries older than 30 days'));
}

describe('logs screen', () => {
  it('shows date, actor, target and the translated action of each entry', async () => {
    openScreen([
      { Date: minutesAgo(5), Entry: { UserLogin: { UserName: 'ada', IpAddress: '192.0.2.1' } }, Actor: 'ada' },
      {
        Date: minutesAgo(9),
        Entry: { ApiKeyDeleted: { AdminName: 'root', Description: 'ci' } },
        Actor: 'root',
        Target: 'ci',
      },
      {
        Date: minutesAgo(12),
        Entry: { UserCreated: { AdminName: 'root', UserName: 'grace' } },
        Actor: 'root',
        Target: 'grace',
      },
    ]);
    const log = await table();
    const headers = within(log)
      .getAllByRole('columnheader')
      .map((cell) => cell.textContent);
    expect(headers).toEqual(['Date', 'Actor', 'Target', 'Action', 'Details']);
    const cells = (row: HTMLElement | undefined) =>
      within(row!)
        .getAllByRole('cell')
        .slice(1, 4)
        .map((cell) => cell.textContent);
    const [first, second, third] = bodyRows(log);
    expect(within(first!).getByRole('time')).toHaveAttribute('dateTime', expect.stringMatching(/Z$/) as string);
    expect(cells(first)).toEqual(['ada', '', 'User signed in']);
    expect(cells(second)).toEqual(['root', 'ci', 'API key deleted']);
    // The user an admin created is the target, no longer mixed into one column with the admin.
    expect(cells(third)).toEqual(['root', 'grace', 'User created']);
  });

  it('shows 25 entries a page and moves between pages', async () => {
    const { user } = openScreen(logins(30));
    const log = await table();
    expect(bodyRows(log)).toHaveLength(25);
    const pager = screen.getByRole('navigation', { name: 'Pages' });
    expect(within(pager).getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page');
    await user.click(within(pager).getByRole('button', { name: 'Page 2' }));
    expect(bodyRows(log)).toHaveLength(5);
    expect(bodyRows(log)[0]).toHaveTextContent('user-25');
  });

  it.each([
    [8, false],
    [9, true],
  ])('shows every page number up to 8 pages, ellipses beyond (%i pages: %s)', async (pages, ellipses) => {
    openScreen(logins(pages * 25));
    await table();
    const pager = screen.getByRole('navigation', { name: 'Pages' });
    expect(within(pager).getByRole('button', { name: `Page ${pages}` })).toBeInTheDocument();
    if (ellipses) {
      expect(pager).toHaveTextContent('…');
      expect(within(pager).queryByRole('button', { name: 'Page 6' })).not.toBeInTheDocument();
    } else {
      expect(pager).not.toHaveTextContent('…');
      expect(within(pager).getAllByRole('button', { name: /^Page \d+$/ })).toHaveLength(8);
    }
  });

  it('searches the entries in the browser, over every page', async () => {
    const { api, user } = openScreen(logins(30));
    const log = await table();
    await user.type(screen.getByRole('textbox', { name: 'Search the audit log' }), 'USER-27');
    expect(bodyRows(log)).toHaveLength(1);
    expect(bodyRows(log)[0]).toHaveTextContent('user-27');
    expect(api.calls('GET /api/admin/logs')).toHaveLength(1);
    await user.clear(screen.getByRole('textbox', { name: 'Search the audit log' }));
    await user.type(screen.getByRole('textbox', { name: 'Search the audit log' }), 'nobody');
    expect(screen.getByText('Nothing matches the search')).toBeInTheDocument();
  });

  it('opens an entry’s details', async () => {
    const { user } = openScreen([
      {
        Date: '2026-11-24T09:30:00.000Z',
        Entry: {
          GrantFailed: {
            UserName: 'ada',
            IpAddress: '198.51.100.7',
            AclDescription: 'SSH',
            ErrorMessage: 'agent offline',
          },
        },
        Actor: 'ada',
        Target: 'SSH',
      },
    ]);
    await table();
    await user.click(screen.getByRole('button', { name: /Show details of the entry of/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Audit entry' });
    const text = (label: string) => within(dialog).getByRole('rowheader', { name: label }).nextElementSibling;
    expect(text('Action')).toHaveTextContent('Grant failed');
    expect(text('Actor')).toHaveTextContent('ada');
    expect(text('Target')).toHaveTextContent('SSH');
    expect(text('User name')).toHaveTextContent('ada');
    expect(text('IP address')).toHaveTextContent('198.51.100.7');
    expect(text('Knoc')).toHaveTextContent('SSH');
    expect(text('Error message')).toHaveTextContent('agent offline');
    expect(within(dialog).queryByRole('rowheader', { name: 'Agent name' })).not.toBeInTheDocument();
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('downloads the log as a CSV named by today’s date, formulas neutralised', async () => {
    const { blobs, click } = catchDownloads();
    const { user } = openScreen([
      { Date: '2026-11-24T09:30:00.000Z', Entry: { UserLogin: { UserName: '=cmd|x', IpAddress: '192.0.2.1' } } },
    ]);
    await table();
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));

    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    expect(click).toHaveBeenCalledOnce();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe(`${day}-postern-audit.csv`);
    const csv = await blobs[0]!.text();
    expect(csv).toContain('"Date","Action","ActionText","Actor","Target","UserName"');
    expect(csv).toContain(`"2026-11-24T09:30:00.000Z","UserLogin","User signed in","","","'=cmd|x"`);
    expect(await screen.findByText(`Saved ${day}-postern-audit.csv`)).toBeInTheDocument();
  });

  describe('filters', () => {
    const ENTRIES: AuditEntry[] = [
      { Date: minutesAgo(1), Entry: { UserLogin: { UserName: 'ada' } }, Actor: 'ada' },
      {
        Date: minutesAgo(2),
        Entry: { UserCreated: { AdminName: 'ops', UserName: 'ada' } },
        Actor: 'ops',
        Target: 'ada',
      },
      {
        Date: minutesAgo(3),
        Entry: { UserCreated: { AdminName: 'ops', UserName: 'bob' } },
        Actor: 'ops',
        Target: 'bob',
      },
    ];
    /** A fake server that filters like the real one does on action and actor. */
    const filtering: TypedHandler = (request) => {
      const action = request.query.get('action');
      const actor = request.query.get('actor');
      return data(
        LogListResponse,
        ENTRIES.filter(
          (entry) =>
            (action === null || Object.keys(entry.Entry)[0] === action) &&
            (actor === null || (entry.Actor ?? '').includes(actor)),
        ),
      );
    };
    /** The screen over the filtering server, its table shown. */
    async function openFiltering() {
      const screenParts = openScreen([], { 'GET /api/admin/logs': filtering });
      return { ...screenParts, log: await table() };
    }
    const lastQuery = (api: ReturnType<typeof openScreen>['api']) =>
      Object.fromEntries(api.calls('GET /api/admin/logs').at(-1)?.query ?? []);
    const filterBar = () => within(screen.getByRole('search', { name: 'Filter the audit log' }));

    /** Types a time range into the From and Until fields (local times, as the browser's pickers give them). */
    function chooseRange(from: string, until: string) {
      fireEvent.change(filterBar().getByLabelText('From'), { target: { value: from } });
      fireEvent.change(filterBar().getByLabelText('Until'), { target: { value: until } });
    }

    it('asks the server for the action, actor and time range chosen, and says when nothing matches', async () => {
      const { api, user, log } = await openFiltering();
      expect(bodyRows(log)).toHaveLength(3);
      expect(lastQuery(api)).toEqual({});

      await pick(user, 'Action', 'User created');
      await user.type(filterBar().getByRole('textbox', { name: 'Actor' }), 'ops');
      await waitFor(() => expect(lastQuery(api)).toEqual({ action: 'UserCreated', actor: 'ops' }));
      await waitFor(() => expect(bodyRows(log)).toHaveLength(2));

      chooseRange('2026-11-24T09:30', '2026-11-25T00:00');
      // The admin's local times, sent as instants.
      await waitFor(() =>
        expect(lastQuery(api)).toEqual({
          action: 'UserCreated',
          actor: 'ops',
          from: new Date(2026, 10, 24, 9, 30).toISOString(),
          to: new Date(2026, 10, 25, 0, 0).toISOString(),
        }),
      );

      await user.clear(filterBar().getByRole('textbox', { name: 'Actor' }));
      await user.type(filterBar().getByRole('textbox', { name: 'Actor' }), 'nobody');
      expect(await screen.findByText('No entry matches the filters')).toBeInTheDocument();
    });

    it('marks a range that ends before it starts and does not ask for it', async () => {
      const { api } = openScreen(ENTRIES);
      await table();
      chooseRange('2026-11-24T10:00', '2026-11-24T09:00');
      expect(await screen.findByText('“Until” must be after “From”')).toBeInTheDocument();
      // Mended, the range is asked for; the backwards one would have been asked for before it, and
      // never was (the start alone may have been, while the end was still empty).
      chooseRange('2026-11-24T10:00', '2026-11-24T11:00');
      const mendedEnd = new Date(2026, 10, 24, 11, 0).toISOString();
      await waitFor(() => expect(lastQuery(api)).toMatchObject({ to: mendedEnd }));
      const ends = api.calls('GET /api/admin/logs').map((call) => call.query.get('to'));
      expect(ends.filter((end) => end !== null && end !== mendedEnd)).toEqual([]);
    });

    it('clears every filter at once', async () => {
      const { api, user, log } = await openFiltering();
      await user.type(filterBar().getByRole('textbox', { name: 'Actor' }), 'ada');
      await waitFor(() => expect(bodyRows(log)).toHaveLength(1));
      await user.click(filterBar().getByRole('button', { name: 'Clear filters' }));
      expect(filterBar().getByRole('textbox', { name: 'Actor' })).toHaveValue('');
      await waitFor(() => expect(bodyRows(log)).toHaveLength(3));
      expect(lastQuery(api)).toEqual({});
      expect(filterBar().queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();
    });

    it('downloads what the filters and the search select, nothing else', async () => {
      const { blobs } = catchDownloads();
      const { user, log } = await openFiltering();
      await user.type(filterBar().getByRole('textbox', { name: 'Actor' }), 'ops');
      await waitFor(() => expect(bodyRows(log)).toHaveLength(2));
      await user.type(screen.getByRole('textbox', { name: 'Search the audit log' }), 'bob');
      expect(bodyRows(log)).toHaveLength(1);
      await user.click(screen.getByRole('button', { name: 'Download CSV' }));

      const lines = (await blobs[0]!.text()).trim().split('\r\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain('"UserCreated","User created","ops","bob"');
    });
  });

  it('keeps the clearing out of the toolbar, in a menu, as a red entry', async () => {
    const { user } = openScreen(logins(1));
    await table();
    const toolbar = screen.getByRole('toolbar', { name: 'Logs' });
    expect(within(toolbar).queryByRole('button', { name: /Clear entries/ })).not.toBeInTheDocument();
    await user.click(within(toolbar).getByRole('button', { name: 'More log actions' }));
    const clear = await findMenuItem('Clear entries older than 30 days');
    expect(clear.getAttribute('style')).toContain('--menu-item-color: var(--mantine-color-error)');
  });

  it('clears entries older than 30 days after a confirmation and says how many went', async () => {
    const { api, user } = openScreen(logins(2), {
      'DELETE /api/admin/logs': data(LogClearResponse, { Deleted: 12 }),
    });
    await table();
    await chooseClear(user);
    let confirm = await screen.findByRole('dialog', { name: 'Clear old log entries' });
    expect(confirm).toHaveTextContent('older than 30 days');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/logs')).toHaveLength(0);

    await chooseClear(user);
    confirm = await screen.findByRole('dialog', { name: 'Clear old log entries' });
    await user.click(within(confirm).getByRole('button', { name: 'Clear' }));
    expect(await screen.findByText('12 log entries deleted')).toBeInTheDocument();
    expect(api.calls('DELETE /api/admin/logs')).toHaveLength(1);
    await waitFor(() => expect(api.calls('GET /api/admin/logs')).toHaveLength(2));
  });

  it('shows a refused clearing in the Error dialog', async () => {
    const { user } = openScreen(logins(1), { 'DELETE /api/admin/logs': apiError(500, ErrorCodes.internalServerError) });
    await table();
    await chooseClear(user);
    const confirm = await screen.findByRole('dialog', { name: 'Clear old log entries' });
    await user.click(within(confirm).getByRole('button', { name: 'Clear' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('Internal server error');
    expect(screen.queryByText(/log entries deleted/)).not.toBeInTheDocument();
  });

  it('says so when the log cannot be read', async () => {
    openScreen([], { 'GET /api/admin/logs': apiError(500, ErrorCodes.internalServerError) });
    expect(await screen.findByText('Internal server error')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeDisabled();
  });
});
