import { describe, expect, it } from 'vitest';
import { groupFormValues, knocChoices, toGroupCreateBody, toGroupUpdateBody, userChoices } from './group-rules';
import { groupRecord } from '@/test-support/records/groups';
import { knocRecord, userRecord } from '@/test-support/fixtures';

describe('group form values and bodies', () => {
  it('starts a new group empty and local', () => {
    expect(groupFormValues()).toEqual({ Name: '', Description: '', Type: 'local', ACLIDs: [], UserIDs: [] });
  });

  it('creates with trimmed texts and the chosen knocs and users', () => {
    const values = { Name: ' Ops ', Description: ' on call ', Type: 'local' as const, ACLIDs: ['k1'], UserIDs: ['u1'] };
    expect(toGroupCreateBody(values)).toEqual({
      Name: 'Ops',
      Description: 'on call',
      Type: 'local',
      ACLIDs: ['k1'],
      UserIDs: ['u1'],
    });
  });

  it('creates a SAML group without members (they come from assertions)', () => {
    const values = { ...groupFormValues(), Name: 'Eng', Type: 'saml' as const, UserIDs: ['u1'] };
    expect(toGroupCreateBody(values).UserIDs).toEqual([]);
  });

  it.each([
    ['local: the chosen users', groupRecord({ UserIDs: ['u1'] }), ['u2'], ['u2']],
    ['saml: the members it has, unchanged', groupRecord({ Type: 'saml', UserIDs: ['u1'] }), [], ['u1']],
    ['dynamic: the members it has, unchanged', groupRecord({ Type: 'dynamic', UserIDs: ['u3'] }), ['u9'], ['u3']],
  ])('updates %s', (_name, group, chosen, expected) => {
    const body = toGroupUpdateBody(group, { ...groupFormValues(group), UserIDs: chosen, Type: 'local' });
    expect(body).toMatchObject({ ID: group.ID, Type: group.Type, UserIDs: expected });
  });
});

describe('knocChoices', () => {
  it('lists knocs by description, leaving out hidden helper knocs the group does not have', () => {
    const knocs = [
      knocRecord({ ID: 'k2', Description: 'web' }),
      knocRecord({ ID: 'k1', Description: 'Admin VPN' }),
      knocRecord({ ID: 'k3', Description: 'child', HideFromAdmins: true }),
      knocRecord({ ID: 'k4', Description: 'kept child', HideFromAdmins: true }),
    ];
    expect(knocChoices(knocs, ['k4']).map((choice) => choice.value)).toEqual(['k1', 'k4', 'k2']);
  });

  it('falls back to the name when a knoc has no description', () => {
    expect(knocChoices([knocRecord({ Description: '', Name: 'db' })], [])[0]?.label).toBe('db');
  });
});

describe('userChoices', () => {
  const users = [
    userRecord({ ID: 'u2', Name: 'Sam', UserName: 'sam', AuthType: 'SAML' }),
    userRecord({ ID: 'u1', Name: 'Ada', UserName: 'ada' }),
  ];

  it('disables SAML users in a local group and says why', () => {
    expect(userChoices(users, 'local')).toEqual([
      { value: 'u1', label: 'Ada (ada)', disabled: false, note: null },
      { value: 'u2', label: 'Sam (sam)', disabled: true, note: 'groupsScreen.form.samlUser' },
    ]);
  });

  it.each(['saml', 'dynamic'] as const)('disables every user in a %s group', (type) => {
    expect(userChoices(users, type).every((choice) => choice.disabled && choice.note === null)).toBe(true);
  });
});
