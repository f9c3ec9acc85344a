import { describe, expect, it } from 'vitest';
import { displayNameClaim, groupsClaim, mergedClaims, userNameClaim } from './oidc-claims.js';
import { allowsPlainHttp, providerName, requestedScopes } from './oidc-settings.js';

describe('the user name claim', () => {
  it.each([
    [{ preferred_username: ' alice ' }, 'preferred_username', { userName: 'alice' }],
    [{ upn: 'alice@example.com' }, 'upn', { userName: 'alice@example.com' }],
  ])('reads %o from %s', (claims, claim, expected) => {
    expect(userNameClaim(claims, claim)).toEqual(expected);
  });

  it.each([
    [{}, /missing or not a string/],
    [{ preferred_username: '' }, /missing or not a string/],
    [{ preferred_username: 42 }, /missing or not a string/],
    [{ preferred_username: ['alice'] }, /missing or not a string/],
    [{ preferred_username: 'a\nb' }, /not a user name/],
    [{ preferred_username: 'x'.repeat(201) }, /not a user name/],
  ])('refuses %o', (claims, problem) => {
    const found = userNameClaim(claims, 'preferred_username');
    expect('problem' in found && found.problem).toMatch(problem);
  });

  it('does not read a claim from the prototype chain', () => {
    expect(userNameClaim({}, 'constructor')).toHaveProperty('problem');
  });
});

describe('the display name', () => {
  it.each([
    [{ name: 'Alice Example', given_name: 'A' }, 'Alice Example'],
    [{ given_name: 'Bob', family_name: 'Builder' }, 'Bob Builder'],
    [{ family_name: 'Builder' }, 'Builder'],
    [{}, 'fallback'],
    [{ name: 'Tab\there' }, 'Tab here'],
  ])('of %o is %s', (claims, expected) => {
    expect(displayNameClaim(claims, 'fallback')).toBe(expected);
  });
});

describe('the groups claim', () => {
  it('reads a list, each name once, trimmed, skipping what is no group name', () => {
    expect(groupsClaim({ groups: [' ops ', 'ops', 'db', 7, '', 'x'.repeat(201), 'a\u0000b'] }, 'groups')).toEqual({
      names: ['ops', 'db'],
      skipped: 4,
    });
  });

  it('reads a single string as one group, and an absent claim as none', () => {
    expect(groupsClaim({ roles: 'admins' }, 'roles')).toEqual({ names: ['admins'], skipped: 0 });
    expect(groupsClaim({}, 'groups')).toEqual({ names: [], skipped: 0 });
  });

  it('keeps at most a thousand groups', () => {
    const many = Array.from({ length: 1005 }, (_, index) => `g${index}`);
    expect(groupsClaim({ groups: many }, 'groups')).toMatchObject({ skipped: 5 });
  });
});

describe('claims of the ID token and userinfo', () => {
  it('takes the ID token’s where both have a claim, and userinfo’s where only it has one', () => {
    expect(mergedClaims({ sub: 's', name: 'From token' }, { sub: 's', name: 'From userinfo', groups: ['g'] })).toEqual({
      sub: 's',
      name: 'From token',
      groups: ['g'],
    });
  });
});

describe('settings helpers', () => {
  it.each([
    ['', ['openid', 'profile', 'email', 'groups']],
    ['email  profile', ['openid', 'email', 'profile']],
    ['profile openid profile', ['openid', 'profile']],
  ])('asks for the scopes %j as %j', (setting, scopes) => {
    expect(requestedScopes(setting)).toEqual(scopes);
  });

  it('allows plain http to loopback issuers only', () => {
    expect(allowsPlainHttp('http://127.0.0.1:8080')).toBe(true);
    expect(allowsPlainHttp('http://localhost')).toBe(true);
    expect(allowsPlainHttp('http://[::1]:9000')).toBe(true);
    expect(allowsPlainHttp('http://idp.example.com')).toBe(false);
    expect(allowsPlainHttp('http://127.0.0.1.example.com')).toBe(false);
    expect(allowsPlainHttp('https://127.0.0.1')).toBe(false);
  });

  it('names the provider by its display name, else the issuer’s host', () => {
    expect(providerName({ displayName: 'Staff IdP', issuer: 'https://idp.example.com' })).toBe('Staff IdP');
    expect(providerName({ displayName: '', issuer: 'https://idp.example.com/realms/x' })).toBe('idp.example.com');
  });
});
