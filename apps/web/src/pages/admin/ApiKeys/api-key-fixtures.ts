import type { ApiKeyRecord, KnocRecord, UserRecord } from '@postern/protocol';

/*
 * Test fixtures of the API keys screen: whole protocol records with only the interesting fields
 * chosen by each test (the typed fake API checks them against the schemas).
 */

/** A stored API key. */
export function apiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    ID: 'key-1',
    Name: 'ci-pipeline',
    Scopes: ['allowlist.read:acl-1'],
    Resources: ['acl-1'],
    AllowedFrom: [
      { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
      { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
    ],
    ExpiredAfter: null,
    CreatedAt: new Date(Date.now() - 90 * 86_400_000).toISOString(),
    LastUsedAt: null,
    ...overrides,
  };
}

/** A knoc; an allowlist one unless told otherwise. */
export function knoc(overrides: Partial<KnocRecord> = {}): KnocRecord {
  return {
    ID: 'acl-1',
    Name: 'Office allowlist',
    Description: 'Office allowlist',
    ParentID: null,
    Children: [],
    HideFromAdmins: false,
    HideFromUsers: false,
    URL: '',
    Category: 'Default',
    Icon: 'server',
    ClickToGrant: false,
    CGNATOpen: false,
    MaximumGrantDuration: 0,
    BackendID: 'backend-1',
    BackendName: 'allowlist',
    BackendType: 'allowlist',
    AgentID: '00000000-0000-0000-0000-000000000000',
    AgentName: '',
    AutoBrowseUsers: false,
    UserCount: 0,
    GroupCount: 0,
    UserIDs: [],
    GroupIDs: [],
    LastModifiedAt: new Date().toISOString(),
    LastModifiedBy: 'admin',
    IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
    GrantType: { Type: 'userIp', Ips: [] },
    Config: {},
    AclConfig: {},
    BackendConfig: {},
    ...overrides,
  };
}

/** A user; an API-key user unless told otherwise. */
export function user(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    ID: 'user-1',
    Name: 'Robot',
    UserName: 'robot',
    Company: '',
    Duration: 480,
    SessionLimit: null,
    AuthType: 'apikey',
    TOTPEnabled: false,
    TOTPVerified: false,
    Disabled: false,
    ValidUntil: null,
    ThirdPartyAuth: null,
    AclIds: [],
    Licensed: true,
    LastLogin: null,
    CreatedAt: new Date().toISOString(),
    ActiveSession: false,
    ...overrides,
  };
}
