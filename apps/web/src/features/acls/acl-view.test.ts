import { describe, expect, it } from 'vitest';
import { GrantStatus } from '@postern/protocol';
import { aclEntry } from '../../test-support/fixtures';
import { aclAction, aclBadge, isUnsettled, settledAfter, visibleAcls, browsableUrl } from './acl-view';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const inSeconds = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

describe('the action an ACL offers (spec §4 status table)', () => {
  it.each([
    [GrantStatus.Granted, null, 'revoke'],
    [GrantStatus.GrantError, null, 'grant'],
    [GrantStatus.GrantError, inSeconds(600), 'revoke'],
    [GrantStatus.Pending, null, 'pending'],
    [GrantStatus.AgentOffline, null, 'offline'],
    [GrantStatus.AgentOffline, inSeconds(600), 'offline'],
    [GrantStatus.Created, null, 'grant'],
    [GrantStatus.Read, inSeconds(600), 'revoke'],
    [GrantStatus.Published, inSeconds(600), 'revoke'],
    [GrantStatus.Revoking, null, 'revoke'],
    [GrantStatus.Revoked, null, 'grant'],
    [GrantStatus.RevokeError, null, 'grant'],
    [GrantStatus.Created, inSeconds(-5), 'grant'],
  ])('status %i with ExpiredAfter %s offers %s', (status, expiredAfter, action) => {
    expect(aclAction(aclEntry({ Status: status, ExpiredAfter: expiredAfter }), NOW)).toBe(action);
  });

  it('shows Disabled for DisableForUser, whatever the status', () => {
    for (const status of [GrantStatus.Created, GrantStatus.Granted, GrantStatus.AgentOffline]) {
      expect(aclAction(aclEntry({ Status: status, DisableForUser: true }), NOW)).toBe('disabled');
    }
  });
});

describe('the badge of an ACL', () => {
  it('says how long access lasts while a grant runs', () => {
    expect(aclBadge(aclEntry({ Status: GrantStatus.Granted, ExpiredAfter: inSeconds(3600) }), NOW)).toEqual({
      kind: 'access',
      secondsLeft: 3600,
      warning: false,
    });
  });

  it.each([
    [900, false],
    [899, true],
    [60, true],
  ])('with %i seconds left is orange: %s', (seconds, warning) => {
    const badge = aclBadge(aclEntry({ Status: GrantStatus.Published, ExpiredAfter: inSeconds(seconds) }), NOW);
    expect(badge).toMatchObject({ kind: 'access', warning });
  });

  it('shows no access badge once the grant has ended, nor while it is being revoked', () => {
    expect(aclBadge(aclEntry({ Status: GrantStatus.Granted, ExpiredAfter: inSeconds(-1) }), NOW).kind).toBe('none');
    expect(aclBadge(aclEntry({ Status: GrantStatus.Revoking, ExpiredAfter: inSeconds(60) }), NOW).kind).toBe('none');
    expect(aclBadge(aclEntry({ Status: GrantStatus.Created }), NOW).kind).toBe('none');
  });

  it('carries the error of a failed grant or revoke, and marks an offline agent', () => {
    expect(aclBadge(aclEntry({ Status: GrantStatus.GrantError, Error: 'boom' }), NOW)).toEqual({
      kind: 'error',
      message: 'boom',
    });
    expect(aclBadge(aclEntry({ Status: GrantStatus.RevokeError, Error: '' }), NOW).kind).toBe('error');
    expect(aclBadge(aclEntry({ Status: GrantStatus.AgentOffline }), NOW).kind).toBe('offline');
  });
});

describe('settling', () => {
  it('counts Pending and Revoking as on their way, everything else as settled', () => {
    const unsettled = Object.values(GrantStatus).filter((status) => isUnsettled({ Status: status }));
    expect(unsettled.sort()).toEqual([GrantStatus.Pending, GrantStatus.Revoking].sort());
  });

  it.each([1, 3, 4, 6])('stops the poll after any action at the spec status %i', (status) => {
    expect(settledAfter('grant', status)).toBe(true);
    expect(settledAfter('revoke', status)).toBe(true);
  });

  it('stops a grant poll when the grant is on the device, a revoke poll when the revoke is done', () => {
    expect(settledAfter('grant', GrantStatus.Granted)).toBe(true);
    expect(settledAfter('grant', GrantStatus.Pending)).toBe(false);
    expect(settledAfter('grant', GrantStatus.Revoked)).toBe(false);
    expect(settledAfter('revoke', GrantStatus.Revoked)).toBe(true);
    expect(settledAfter('revoke', GrantStatus.RevokeError)).toBe(true);
    expect(settledAfter('revoke', GrantStatus.Revoking)).toBe(false);
    expect(settledAfter('revoke', GrantStatus.Granted)).toBe(false);
  });
});

describe('what users see', () => {
  it('leaves out HideFromUsers ACLs', () => {
    const shown = aclEntry({ ACLID: 'a' });
    expect(visibleAcls([shown, aclEntry({ ACLID: 'b', HideFromUsers: true })])).toEqual([shown]);
  });

  it('links only http and https addresses', () => {
    expect(browsableUrl('https://wiki.example.com/x')).toBe('https://wiki.example.com/x');
    expect(browsableUrl('HTTP://wiki.example.com')).toBe('HTTP://wiki.example.com');
    expect(browsableUrl('ssh://bastion.example.com')).toBeNull();
    expect(browsableUrl('javascript:alert(1)')).toBeNull();
    expect(browsableUrl('')).toBeNull();
  });
});
