import { describe, expect, it } from 'vitest';
import { AuditActions, type AuditDetail } from '@postern/protocol';
import { auditParties } from './parties.js';

describe('auditParties', () => {
  it.each<[string, AuditDetail, string | null, string | null]>([
    // A user's own doing: the user acted, on nobody (or on the knoc).
    [AuditActions.UserLogin, { UserName: 'ada', IpAddress: '192.0.2.1' }, 'ada', null],
    [AuditActions.ClickToGrant, { UserName: 'ada', AclDescription: 'Billing' }, 'ada', 'Billing'],
    // An admin acting on a user: the same UserName field is now the target.
    [AuditActions.UserCreated, { AdminName: 'ops', UserName: 'ada' }, 'ops', 'ada'],
    [AuditActions.UserTotpReset, { AdminName: 'ops', UserName: 'ada' }, 'ops', 'ada'],
    // An API caller (a user) changing a knoc, and an admin doing the same.
    [AuditActions.KnocCreated, { UserName: 'ci-bot', AclDescription: 'Build' }, 'ci-bot', 'Build'],
    [AuditActions.KnocDeleted, { AdminName: 'ops', AclDescription: 'Build' }, 'ops', 'Build'],
    [AuditActions.GroupUpdated, { AdminName: 'ops', Description: 'Eng' }, 'ops', 'Eng'],
    [AuditActions.AgentCreated, { AdminName: 'ops', AgentName: 'edge' }, 'ops', 'edge'],
    [AuditActions.AgentConnected, { AgentName: 'edge', IpAddress: '192.0.2.9' }, 'edge', null],
    // Admin accounts: from the console (the changed admin in Description) or from the command line.
    [AuditActions.AdminCreated, { AdminName: 'ops', Description: 'grace' }, 'ops', 'grace'],
    [AuditActions.AdminCreated, { AdminName: 'grace' }, null, 'grace'],
    [AuditActions.AdminPasswordReset, { AdminName: 'grace' }, null, 'grace'],
    [AuditActions.AdminCreatedAutomatically, { AdminName: 'postern-admin' }, null, 'postern-admin'],
    [AuditActions.SessionLimitEnforced, { UserName: 'ada', Description: '1 older session(s) ended' }, null, 'ada'],
    [AuditActions.SignInBlocked, { IpAddress: '192.0.2.1', Description: 'too many' }, null, null],
    [AuditActions.SettingsUpdated, { AdminName: 'ops' }, 'ops', null],
    // An empty field counts as unset; an action this release does not know keeps its usual actor.
    [AuditActions.UserCreated, { AdminName: 'ops', UserName: '' }, 'ops', null],
    ['SomethingNew', { UserName: 'ada', AclDescription: 'Billing' }, 'ada', null],
  ])('%s %j: actor %j, target %j', (action, detail, actor, target) => {
    expect(auditParties(action, detail)).toEqual({ actor, target });
  });
});
