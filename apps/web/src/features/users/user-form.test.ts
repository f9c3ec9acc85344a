import { describe, expect, it } from 'vitest';
import type { UserRecord } from '@postern/protocol';
import { zodFormErrors } from '@/lib/forms/zod-form-errors';
import {
  apiKeyExpiresAt,
  deriveUserName,
  existingUserValues,
  newUserValues,
  toCreateBody,
  toUpdateBody,
  userFormSchema,
  type UserFormValues,
} from './user-form';

const identity = (key: string) => key;
const errorsOf = (values: UserFormValues, mode: 'create' | 'edit' = 'create', max: number | null = 5) =>
  zodFormErrors(userFormSchema(mode, max), values, identity);

const valid = (overrides: Partial<UserFormValues> = {}): UserFormValues => ({
  ...newUserValues(5),
  Name: 'Ada Lovelace',
  UserName: 'ada.lovelace',
  PlainPassword: 'correct-horse',
  ConfirmPassword: 'correct-horse',
  ...overrides,
});

const record: UserRecord = {
  ID: 'u-1',
  Name: 'Ada Lovelace',
  UserName: 'ada',
  Company: 'Analytical Engines',
  Duration: 60,
  SessionLimit: 2,
  AuthType: 'local',
  TOTPEnabled: true,
  TOTPVerified: true,
  Disabled: false,
  ValidUntil: null,
  ThirdPartyAuth: null,
  AclIds: ['acl-1'],
  Licensed: true,
  LastLogin: null,
  CreatedAt: '2026-01-01T00:00:00.000Z',
  ActiveSession: false,
};

describe('deriveUserName', () => {
  it.each([
    ['Ada Lovelace', 'ada.lovelace'],
    ['  Grace   Brewster Hopper ', 'grace.brewster.hopper'],
    ['ALAN', 'alan'],
    ['', ''],
  ])('%j → %j', (name, expected) => expect(deriveUserName(name)).toBe(expected));
});

describe('new user defaults', () => {
  it('start with Duration 480 and the licence’s SessionLimit', () => {
    expect(newUserValues(3)).toMatchObject({ Duration: 480, SessionLimit: 3, AuthType: 'local' });
    expect(newUserValues(null).SessionLimit).toBe('');
  });
});

describe('userFormSchema', () => {
  it('accepts a complete local user', () => expect(errorsOf(valid())).toEqual({}));

  it.each<[string, Partial<UserFormValues>, Record<string, string>]>([
    [
      'name and username required',
      { Name: ' ', UserName: '' },
      {
        Name: 'usersScreen.validation.nameRequired',
        UserName: 'usersScreen.validation.userNameRequired',
      },
    ],
    ['duration required', { Duration: '' }, { Duration: 'usersScreen.validation.durationRequired' }],
    ['duration at least 1', { Duration: 0 }, { Duration: 'err.userDurationRange' }],
    ['duration whole', { Duration: 1.5 }, { Duration: 'err.userDurationRange' }],
    ['session limit required', { SessionLimit: '' }, { SessionLimit: 'usersScreen.validation.sessionLimitRange' }],
    ['session limit at least 1', { SessionLimit: 0 }, { SessionLimit: 'usersScreen.validation.sessionLimitRange' }],
    [
      'session limit at most the licence’s',
      { SessionLimit: 6 },
      {
        SessionLimit: 'usersScreen.validation.sessionLimitRange',
      },
    ],
    [
      'password 8 characters',
      { PlainPassword: 'short', ConfirmPassword: 'short' },
      {
        PlainPassword: 'err.passwordLength',
      },
    ],
    [
      'password at most 64',
      { PlainPassword: 'x'.repeat(65), ConfirmPassword: 'x'.repeat(65) },
      {
        PlainPassword: 'err.passwordLength',
      },
    ],
    [
      'password required on create',
      { PlainPassword: '', ConfirmPassword: '' },
      {
        PlainPassword: 'err.passwordLength',
      },
    ],
    ['confirmation equal', { ConfirmPassword: 'correct-horsE' }, { ConfirmPassword: 'err.passwordsDontMatch' }],
    ['valid until a datetime', { ValidUntil: 'tomorrow' }, { ValidUntil: 'usersScreen.validation.validUntilInvalid' }],
    ['LDAP needs a DN', { AuthType: 'LDAP', PlainPassword: '' }, { 'ThirdPartyAuth.DN': 'err.ldapDnRequired' }],
    [
      'a new key needs name and expiry',
      { AuthType: 'apikey', PlainPassword: '' },
      {
        'ApiKey.Name': 'usersScreen.validation.apiKeyNameRequired',
        'ApiKey.Expiry': 'usersScreen.validation.apiKeyExpiryRequired',
      },
    ],
  ])('%s', (_rule, overrides, expected) => {
    expect(errorsOf(valid(overrides))).toEqual(expected);
  });

  it('lets an edit keep the password by leaving it empty', () => {
    expect(errorsOf(valid({ PlainPassword: '', ConfirmPassword: '' }), 'edit')).toEqual({});
  });

  it('allows an empty session limit (no limit) when unlicensed, but not 0', () => {
    expect(errorsOf(valid({ SessionLimit: '' }), 'create', null)).toEqual({});
    expect(errorsOf(valid({ SessionLimit: 0 }), 'create', null)).toEqual({
      SessionLimit: 'usersScreen.validation.sessionLimitMin',
    });
  });

  it('needs nothing more for an apikey user without a key, or a SAML user', () => {
    const apiKeyNone = valid({
      AuthType: 'apikey',
      PlainPassword: '',
      ApiKey: { Choice: 'none', Name: '', Expiry: '' },
    });
    expect(errorsOf(apiKeyNone)).toEqual({});
    expect(errorsOf(valid({ AuthType: 'SAML', PlainPassword: '', ConfirmPassword: '' }))).toEqual({});
  });
});

