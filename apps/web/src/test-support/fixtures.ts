import type {
  AclEntry,
  AdminSessionInfo,
  AdminStatus,
  KnocRecord,
  LicensingSummary,
  UserRecord,
  UserSessionInfo,
  UserStatus,
} from '@postern/protocol';
import { SESSION_KEYS } from '../lib/session/session-store';

/** A user session as /api/login returns it. */
export function userSession(overrides: Partial<UserSessionInfo> = {}): UserSessionInfo {
  return {
    Name: 'Ada Lovelace',
    UserName: 'ada',
    AuthType: 'local',
    Ends: new Date(Date.now() + 8 * 3_600_000).toISOString(),
    KioskMode: false,
    NewUserDashboard: false,
    ...overrides,
  };
}

/** An admin session as /api/admin/login returns it (no second factor). */
export function adminSession(overrides: Partial<AdminSessionInfo> = {}): AdminSessionInfo {
  return {
    Name: 'Grace Hopper',
    UserName: 'grace',
    AuthType: 'local',
    TotpEnabled: false,
    AdminTotpVerified: false,
    TotpEnrolmentDeferable: false,
    ...overrides,
  };
}

/** GET /api/status for a signed-in user. */
export function userStatus(overrides: Partial<UserStatus> = {}): UserStatus {
  return {
    Name: 'Ada Lovelace',
    UserName: 'ada',
    CurrentAddress: '192.0.2.10',
    Ends: new Date(Date.now() + 8 * 3_600_000).toISOString(),
    KioskMode: false,
    ValidUntil: null,
    Licensed: true,
    UserLicensed: true,
    AuthType: 'local',
    NewUserDashboard: false,
    AutoBrowseToURI: null,
    ACLs: [],
    Language: null,
    ...overrides,
  };
}

/** A valid licence as the admin status sums it up: 10 users plus 50 % (5) overage, 3 sessions per user. */
export function licensingSummary(overrides: Partial<LicensingSummary> = {}): LicensingSummary {
  return {
    Licensed: true,
    Expires: '2030-01-01T00:00:00.000Z',
    UserLimit: 10,
    UserLimitOverage: 5,
    UserLimitOveragePercentage: 50,
    SessionLimit: 3,
    ...overrides,
  };
}

/** GET /api/admin/status for a signed-in admin. */
export function adminStatus(overrides: Partial<AdminStatus> = {}): AdminStatus {
  return {
    ...adminSession(),
    Cloud: false,
    ServerVersion: '1.9.0',
    AvailableServerVersions: [],
    LatestChangeLogsUrl: '',
    MinimumRequiredAgentVersion: '1.6.0',
    UserCount: 0,
    ExperimentalFeatures: [],
    SessionCount: 0,
    ACLCount: 0,
    Activity: [],
    Licensing: {
      Licensed: false,
      Expires: null,
      UserLimit: 0,
      UserLimitOverage: 0,
      UserLimitOveragePercentage: 0,
      SessionLimit: 0,
    },
    SupportUrl: null,
    SupportEmail: null,
    LicensingUrl: null,
    PublicUrl: 'https://postern.example',
    AvailableAgentVersions: [],
    Language: null,
    ...overrides,
  };
}

/** Puts a user session in session storage, as a sign-in in this tab would have. */
export function signInUser(overrides: Partial<UserSessionInfo> = {}): UserSessionInfo {
  const info = userSession(overrides);
  window.sessionStorage.setItem(SESSION_KEYS.user, JSON.stringify(info));
  return info;
}

/** Puts an admin session in session storage. */
export function signInAdmin(overrides: Partial<AdminSessionInfo> = {}): AdminSessionInfo {
  const info = adminSession(overrides);
  window.sessionStorage.setItem(SESSION_KEYS.admin, JSON.stringify(info));
  return info;
}

/** One ACL of GET /api/status: a click-to-grant system, ready to grant. */
export function aclEntry(overrides: Partial<AclEntry> = {}): AclEntry {
  const id = overrides.ACLID ?? overrides.ID ?? 'acl-1';
  return {
    ID: id,
    ACLID: id,
    ParentID: null,
    Description: 'Billing database',
    URL: '',
    Icon: 'server',
    Category: 'Default',
    Status: 4,
    Error: '',
    ExpiredAfter: null,
    ClickToGrant: true,
    CGNATOpen: false,
    HideFromUsers: false,
    DisableForUser: false,
    GrantTypeFixedIps: false,
    AutoBrowseUsers: false,
    Config: { UriToken: '' },
    ...overrides,
  };
}

/* Whole admin records, complete enough for the protocol's response schemas; tests override what they look at. */

/** A knoc on an ipset backend, as the admin knoc list has it. */
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

/** A local user, as the admin user list has it. */
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
