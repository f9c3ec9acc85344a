import { GrantStatus, type AclEntry } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { knocPhase, resolveKnocs, statusName } from './knocs.js';

function acl(id: string, name: string, extra: Partial<AclEntry> = {}): AclEntry {
  return {
    ID: id,
    ACLID: id,
    ParentID: null,
    Description: name,
    URL: '',
    Icon: '',
    Category: '',
    Status: GrantStatus.Created,
    Error: '',
    ExpiredAfter: null,
    ClickToGrant: true,
    CGNATOpen: false,
    HideFromUsers: false,
    DisableForUser: false,
    GrantTypeFixedIps: false,
    AutoBrowseUsers: false,
    Config: { UriToken: '' },
    ...extra,
  };
}

const ACLS = [
  acl('k1', 'Backup DB'),
  acl('k2', 'Wiki'),
  acl('k3', 'Hidden', { HideFromUsers: true }),
  acl('k4', 'Excluded here', { DisableForUser: true }),
];

function refusal(action: () => unknown): ClientError {
  try {
    action();
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const ids = (entries: AclEntry[]) => entries.map((entry) => entry.ACLID);

describe('resolving --knoc', () => {
  it('finds knocs by exact name or by ID, in the order asked, without repeats', () => {
    expect(ids(resolveKnocs(ACLS, ['Wiki', 'k1', 'Backup DB']))).toEqual(['k2', 'k1']);
  });

  it('takes every knoc the user may use when none is named: not hidden, not disabled here', () => {
    expect(ids(resolveKnocs(ACLS, []))).toEqual(['k1', 'k2']);
  });

  it('finds a knoc hidden from users when it is named', () => {
    expect(ids(resolveKnocs(ACLS, ['Hidden']))).toEqual(['k3']);
  });

  it('refuses unknown names with exit 5, naming each and listing what the user may use', () => {
    const error = refusal(() => resolveKnocs(ACLS, ['backup db', 'Wiki', 'Mail']));

    expect(error.exitCode).toBe(ExitCode.KnocUnknown);
    expect(error.message).toBe('no knoc "backup db", "Mail" for this user; it may use: "Backup DB" (k1), "Wiki" (k2)');
  });

  it('refuses a name two knocs share, asking for the ID', () => {
    const error = refusal(() => resolveKnocs([...ACLS, acl('k9', 'Wiki')], ['Wiki']));

    expect(error).toMatchObject({ exitCode: ExitCode.KnocUnknown });
    expect(error.message).toContain('IDs k2, k9');
  });

  it('prefers an ID over another knoc of that name', () => {
    expect(ids(resolveKnocs([...ACLS, acl('k5', 'k1')], ['k1']))).toEqual(['k1']);
  });

  it('says so when the user may use no knoc at all', () => {
    expect(refusal(() => resolveKnocs([ACLS[2] as AclEntry], [])).exitCode).toBe(ExitCode.KnocUnknown);
  });
});

describe('the phase of a grant status', () => {
  it.each([
    [GrantStatus.Granted, 'granted'],
    [GrantStatus.Read, 'granted'],
    [GrantStatus.Pending, 'in-progress'],
    [GrantStatus.Published, 'in-progress'],
    [GrantStatus.GrantError, 'failed'],
    [GrantStatus.AgentOffline, 'failed'],
    [GrantStatus.Created, 'not-granted'],
    [GrantStatus.Revoking, 'not-granted'],
    [GrantStatus.Revoked, 'not-granted'],
    [GrantStatus.RevokeError, 'not-granted'],
    [7, 'in-progress'],
  ])('status %i is %s', (status, phase) => {
    expect(knocPhase(status)).toBe(phase);
  });

  it('names statuses as the protocol does', () => {
    expect(statusName(GrantStatus.AgentOffline)).toBe('AgentOffline');
    expect(statusName(7)).toBe('Status7');
  });
});