describe('apiKeyExpiresAt', () => {
  const now = new Date('2026-03-15T10:00:00.000Z');
  it.each([
    ['12', '2027-03-15'],
    ['24', '2028-03-15'],
  ] as const)('%s months', (expiry, day) => expect(apiKeyExpiresAt(expiry, now)?.slice(0, 10)).toBe(day));
  it('never sends no expiry', () => expect(apiKeyExpiresAt('never', now)).toBeUndefined());
});

describe('request bodies', () => {
  const now = new Date('2026-03-15T10:00:00.000Z');

  it('create a local user with the spec’s field names', () => {
    expect(toCreateBody(valid({ Company: ' ACME ', TOTPEnabled: true }), now)).toEqual({
      Name: 'Ada Lovelace',
      UserName: 'ada.lovelace',
      Company: 'ACME',
      Duration: 480,
      SessionLimit: 5,
      AuthType: 'local',
      PlainPassword: 'correct-horse',
      ConfirmPassword: 'correct-horse',
      TOTPEnabled: true,
      ValidUntil: null,
      ThirdPartyAuth: null,
      Disabled: false,
    });
  });

  it('send a DN only for LDAP, no password and no TOTP for SAML', () => {
    const ldap = toCreateBody(valid({ AuthType: 'LDAP', ThirdPartyAuth: { DN: ' cn=ada ' } }), now);
    expect(ldap).toMatchObject({ ThirdPartyAuth: { DN: 'cn=ada' } });
    expect(ldap).not.toHaveProperty('PlainPassword');
    const saml = toCreateBody(valid({ AuthType: 'SAML', TOTPEnabled: true }), now);
    expect(saml).toMatchObject({ TOTPEnabled: false, ThirdPartyAuth: null });
  });

  it('create an apikey user with its key, and without one', () => {
    const withKey = valid({ AuthType: 'apikey', ApiKey: { Choice: 'new', Name: 'ci', Expiry: '12' } });
    expect(toCreateBody(withKey, now).ApiKey).toEqual({ Name: 'ci', ExpiredAfter: '2027-03-15T10:00:00.000Z' });
    const never = valid({ AuthType: 'apikey', ApiKey: { Choice: 'new', Name: 'ci', Expiry: 'never' } });
    expect(toCreateBody(never, now).ApiKey).toEqual({ Name: 'ci' });
    const none = valid({ AuthType: 'apikey', ApiKey: { Choice: 'none', Name: 'ci', Expiry: '12' } });
    expect(toCreateBody(none, now)).not.toHaveProperty('ApiKey');
  });

  it('send ValidUntil as an ISO instant', () => {
    const body = toCreateBody(valid({ ValidUntil: '2026-12-31T18:30' }), now);
    expect(body.ValidUntil).toBe(new Date('2026-12-31T18:30').toISOString());
  });

  it('update keeps the username, kind, ACLs and the disabled flag, and no empty password', () => {
    const values = { ...existingUserValues(record), Name: 'Ada King', UserName: 'changed' };
    expect(toUpdateBody(values, record)).toEqual({
      ID: 'u-1',
      Name: 'Ada King',
      UserName: 'ada',
      Company: 'Analytical Engines',
      Duration: 60,
      SessionLimit: 2,
      AuthType: 'local',
      TOTPEnabled: true,
      ValidUntil: null,
      ThirdPartyAuth: null,
      AclIds: ['acl-1'],
      Disabled: false,
    });
  });

  it('edit starts from the user, with empty passwords', () => {
    const values = existingUserValues({ ...record, ValidUntil: '2026-12-31T18:30:00.000Z', SessionLimit: null });
    expect(values).toMatchObject({ Name: 'Ada Lovelace', PlainPassword: '', SessionLimit: '', Duration: 60 });
    expect(new Date(values.ValidUntil).toISOString()).toBe('2026-12-31T18:30:00.000Z');
  });
});
