import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, KnocRecord, UserRecord } from '@postern/protocol';
import { expiredAfterFor, expiryState } from './api-key-expiry';
import { allowedFromText, allowlistKnocs, apiKeyUsers, scopeLabel, scopeNames } from './api-key-display';
import {
  createFormSchema,
  EDIT_FORM_SCHEMA,
  existingKeyValues,
  newKeyValues,
  pickNotePlaceholder,
  toCreateBody,
  toUpdateBody,
  type ApiKeyFormValues,
} from './api-key-form';
import { choiceOfScopes, purposeOfScopes, scopesFor } from './api-key-scopes';
import { firstIssues } from '@/test-support/form-issues';
import { apiKey } from '@/test-support/records/api-keys';

const NOW = new Date('2026-11-24T10:00:00.000Z');

/** A key for two allowlists, used from one office network. */
function storedKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return apiKey({
    ID: 'k1',
    Name: 'ci',
    Scopes: ['allowlist.read:a1', 'allowlist.read:a2'],
    Resources: ['a1', 'a2'],
    AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'office' }],
    ExpiredAfter: null,
    CreatedAt: '2026-01-01T00:00:00.000Z',
    LastUsedAt: null,
    ...overrides,
  });
}

function values(overrides: Partial<ApiKeyFormValues> = {}): ApiKeyFormValues {
  return { ...newKeyValues(['v4', 'v6']), Name: 'ci', AllowlistIds: ['a1'], Expiry: '12m', ...overrides };
}

describe('purposes and scopes (spec §4)', () => {
  it.each([
    ['allowlists', { allowlistIds: ['a1', 'a2', 'a1'], userId: 'u1' }, ['allowlist.read:a1', 'allowlist.read:a2']],
    ['agent_register', { allowlistIds: ['a1'], userId: 'u1' }, ['agent.register']],
    ['user_sessions', { allowlistIds: [], userId: '' }, ['user.sessions']],
    ['user_auth', { allowlistIds: ['a1'], userId: 'u7' }, ['user.auth:u7']],
  ] as const)('%s gives %j', (purpose, choice, scopes) => {
    expect(scopesFor(purpose, choice)).toEqual(scopes);
  });

  it.each([
    [['user.auth:u1', 'allowlist.read:a1'], 'user_auth'],
    [['allowlist.read:a1'], 'allowlists'],
    [['agent.register'], 'agent_register'],
    [['user.sessions'], 'user_sessions'],
    [['something.else'], null],
    [[], null],
  ] as const)('the purpose of %j is that of its first scope: %s', (scopes, purpose) => {
    expect(purposeOfScopes(scopes)).toBe(purpose);
  });

  it('reads the allowlists and the user back from the scopes', () => {
    expect(choiceOfScopes(['allowlist.read:a1', 'user.auth:u2', 'allowlist.read:a3'])).toEqual({
      allowlistIds: ['a1', 'a3'],
      userId: 'u2',
    });
  });
});

describe('expiry (spec §9: 12 months, 24 months, never)', () => {
  it.each([
    ['12m', '2027-11-24T10:00:00.000Z'],
    ['24m', '2028-11-24T10:00:00.000Z'],
    ['never', undefined],
  ] as const)('%s expires at %s', (choice, instant) => {
    expect(expiredAfterFor(choice, NOW)).toBe(instant);
  });

  it.each([
    [null, 'never'],
    ['2026-11-24T09:59:59.000Z', 'expired'],
    ['2026-11-24T10:00:00.000Z', 'expired'],
    ['2026-11-24T10:00:01.000Z', 'valid'],
  ] as const)('a key expiring %s is %s', (expiredAfter, state) => {
    expect(expiryState(expiredAfter, NOW.getTime())).toBe(state);
  });
});

describe('the create dialog’s rules (spec §5)', () => {
  const schema = createFormSchema(['taken']);

  it('accepts a complete key', () => {
    expect(firstIssues(schema, values())).toEqual({});
  });

  it.each<[string, Partial<ApiKeyFormValues>, Record<string, string>]>([
    ['an empty name', { Name: '  ' }, { Name: 'apiKeysScreen.validation.nameRequired' }],
    ['a name in use', { Name: ' taken ' }, { Name: 'err.apiKeyNameExists' }],
    ['no expiry chosen', { Expiry: '' }, { Expiry: 'apiKeysScreen.validation.expiryRequired' }],
    ['no allowlist', { AllowlistIds: [] }, { AllowlistIds: 'apiKeysScreen.validation.allowlistsRequired' }],
    [
      'no user for user_auth',
      { Purpose: 'user_auth', UserId: '' },
      { UserId: 'apiKeysScreen.validation.userRequired' },
    ],
    ['no entries', { AllowedFrom: [] }, { AllowedFrom: 'apiKeysScreen.validation.allowedFromRequired' }],
    [
      'an entry without prefix or note',
      { AllowedFrom: [{ Prefix: ' ', Note: '' }] },
      {
        'AllowedFrom.0.Prefix': 'apiKeysScreen.validation.prefixRequired',
        'AllowedFrom.0.Note': 'apiKeysScreen.validation.noteRequired',
      },
    ],
  ])('refuses %s', (_, overrides, expected) => {
    expect(firstIssues(schema, values(overrides))).toEqual(expected);
  });

  it('needs no allowlist for the other purposes', () => {
    expect(firstIssues(schema, values({ Purpose: 'agent_register', AllowlistIds: [] }))).toEqual({});
  });

  it.each([
    ['0.0.0.0/0', true],
    ['::/0', true],
    ['192.0.2.0/24', true],
    ['2001:db8::/128', true],
    ['192.0.2.0/33', false],
    ['2001:db8::/129', false],
    ['192.0.2.1', false],
    ['300.0.0.0/8', false],
    ['office', false],
  ])('takes %s as a CIDR: %s', (prefix, valid) => {
    const errors = firstIssues(schema, values({ AllowedFrom: [{ Prefix: prefix, Note: 'n' }] }));
    expect(errors).toEqual(valid ? {} : { 'AllowedFrom.0.Prefix': 'err.invalidCidr' });
  });

  it('checks only the allowed-from entries on edit', () => {
    const edit = { ...values({ Name: '', Expiry: '', AllowlistIds: [] }) };
    expect(EDIT_FORM_SCHEMA.safeParse(edit).success).toBe(true);
    expect(EDIT_FORM_SCHEMA.safeParse({ ...edit, AllowedFrom: [{ Prefix: 'x', Note: 'n' }] }).success).toBe(false);
  });
});

