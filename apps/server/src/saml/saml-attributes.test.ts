import { describe, expect, it } from 'vitest';
import { displayName, groupNames, sessionDurationMinutes } from './saml-attributes.js';

describe('displayName', () => {
  it.each([
    ['displayName first', { displayName: 'Alice Example', cn: 'alice', givenName: 'A' }, 'Alice Example'],
    ['the eduPerson OID', { 'urn:oid:2.16.840.1.113730.3.1.241': 'Alice OID' }, 'Alice OID'],
    [
      'the Entra ID display name claim',
      { 'http://schemas.microsoft.com/identity/claims/displayname': 'Alice E' },
      'Alice E',
    ],
    ['cn', { cn: ['Alice C', 'second'] }, 'Alice C'],
    ['givenName and sn', { givenName: 'Alice', sn: 'Example' }, 'Alice Example'],
    [
      'the claim URIs for given name and surname',
      {
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname': 'Alice',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname': 'Claims',
      },
      'Alice Claims',
    ],
    ['a given name alone', { givenName: 'Alice' }, 'Alice'],
    [
      'the name claim (a UPN) before the NameID',
      { 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': 'a@x' },
      'a@x',
    ],
    ['the NameID when there is nothing else', {}, 'alice'],
    ['the NameID when values are blank or not text', { displayName: '  ', cn: [{ nested: true }] }, 'alice'],
  ])('uses %s', (_what, attributes, expected) => {
    expect(displayName(attributes, 'alice')).toBe(expected);
  });

  it('keeps a name within 200 characters', () => {
    expect(displayName({ displayName: 'x'.repeat(500) }, 'alice')).toHaveLength(200);
  });
});

describe('groupNames', () => {
  it('merges every group attribute, each name once, trimmed', () => {
    const result = groupNames({
      groups: ['vpn', ' ops '],
      memberOf: 'CN=Admins,OU=Groups,DC=example,DC=com',
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': ['0b3f2a6e-1111-2222-3333-444455556666', 'vpn'],
      'http://schemas.xmlsoap.org/claims/Group': 'adfs-group',
      'urn:oid:1.3.6.1.4.1.5923.1.5.1.1': 'edu-group',
      department: 'not a group',
    });
    expect(result).toEqual({
      names: [
        'vpn',
        'ops',
        'CN=Admins,OU=Groups,DC=example,DC=com',
        'edu-group',
        'adfs-group',
        '0b3f2a6e-1111-2222-3333-444455556666',
      ],
      skipped: 0,
    });
  });

  it('is empty without group attributes (the user then leaves their saml groups)', () => {
    expect(groupNames({ displayName: 'x' })).toEqual({ names: [], skipped: 0 });
  });

  it('skips names too long for a group', () => {
    expect(groupNames({ groups: ['ok', 'x'.repeat(201)] })).toEqual({ names: ['ok'], skipped: 1 });
  });

  it('does not read inherited properties as attributes', () => {
    expect(groupNames(Object.create({ groups: ['inherited'] }) as Record<string, unknown>).names).toEqual([]);
  });
});

describe('sessionDurationMinutes', () => {
  it.each([
    [{}, undefined],
    [{ sessionDuration: '30' }, 30],
    [{ sessionDuration: ['45', '90'] }, 45],
    [{ sessionDuration: '1' }, 1],
    [{ sessionDuration: '0' }, 'invalid'],
    [{ sessionDuration: '-5' }, 'invalid'],
    [{ sessionDuration: '1.5' }, 'invalid'],
    [{ sessionDuration: '30m' }, 'invalid'],
    [{ sessionDuration: '9999999999' }, 'invalid'],
  ])('reads %j as %s', (attributes, expected) => {
    expect(sessionDurationMinutes(attributes)).toBe(expected);
  });
});
