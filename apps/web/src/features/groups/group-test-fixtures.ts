import type { GroupRecord, KnocRecord, UserRecord } from '@postern/protocol';

/*
 * Records for the groups tests, complete enough to pass the protocol's response schemas (the typed
 * fake API parses every answer).
 */

/** A local group. */
export function groupRecord(overrides: Partial<GroupRecord> = {}): GroupRecord {
  return {
    ID: 'g-ops',
    Name: 'Operations',
    Description: 'On-call staff',
    Type: 'local',
    ACLIDs: [],
    UserIDs: [],
    ...overrides,
  };
}

/** A knoc on an ipset backend. */
export function knocRecord(overrides: Partial<KnocRecord> = {}): KnocRecord {
  return {
    ID: 'k-db',
    Name: 'Billing database',
    Description: 'Billing database',
    ParentID: null,
    Children: [],
    HideFromAdmins: false,
    HideFromUsers: false,
    URL: '',
    Category: 'Default',
    Icon: 'server',
    ClickToGrant: true,
    CGNATOpen: false,
    MaximumGrantDuration: 0,
    BackendID: 'b-1',
    BackendName: 'edge ipset',
    BackendType: 'ipset',
    AgentID: 'agent-1',
    AgentName: 'edge',
    AutoBrowseUsers: false,
    UserCount: 0,
    GroupCount: 0,
    UserIDs: [],
    GroupIDs: [],
    LastModifiedAt: '2026-01-01T00:00:00.000Z',
    LastModifiedBy: 'grace',
    IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
    GrantType: { Type: 'userIp', Ips: [] },
    Config: {},
    AclConfig: {},
    BackendConfig: {},
    ...overrides,
  };
}

/** A local user. */
export function userRecord(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    ID: 'u-ada',
    Name: 'Ada Lovelace',
    UserName: 'ada',
    Company: '',
    Duration: 480,
    SessionLimit: null,
    AuthType: 'local',
    TOTPEnabled: false,
    TOTPVerified: false,
    Disabled: false,
    ValidUntil: null,
    ThirdPartyAuth: null,
    AclIds: [],
    Licensed: true,
    LastLogin: null,
    CreatedAt: '2026-01-01T00:00:00.000Z',
    ActiveSession: false,
    ...overrides,
  };
}
