import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AdminStatusResponse,
  AgentListResponse,
  LICENCE_EXPIRY_WARNING_DAYS,
  type AdminStatus,
} from '@postern/protocol';
import { APP_LOAD } from '@/test-support/render-app';
import { daysFromNow } from '@/test-support/time';
import { licensing, quietStatus } from '@/test-support/records/banners';
import { signInAdmin } from '../../../test-support/fixtures';
import { renderApp } from '../../../test-support/render-app';
import { data, installTypedFakeApi } from '../../../test-support/typed-fake-api';

const TITLE = 'Your licence expires soon';

async function openHome(status: AdminStatus) {
  installTypedFakeApi({
    'GET /api/admin/status': data(AdminStatusResponse, status),
    'GET /api/admin/agents': data(AgentListResponse, []),
  });
  signInAdmin();
  renderApp('/admin/home');
  // The counters mean the status has arrived and the page has drawn everything it will.
  await screen.findByText('Active sessions', undefined, APP_LOAD);
}

// Whole-app renders with lazy admin chunks; a busy machine needs more than the 5 s default.
describe('admin home licence expiry banner', { timeout: 20_000 }, () => {
  it('warns with the days left when the licence expires within the warning window', async () => {
    await openHome(quietStatus({ Licensing: licensing({ Expires: daysFromNow(10.5) }) }));
    const banner = screen.getByRole('alert', { name: TITLE });
    expect(banner).toHaveTextContent(/The licence expires in 11 days, on .+2\d{3}\. Renew it/);
  });

  it('says "1 day" on the last day', async () => {
    await openHome(quietStatus({ Licensing: licensing({ Expires: daysFromNow(0.25) }) }));
    expect(screen.getByRole('alert', { name: TITLE })).toHaveTextContent('The licence expires in 1 day, on');
  });

  it.each<[string, Partial<AdminStatus>]>([
    ['outside the window', { Licensing: licensing({ Expires: daysFromNow(LICENCE_EXPIRY_WARNING_DAYS + 1) }) }],
    ['on a cloud installation', { Cloud: true, Licensing: licensing({ Expires: daysFromNow(10) }) }],
  ])('stays away %s', async (_name, overrides) => {
    await openHome(quietStatus(overrides));
    expect(screen.queryByRole('alert', { name: TITLE })).not.toBeInTheDocument();
  });

  it('appears only on the admin home, not in the banner area of other pages', async () => {
    installTypedFakeApi({
      'GET /api/admin/status': data(
        AdminStatusResponse,
        quietStatus({ Licensing: licensing({ Expires: daysFromNow(10) }) }),
      ),
      'GET /api/admin/agents': data(AgentListResponse, []),
    });
    signInAdmin();
    renderApp('/admin/knocs/new');
    await screen.findByRole('heading', { level: 1, name: 'New knoc' }, APP_LOAD);
    expect(screen.queryByRole('alert', { name: TITLE })).not.toBeInTheDocument();
  });
});
