import { screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderUi } from '@/test-support/render-ui';
import { installFakeApi } from '@/test-support/fake-api';
import { stubMatchMedia } from '@/test-support/match-media';
import { ChangePasswordButton } from '@/features/account/components/ChangePasswordButton';
import { LogoutButton } from './LogoutButton';
import { PortalHeader } from './PortalHeader';
import { SessionCountdown } from './SessionCountdown';

function renderHeader() {
  installFakeApi();
  const ends = new Date(Date.now() + 3_600_000).toISOString();
  // The logout button navigates to the login page afterwards.
  return renderUi(
    <MemoryRouter>
      <PortalHeader name="Ada" timer={<SessionCountdown ends={ends} />}>
        <ChangePasswordButton names={['Ada']} />
        <LogoutButton />
      </PortalHeader>
    </MemoryRouter>,
  );
}

describe('the portal header', () => {
  it('shows its buttons with their labels on a wide screen', () => {
    renderHeader();
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('button', { name: 'Log out' })).toHaveTextContent('Log out');
    expect(within(header).getByRole('button', { name: 'Change password' })).toHaveTextContent('Change password');
    expect(within(header).getByRole('timer')).toHaveStyle({ flexDirection: '' });
  });

  it('shrinks its buttons to named icons and stacks the countdown on a phone, to keep to two rows', async () => {
    // Every media query matches, as a phone's narrow screen matches `(max-width: 36em)`.
    stubMatchMedia(true);
    renderHeader();
    const header = screen.getByRole('banner');
    await waitFor(() => expect(within(header).getByRole('button', { name: 'Log out' })).toHaveTextContent(''));
    expect(within(header).getByRole('button', { name: 'Change password' })).toHaveTextContent('');
    expect(within(header).getByRole('timer', { name: 'Session expires in' })).toHaveStyle({ flexDirection: 'column' });
  });
});
