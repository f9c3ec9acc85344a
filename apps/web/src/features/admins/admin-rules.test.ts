import { describe, expect, it } from 'vitest';
import { adminRecord } from '@/test-support/records/admins';
import {
  adminFieldLocks,
  adminFormValues,
  adminRowActions,
  isOwnAccount,
  toAdminCreateBody,
  toAdminUpdateBody,
  type AdminFormValues,
} from './admin-rules';

const values = (overrides: Partial<AdminFormValues> = {}): AdminFormValues => ({
  ...adminFormValues(),
  Name: ' Ada ',
  UserName: ' ada ',
  PlainPassword: 'secret-password',
  ConfirmPassword: 'secret-password',
  ...overrides,
});

describe('adminFormValues', () => {
  it('starts a new admin local, with 2FA and sign-in on (spec defaults)', () => {
    expect(adminFormValues()).toEqual({
      Name: '',
      UserName: '',
      AuthType: 'local',
      PlainPassword: '',
      ConfirmPassword: '',
      ThirdPartyAuth: { DN: '' },
      TOTPEnabled: true,
      LoginEnabled: true,
    });
  });

  it('takes an existing admin’s values, never a password', () => {
    const ldap = adminRecord({
      AuthType: 'LDAP',
      ThirdPartyAuth: { DN: 'cn=g' },
      TOTPEnabled: false,
      LoginEnabled: false,
    });
    expect(adminFormValues(ldap)).toMatchObject({
      AuthType: 'LDAP',
      ThirdPartyAuth: { DN: 'cn=g' },
      TOTPEnabled: false,
      LoginEnabled: false,
      PlainPassword: '',
    });
  });
});

describe('toAdminCreateBody', () => {
  it.each([
    [
      'local: trimmed names and the password with its confirmation',
      values(),
      {
        Name: 'Ada',
        UserName: 'ada',
        AuthType: 'local',
        TOTPEnabled: true,
        LoginEnabled: true,
        PlainPassword: 'secret-password',
        ConfirmPassword: 'secret-password',
        ThirdPartyAuth: null,
      },
    ],
    [
      'LDAP: the DN and no password',
      values({ AuthType: 'LDAP', ThirdPartyAuth: { DN: ' cn=ada ' } }),
      {
        Name: 'Ada',
        UserName: 'ada',
        AuthType: 'LDAP',
        TOTPEnabled: true,
        LoginEnabled: true,
        ThirdPartyAuth: { DN: 'cn=ada' },
      },
    ],
    [
      'SAML: no password and no TOTP (the IdP owns the second factor)',
      values({ AuthType: 'SAML' }),
      { Name: 'Ada', UserName: 'ada', AuthType: 'SAML', TOTPEnabled: false, LoginEnabled: true, ThirdPartyAuth: null },
    ],
  ])('%s', (_name, input, expected) => {
    expect(toAdminCreateBody(input)).toEqual(expected);
  });

  it('leaves out an empty password (edit keeps the current one)', () => {
    const body = toAdminUpdateBody('a1', values({ PlainPassword: '', ConfirmPassword: '' }));
    expect(body).not.toHaveProperty('PlainPassword');
    expect(body).not.toHaveProperty('ConfirmPassword');
    expect(body.ID).toBe('a1');
  });
});

describe('own account rules', () => {
  it('recognises the signed-in admin by sign-in name', () => {
    expect(isOwnAccount(adminRecord(), 'grace')).toBe(true);
    expect(isOwnAccount(adminRecord(), 'ada')).toBe(false);
    expect(isOwnAccount(adminRecord(), undefined)).toBe(false);
  });

  it.each([
    ['another admin with 2FA', adminRecord(), false, { resetTotp: null, remove: null }],
    [
      'another admin without 2FA',
      adminRecord({ TOTPEnabled: false }),
      false,
      { resetTotp: 'adminsScreen.actions.totpOff', remove: null },
    ],
    ['yourself', adminRecord(), true, { resetTotp: 'err.cannotResetOwn2fa', remove: 'err.cannotDeleteSelf' }],
  ])('row actions of %s', (_name, record, own, expected) => {
    expect(adminRowActions(record, own)).toEqual(expected);
  });

  it.each([
    ['create', undefined, false, { identity: false, TOTPEnabled: null, LoginEnabled: null }],
    ['edit another admin', adminRecord(), false, { identity: true, TOTPEnabled: null, LoginEnabled: null }],
    [
      'edit yourself with 2FA on',
      adminRecord(),
      true,
      { identity: true, TOTPEnabled: 'err.cannotDisableOwn2fa', LoginEnabled: 'err.cannotDeleteSelf' },
    ],
    // Turning your own 2FA on is fine; only turning it off is refused.
    [
      'edit yourself with 2FA off',
      adminRecord({ TOTPEnabled: false }),
      true,
      { identity: true, TOTPEnabled: null, LoginEnabled: 'err.cannotDeleteSelf' },
    ],
  ])('field locks: %s', (_name, record, own, expected) => {
    expect(adminFieldLocks(record, own)).toEqual(expected);
  });
});
