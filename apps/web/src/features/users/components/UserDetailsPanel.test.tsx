import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { userRecord } from '@/test-support/fixtures';
import { renderUi } from '@/test-support/render-ui';
import { UserDetailsPanel } from './UserDetailsPanel';

/** The value shown under a detail's label. */
const detail = (label: string) => screen.getByText(label, { selector: 'p' }).nextElementSibling?.textContent;

describe('user details panel', () => {
  it('says what a new local user has not got: no company, no expiry, the licence’s limit, never signed in', () => {
    renderUi(<UserDetailsPanel user={userRecord()} />);
    expect(detail('Company')).toBe('—');
    expect(detail('Valid until')).toBe('Does not expire');
    expect(detail('Session limit')).toBe('The licence’s limit');
    expect(detail('Two-factor authentication')).toBe('Off');
    expect(detail('Last login')).toBe('Never');
    expect(detail('Licensed')).toBe('Yes');
    expect(screen.queryByText('Account disabled')).not.toBeInTheDocument();
    expect(screen.queryByText('DN')).not.toBeInTheDocument();
    expect(screen.queryByText(/cannot be edited/)).not.toBeInTheDocument();
  });

  it('shows what is set: company, limit, expiry, two-factor state, DN, a disabled and unlicensed account', () => {
    renderUi(
      <UserDetailsPanel
        user={userRecord({
          Company: 'Analytical Engines',
          SessionLimit: 3,
          ValidUntil: '2027-03-01T12:00:00.000Z',
          TOTPEnabled: true,
          TOTPVerified: false,
          AuthType: 'LDAP',
          ThirdPartyAuth: { DN: 'uid=ada,ou=people,dc=example,dc=org' },
          Disabled: true,
          Licensed: false,
          LastLogin: '2026-01-02T00:00:00.000Z',
        })}
      />,
    );
    expect(detail('Company')).toBe('Analytical Engines');
    expect(detail('Session limit')).toBe('3');
    expect(detail('Valid until')).toMatch(/2027/);
    expect(detail('Two-factor authentication')).toBe('On, not set up yet');
    expect(detail('DN')).toBe('uid=ada,ou=people,dc=example,dc=org');
    expect(detail('Licensed')).toBe('Not licensed');
    expect(detail('Account disabled')).toBe('Yes');
    expect(detail('Last login')).not.toBe('Never');
  });

  it('says a SAML user is the identity provider’s, and a verified second factor is on', () => {
    renderUi(<UserDetailsPanel user={userRecord({ AuthType: 'SAML', TOTPEnabled: true, TOTPVerified: true })} />);
    expect(screen.getByText('SAML users belong to the identity provider and cannot be edited.')).toBeInTheDocument();
    expect(detail('Two-factor authentication')).toBe('On');
  });
});