describe('form values and request bodies', () => {
  it('starts a new key allowed from anywhere, IPv4 and IPv6 (spec default)', () => {
    expect(newKeyValues(['any v4', 'any v6']).AllowedFrom).toEqual([
      { Prefix: '0.0.0.0/0', Note: 'any v4' },
      { Prefix: '::/0', Note: 'any v6' },
    ]);
  });

  it('sends the spec fields, trimmed, with the expiry counted from now', () => {
    const body = toCreateBody(
      values({ Name: ' ci ', AllowedFrom: [{ Prefix: ' 10.0.0.0/8 ', Note: ' lan ' }], Expiry: '24m' }),
      NOW,
    );
    expect(body).toEqual({
      Name: 'ci',
      Scopes: ['allowlist.read:a1'],
      AllowedFrom: [{ Prefix: '10.0.0.0/8', Note: 'lan' }],
      ExpiredAfter: '2028-11-24T10:00:00.000Z',
    });
  });

  it('sends no expiry for a key that never expires', () => {
    expect(toCreateBody(values({ Expiry: 'never' }), NOW)).not.toHaveProperty('ExpiredAfter');
  });

  it('fills the edit dialog from the stored key and sends back only its id and AllowedFrom', () => {
    const key = storedKey();
    const form = existingKeyValues(key);
    expect(form).toMatchObject({ Name: 'ci', Purpose: 'allowlists', AllowlistIds: ['a1', 'a2'], Expiry: 'never' });
    expect(toUpdateBody(key, { ...form, AllowedFrom: [{ Prefix: '::/0', Note: 'all' }] })).toEqual({
      ID: 'k1',
      AllowedFrom: [{ Prefix: '::/0', Note: 'all' }],
    });
  });

  it.each([
    [0, 0],
    [0.19, 0],
    [0.2, 1],
    [0.999, 4],
  ])('picks note placeholder %#: random %s gives %s', (random, index) => {
    expect(pickNotePlaceholder(() => random)).toBe(index);
  });
});

describe('display', () => {
  const knoc = (ID: string, Name: string, BackendType: KnocRecord['BackendType']) =>
    ({ ID, Name, BackendType }) as KnocRecord;
  const user = (ID: string, Name: string, AuthType: UserRecord['AuthType']) =>
    ({ ID, Name, UserName: Name.toLowerCase(), AuthType }) as UserRecord;
  const names = scopeNames([knoc('a1', 'Office list', 'allowlist')], [user('u1', 'Robot', 'apikey')]);

  it.each([
    ['allowlist.read:a1', 'apiKeysScreen.scope.allowlist', { name: 'Office list' }],
    ['allowlist.read:gone', 'apiKeysScreen.scope.allowlist', { name: 'gone' }],
    ['user.auth:u1', 'apiKeysScreen.scope.userAuth', { name: 'Robot' }],
    ['agent.register', 'apiKeysScreen.scope.agentRegister', {}],
    ['user.sessions', 'apiKeysScreen.scope.userSessions', {}],
    ['x.y', 'apiKeysScreen.scope.unknown', { scope: 'x.y' }],
  ])('describes %s', (scope, key, values) => {
    expect(scopeLabel(scope, names)).toEqual({ key, values });
  });

  it('offers only allowlist knocs and API-key users', () => {
    expect(allowlistKnocs([knoc('a', 'A', 'allowlist'), knoc('b', 'B', 'ipset')]).map((k) => k.ID)).toEqual(['a']);
    expect(apiKeyUsers([user('u', 'U', 'apikey'), user('v', 'V', 'local')]).map((u) => u.ID)).toEqual(['u']);
  });

  it('lists the allowed-from prefixes', () => {
    expect(allowedFromText([{ Prefix: '0.0.0.0/0' }, { Prefix: '::/0' }])).toBe('0.0.0.0/0, ::/0');
  });
});
